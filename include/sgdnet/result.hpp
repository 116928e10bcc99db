// Public API: options of a solve, its results (measures with confidence intervals, statistics) and
// its errors.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sgdnet {

/// Which solver `run` uses (`--solver`).
enum class Solver {
    Sim,    ///< Monte Carlo simulation: independent replications, Student-t intervals
    Exact,  ///< the CTMC's stationary distribution (every timed delay exponential)
    Auto,   ///< exact when it applies and the state space is small, else simulation
};

/// Every option of `sgdnet run` (docs/cli.md), in canonical units.
struct RunOptions {
    Solver solver = Solver::Sim;
    double precision = 0.01;   ///< target relative half-width of the first measure's interval
    double confidence = 0.95;  ///< confidence level of the intervals, in (0, 1)
    uint64_t seed = 1;         ///< same seed, same numbers, whatever `threads` is
    unsigned threads = 0;      ///< worker threads of the simulator; 0 = every core
    double max_time_s = 60;    ///< wall-clock cap of a simulation, seconds
    uint64_t max_states = 5'000'000;  ///< exact: refuse larger state spaces
    bool phase_type = false;          ///< exact: replace non-exponential delays by phase types
    bool multiprecision = false;      ///< exact: solve in multiprecision arithmetic (stiff chains)
};

/// A measure's estimate in canonical units (s, B, B/s, 1/s, tokens). For the exact solver
/// ci_low == ci_high == mean.
struct Measure {
    std::string name;
    double mean = 0;
    double ci_low = 0;
    double ci_high = 0;
    std::string unit;  ///< "1/s", "s", "tokens", "" (a probability or utilization), …
};

/// How a result was obtained.
struct Stats {
    uint64_t replications = 0;           ///< simulation: independent replications
    uint64_t events = 0;                 ///< simulation: transition firings
    double simulated_s = 0;              ///< simulation: simulated time summed over replications
    double wall_s = 0;                   ///< wall-clock time of the solve
    std::optional<uint64_t> states;      ///< exact: tangible states
    std::optional<double> residual;      ///< exact: ||πQ||₁
    std::optional<uint64_t> iterations;  ///< exact, iterative methods
    std::optional<std::string> method;   ///< exact: the linear solver used
};

/// The steady-state result of one model.
struct Result {
    std::string solver;             ///< "sim" or "exact"
    std::vector<Measure> measures;  ///< in the model's measure order
    Stats stats;
    bool precision_reached = true;  ///< false: the interval is wider than asked (`sgdnet` exit 4)
    std::vector<std::string> warnings;

    /// The measure called `name`. Throws std::out_of_range when there is none.
    const Measure& measure(const std::string& name) const;
};

/// A model that cannot be solved (`sgdnet` exit code 3).
class SolveError : public std::runtime_error {
  public:
    enum class Kind {
        Deadlock,
        BoundExceeded,
        Unbounded,
        StateSpaceTooLarge,
        NotExponential,
        NotErgodic,
        Invalid
    };
    SolveError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    Kind kind() const { return kind_; }

  private:
    Kind kind_;
};

}  // namespace sgdnet
