// Results and errors of solving a net: estimates with confidence intervals, statistics.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sgdnet::solver {

/// A measure's estimate in canonical units. For the exact solver ci_low == ci_high == mean.
struct MeasureEstimate {
    std::string name;
    double mean = 0;
    double ci_low = 0;
    double ci_high = 0;
    std::string unit;
};

struct SolveStats {
    uint64_t replications = 0;
    uint64_t events = 0;       // transition firings (timed and immediate)
    double simulated_s = 0;    // simulated time summed over replications
    double wall_s = 0;
    std::optional<uint64_t> states;       // exact: tangible states
    std::optional<double> residual;       // exact: ||πQ||_1 after solving
    std::optional<uint64_t> iterations;   // exact, iterative solvers
    std::optional<std::string> method;    // exact: e.g. "sparse-lu", "gauss-seidel"
};

struct SolveResult {
    std::string solver;  // "sim" or "exact"
    std::vector<MeasureEstimate> measures;  // in the net's measure order
    SolveStats stats;
    bool precision_reached = true;  // false → exit code 4
    std::vector<std::string> warnings;
};

/// A net that cannot be solved (exit code 3). Carries the net element it concerns, when one.
class SolveError : public std::runtime_error {
public:
    enum class Kind { Deadlock, BoundExceeded, Unbounded, StateSpaceTooLarge, NotExponential,
                      NotErgodic, Invalid };
    SolveError(Kind kind, std::string message, std::optional<uint32_t> place = {},
               std::optional<uint32_t> transition = {})
        : std::runtime_error(std::move(message)), kind_(kind), place_(place),
          transition_(transition) {}
    Kind kind() const { return kind_; }
    std::optional<uint32_t> place() const { return place_; }
    std::optional<uint32_t> transition() const { return transition_; }

private:
    Kind kind_;
    std::optional<uint32_t> place_;
    std::optional<uint32_t> transition_;
};

}  // namespace sgdnet::solver
