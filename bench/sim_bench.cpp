// Firings per second of the simulator: token ring, fork-join, a 10,000-transition net, replications.
//
// Run: build-*/bench/sim_bench  (see docs/solver-sim.md for the figures and the protocol).
#include <benchmark/benchmark.h>

#include <string>

#include "net/petri_net.hpp"
#include "solver/sim/engine.hpp"
#include "solver/solve.hpp"

namespace {

using namespace sgdnet;

net::Arc arc(uint32_t p, uint32_t m = 1) { return {net::PlaceId{p}, m}; }

net::Transition timed(std::string name, double rate, std::vector<net::Arc> in,
                      std::vector<net::Arc> out) {
    net::Transition t;
    t.name = std::move(name);
    t.delay = {net::Exp{rate}};
    t.inputs = std::move(in);
    t.outputs = std::move(out);
    return t;
}

/// A ring of `places` places holding `tokens` tokens; transition i moves a token i → i+1.
net::PetriNet ring(uint32_t places, uint32_t tokens) {
    net::PetriNet n;
    n.name = "ring";
    for (uint32_t i = 0; i < places; ++i)
        n.places.push_back({"p" + std::to_string(i), i % (places / tokens) == 0 ? 1u : 0u, {}, {}});
    for (uint32_t i = 0; i < places; ++i)
        n.transitions.push_back(timed("t" + std::to_string(i), 1.0, {arc(i)}, {arc((i + 1) % places)}));
    net::Measure m;
    m.name = "X";
    m.terms = {{net::TransitionId{0}, 1.0}};
    n.measures.push_back(m);
    return n;
}

/// Fork-join: an immediate fork puts one token in each of `branches` branches, each branch is
/// an exponential delay, and an immediate join waits for all of them.
net::PetriNet fork_join(uint32_t branches) {
    net::PetriNet n;
    n.name = "forkjoin";
    n.places.push_back({"start", 1, {}, {}});
    for (uint32_t i = 0; i < branches; ++i) {
        n.places.push_back({"b" + std::to_string(i), 0, {}, {}});
        n.places.push_back({"d" + std::to_string(i), 0, {}, {}});
    }
    net::Transition fork;
    fork.name = "fork";
    fork.kind = net::TransitionKind::Immediate;
    fork.inputs = {arc(0)};
    net::Transition join;
    join.name = "join";
    join.kind = net::TransitionKind::Immediate;
    join.outputs = {arc(0)};
    for (uint32_t i = 0; i < branches; ++i) {
        fork.outputs.push_back(arc(1 + 2 * i));
        join.inputs.push_back(arc(2 + 2 * i));
        n.transitions.push_back(
            timed("w" + std::to_string(i), 1.0 + i * 0.01, {arc(1 + 2 * i)}, {arc(2 + 2 * i)}));
    }
    n.transitions.push_back(fork);
    n.transitions.push_back(join);
    net::Measure m;
    m.name = "X";
    m.terms = {{net::TransitionId{branches + 1}, 1.0}};
    n.measures.push_back(m);
    return n;
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
