// Steady state of a tangible CTMC (Eigen sparse LU, Gauss–Seidel, multiprecision GTH) and measures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "solver/exact/ctmc_build.hpp"
#include "solver/solve_options.hpp"

namespace sgdnet::solver {

/// Chains whose recurrent class has at most this many states are solved by sparse LU; larger
/// ones by Gauss–Seidel.
inline constexpr uint64_t kDirectMaxStates = 50'000;
/// Gauss–Seidel stops when a sweep changes π by less than this in 1-norm.
inline constexpr double kIterativeTolerance = 1e-13;
inline constexpr uint64_t kMaxIterations = 50'000;
/// Arithmetic::Multiprecision solves by sparse GTH elimination in 50-digit floating point;
/// it is meant for moderate chains and refuses more states than this.
inline constexpr uint64_t kMultiprecisionMaxStates = 200'000;

/// Stationary distribution π of a CTMC (π Q = 0, Σ π = 1), and how it was obtained.
struct SteadyState {
    std::vector<double> pi;          // per state; 0 on transient states
    double residual = 0;             // ||π Q||_1 (1/s)
    uint64_t iterations = 0;         // Gauss–Seidel sweeps, 0 for direct methods
    std::string method;              // "sparse-lu", "gauss-seidel" or "gth-mp50"
    uint64_t recurrent_states = 0;   // size of the single bottom strongly connected component
    std::vector<std::string> warnings;
};

/// Solves for the stationary distribution. The chain may have transient states but exactly one
/// bottom strongly connected component; otherwise throws SolveError::NotErgodic naming two
/// markings that cannot reach each other.
SteadyState steady_state(const Ctmc& ctmc, const net::PetriNet& net, Arithmetic arithmetic);

}  // namespace sgdnet::solver
