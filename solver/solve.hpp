// Entry points of the solvers: simulation, exact CTMC, and the --solver auto policy.
#pragma once

#include "net/petri_net.hpp"
#include "solver/solve_options.hpp"
#include "solver/solve_result.hpp"

namespace sgdnet::solver {

/// Monte Carlo steady-state estimation (independent replications / batch means, Student-t CIs,
/// sequential stopping on options.precision for the first measure). Deterministic for a given
/// options.seed whatever options.threads is. Throws SolveError (deadlock, bound, unbounded).
SolveResult simulate(const net::PetriNet& net, const SolveOptions& options);

/// Exact steady state of the net's CTMC (all timed delays exponential, or options.phase_type).
/// Throws SolveError (NotExponential, StateSpaceTooLarge, Deadlock, NotErgodic, …).
SolveResult solve_exact(const net::PetriNet& net, const SolveOptions& options);

/// Dispatches on options.solver; Auto picks exact when it applies and fits, else simulation.
SolveResult solve(const net::PetriNet& net, const SolveOptions& options);

}  // namespace sgdnet::solver
