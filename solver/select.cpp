// The --solver policy: sim, exact, or auto (exact when it applies and fits, else simulation).
#include <algorithm>
#include <string>

#include "solver/solve.hpp"

namespace sgdnet::solver {
namespace {

/// Why the exact solver does not apply to the net (empty when it does, structurally). Auto
/// never approximates: a non-exponential delay means simulation.
std::string exact_inapplicable(const net::PetriNet& net) {
    for (const net::Transition& t : net.transitions) {
        if (t.kind != net::TransitionKind::Timed || net::is_exponential(t.delay)) continue;
        return "transition '" + t.name + "' has the non-exponential delay " +
               net::to_readable_string(t.delay);
    }
    return {};
}

}  // namespace

SolveResult solve(const net::PetriNet& net, const SolveOptions& options) {
    switch (options.solver) {
        case SolverKind::Sim:
            return simulate(net, options);
        case SolverKind::Exact:
            return solve_exact(net, options);
        case SolverKind::Auto:
            break;
    }
    std::string why = exact_inapplicable(net);
    if (why.empty()) {
        SolveOptions exact = options;
        exact.max_states = std::min(options.max_states, options.auto_max_states);
        exact.phase_type = false;
        try {
            return solve_exact(net, exact);
        } catch (const SolveError& e) {
            // Only a state space over the auto limit falls back; a deadlock, a bound exceeded,
            // a non-ergodic net are properties of the net that simulation would meet too.
            if (e.kind() != SolveError::Kind::StateSpaceTooLarge) throw;
            why = "the state space exceeds " + std::to_string(exact.max_states) + " states";
        }
    }
    SolveResult r = simulate(net, options);
    r.warnings.insert(r.warnings.begin(), "--solver auto chose simulation: " + why);
    return r;
}

}  // namespace sgdnet::solver
