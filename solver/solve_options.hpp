// SolveOptions: every knob of every solver, passed by value (no globals).
#pragma once

#include <cstdint>

namespace sgdnet::solver {

enum class SolverKind : uint8_t { Sim, Exact, Auto };
enum class Arithmetic : uint8_t { Double, Multiprecision };

struct SolveOptions {
    SolverKind solver = SolverKind::Sim;
    // Simulation (docs/language.md §7).
    double precision = 0.01;   // relative CI half-width of the first measure to stop at
    double confidence = 0.95;  // CI level
    uint64_t seed = 1;
    unsigned threads = 0;      // 0 = every core
    double max_time_s = 60;    // wall-clock cap; over it the result says precision_reached=false
    uint64_t unbounded_tokens = 1'000'000;  // a place above this is reported as unbounded
    // Run private chains of timed transitions as one event each (CompiledNet::fuse_chains);
    // exact in distribution, the results differ from an unfused run only by the random draws.
    bool fuse_chains = true;
    // Exact (CTMC).
    uint64_t max_states = 5'000'000;
    Arithmetic arithmetic = Arithmetic::Double;
    bool phase_type = false;   // replace non-exponential delays by moment-matched phase types
    // Auto: exact when applicable and the state space has at most this many states.
    uint64_t auto_max_states = 200'000;
};

}  // namespace sgdnet::solver
