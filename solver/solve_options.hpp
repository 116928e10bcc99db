// SolveOptions: every knob of every solver, passed by value (no globals).
#pragma once

#include <cstdint>
#include <functional>

namespace sgdnet::solver {

/// How far a simulation is, reported after each of its rounds (SolveOptions::on_progress).
struct SimProgress {
    int rounds = 0;                   // rounds completed, from 1
    double relative_half_width = 0;   // of the first measure after the last round; inf at mean 0
    double precision = 0;             // the target: SolveOptions::precision
    uint64_t events = 0;              // events simulated so far, every replication together
    double wall_s = 0;                // wall-clock seconds since the solve started
};

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
    // Called by the simulator on its calling thread after each round (rounds double in length:
    // calls grow rarer), e.g. to draw progress; must be quick and must not throw. Empty: none.
    // Neither the exact solver nor the results depend on it.
    std::function<void(const SimProgress&)> on_progress;
    // Exact (CTMC).
    uint64_t max_states = 5'000'000;
    Arithmetic arithmetic = Arithmetic::Double;
    bool phase_type = false;   // replace non-exponential delays by moment-matched phase types
    // Auto: exact when applicable and the state space has at most this many states.
    uint64_t auto_max_states = 200'000;
};

}  // namespace sgdnet::solver
