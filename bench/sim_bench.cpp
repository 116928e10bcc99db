// Firings per second of the simulator: token ring, fork-join, a 10,000-transition net, replications, and a closed cyclic network beside a simulator written by hand for it.
//
// Run: build-*/bench/sim_bench  (see docs/solver-sim.md for the figures and the protocol).
#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <string>
#include <vector>

#include "net/petri_net.hpp"
#include "solver/sim/engine.hpp"
#include "solver/sim/rng.hpp"
#include "solver/solve.hpp"
#include "tests/support/test_nets.hpp"

namespace {

using namespace sgdnet;

/// A ring of `places` places holding `tokens` tokens, evenly spaced; transition i moves a token
/// i → i+1 at rate 1/s.
net::PetriNet ring(uint32_t places, uint32_t tokens) {
    testing::NetBuilder b("ring");
    std::vector<uint32_t> initial;
    for (uint32_t i = 0; i < places; ++i) initial.push_back(i % (places / tokens) == 0 ? 1u : 0u);
    const auto ring = b.cycle(std::vector<double>(places, 1.0), initial);
    b.throughput("X", ring.transitions[0]);
    return b.net;
}

/// Fork-join: an immediate fork puts one token in each of `branches` branches, each branch is
/// an exponential delay, and an immediate join waits for all of them.
net::PetriNet fork_join(uint32_t branches) {
    testing::NetBuilder b("forkjoin");
    const uint32_t start = b.place("start", 1);
    std::vector<uint32_t> begin, done;
    for (uint32_t i = 0; i < branches; ++i) {
        begin.push_back(b.place("b" + std::to_string(i)));
        done.push_back(b.place("d" + std::to_string(i)));
    }
    testing::ArcList forked, joined;
    for (uint32_t i = 0; i < branches; ++i) {
        b.timed("w" + std::to_string(i), 1.0 + i * 0.01, {{begin[i], 1}}, {{done[i], 1}});
        forked.push_back({begin[i], 1});
        joined.push_back({done[i], 1});
    }
    b.immediate("fork", 1, 1, {{start, 1}}, forked);
    const uint32_t join = b.immediate("join", 1, 1, joined, {{start, 1}});
    b.throughput("X", join);
    return b.net;
}

/// Single-thread engine firings/s: runs one replication for a fixed number of timed firings.
void run_engine(benchmark::State& state, const net::PetriNet& n) {
    const solver::CompiledNet cn = solver::CompiledNet::build(n, {}, {0}, 1'000'000);
    solver::SimEngine e(cn, 1, 0);
    uint64_t events = 0;
    for (auto _ : state) {
        const uint64_t before = e.events();
        if (e.run_events(1'000'000) != solver::SimEngine::Status::Ok) state.SkipWithError("error");
        events += e.events() - before;
    }
    state.counters["firings_per_s"] =
        benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}

void BM_TokenRing64(benchmark::State& state) {
    run_engine(state, ring(64, static_cast<uint32_t>(state.range(0))));
}
BENCHMARK(BM_TokenRing64)->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ForkJoin32(benchmark::State& state) { run_engine(state, fork_join(32)); }
BENCHMARK(BM_ForkJoin32)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Net10k(benchmark::State& state) { run_engine(state, ring(10'000, 1'000)); }
BENCHMARK(BM_Net10k)->Unit(benchmark::kMillisecond)->UseRealTime();

/// The closed cyclic network of the speed target: 6 exponential single-server stations (rates
/// 1.0, 1.1, … 1.5 per second) in a cycle, 10 tokens at the first.
constexpr std::array<double, 6> kCyclicRates{1.0, 1.1, 1.2, 1.3, 1.4, 1.5};
constexpr uint32_t kCyclicTokens = 10;

net::PetriNet cyclic6() {
    testing::NetBuilder b("cyclic");
    const auto c = b.cyclic_network({kCyclicRates.begin(), kCyclicRates.end()}, kCyclicTokens);
    b.throughput("X", c.transitions[0]);
    return b.net;
}

/// The same network simulated by a program written for it alone: the marking is six counters,
/// every delay is exponential, so each event is one race: the rate sum of the busy stations,
/// one exponential draw for the time, one uniform draw for the winner. It counts the firings of
/// station 0 (the measure X) and keeps the clock, as the engine does.
class HandCyclic {
public:
    explicit HandCyclic(uint64_t seed) : rng_(seed, 0) { tokens_[0] = kCyclicTokens; }

    void run(uint64_t events) {
        for (uint64_t e = 0; e < events; ++e) {
            std::array<double, 6> rate{};
            double total = 0;
            for (std::size_t i = 0; i < 6; ++i) {
                rate[i] = tokens_[i] > 0 ? kCyclicRates[i] : 0.0;
                total += rate[i];
            }
            clock_ += rng_.exponential() / total;
            double u = rng_.uniform() * total;
            std::size_t k = 0;
            while (k + 1 < 6 && u >= rate[k]) u -= rate[k++];
            --tokens_[k];
            ++tokens_[(k + 1) % 6];
            if (k == 0) ++fired0_;
        }
    }
    double throughput() const { return static_cast<double>(fired0_) / clock_; }

private:
    solver::Rng rng_;
    std::array<uint32_t, 6> tokens_{};
    double clock_ = 0;
    uint64_t fired0_ = 0;
};

void BM_CyclicEngine(benchmark::State& state) { run_engine(state, cyclic6()); }
BENCHMARK(BM_CyclicEngine)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_CyclicHandWritten(benchmark::State& state) {
    HandCyclic h(1);
    uint64_t events = 0;
    for (auto _ : state) {
        h.run(1'000'000);
        events += 1'000'000;
    }
    benchmark::DoNotOptimize(h.throughput());
    state.counters["firings_per_s"] =
        benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CyclicHandWritten)->Unit(benchmark::kMillisecond)->UseRealTime();

/// Engine and hand-written simulator alternately, 1 M firings each per iteration, so that both
/// see the same machine load: `engine_over_hand` is the ratio of their firing rates.
void BM_CyclicRatio(benchmark::State& state) {
    const solver::CompiledNet cn = solver::CompiledNet::build(cyclic6(), {}, {0}, 1'000'000);
    solver::SimEngine e(cn, 1, 0);
    HandCyclic h(1);
    using Clock = std::chrono::steady_clock;
    double engine_s = 0, hand_s = 0;
    for (auto _ : state) {
        const auto t0 = Clock::now();
        if (e.run_events(1'000'000) != solver::SimEngine::Status::Ok) state.SkipWithError("error");
        const auto t1 = Clock::now();
        h.run(1'000'000);
        const auto t2 = Clock::now();
        engine_s += std::chrono::duration<double>(t1 - t0).count();
        hand_s += std::chrono::duration<double>(t2 - t1).count();
    }
    benchmark::DoNotOptimize(h.throughput());
    state.counters["engine_over_hand"] = hand_s / engine_s;
}
BENCHMARK(BM_CyclicRatio)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);

/// Whole simulate() on the 64-place ring with 8 tokens at a fixed seed: the same replications
/// and events whatever the thread count, so firings/s compare 1 vs 2 threads directly.
void BM_Replications(benchmark::State& state) {
    const net::PetriNet n = ring(64, 8);
    solver::SolveOptions o;
    o.precision = 0.002;
    o.seed = 1;
    o.threads = static_cast<unsigned>(state.range(0));
    uint64_t events = 0;
    for (auto _ : state) events += solver::simulate(n, o).stats.events;
    state.counters["firings_per_s"] =
        benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Replications)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
