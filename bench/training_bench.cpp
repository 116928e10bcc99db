// Training-model benchmarks (Google Benchmark): the fine ring's net size and events/s at N = 8, 32,
// 64, and every ready-made model at its largest target size (fine N = 16, coarse N = 256).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "compiler/compile.hpp"
#include "solver/solve.hpp"
#include "tests/support/models.hpp"

namespace {

using namespace sgdnet;

/// models/NAME.sgdnet at N = n; throws with the diagnostics when it does not compile.
net::PetriNet model(const std::string& name, int n) {
    compiler::Diagnostics diags;
    auto net = testing::compile_model(name, n, diags);
    if (!net) throw std::runtime_error(diags.render());
    return *net;
}

/// One run to 1% precision of models/allreduce_ring_fine.sgdnet (ResNet-50-like, 161 layers) on
/// one thread; counters: events per wall second, events, places, transitions.
void BM_FineRing(benchmark::State& state) {
    const net::PetriNet net = model("allreduce_ring_fine", static_cast<int>(state.range(0)));
    solver::SolveOptions o;
    o.precision = 0.01;
    o.threads = 1;
    o.max_time_s = 60;
    double events = 0, wall = 0;
    for (auto _ : state) {
        auto r = solver::simulate(net, o);
        events += static_cast<double>(r.stats.events);
        wall += r.stats.wall_s;
        benchmark::DoNotOptimize(r);
    }
    state.counters["events_per_s"] = events / wall;
    state.counters["events"] = events / static_cast<double>(state.iterations());
    state.counters["places"] = static_cast<double>(net.places.size());
    state.counters["transitions"] = static_cast<double>(net.transitions.size());
}
BENCHMARK(BM_FineRing)->Arg(8)->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond)->Iterations(3);

/// What `sgdnet run models/NAME.sgdnet --set N=…` does, timed from compilation to result: every
/// model to 1% precision with every core, fine at N = 16 and coarse at N = 256 (the largest
/// sizes the models are meant to answer for in seconds). Counters: events, transitions, and
/// the precision reached (the first measure's relative CI half-width).
const char* const kModels[] = {
    "allreduce_ring_fine", "allreduce_tree_fine", "gossip_fine",
    "ps_sync_fine",        "ps_async_fine",       "ps_ssp_fine",
    "allreduce_ring_coarse", "allreduce_tree_coarse", "gossip_coarse",
    "ps_sync_coarse",        "ps_async_coarse",       "ps_ssp_coarse",
};

void BM_Model(benchmark::State& state) {
    const std::string name = kModels[state.range(0)];
    const bool fine = name.find("_fine") != std::string::npos;
    const int n = fine ? 16 : 256;
    state.SetLabel(name + " N=" + std::to_string(n));
    solver::SolveOptions o;
    o.precision = 0.01;
    o.max_time_s = 60;
    double events = 0, rel = 0, transitions = 0;
    bool reached = true;
    for (auto _ : state) {
        const net::PetriNet net = model(name, n);
        auto r = solver::simulate(net, o);
        events += static_cast<double>(r.stats.events);
        const auto& m = r.measures.front();
        rel = std::max(rel, (m.ci_high - m.ci_low) / 2 / std::abs(m.mean));
        reached = reached && r.precision_reached;
        transitions = static_cast<double>(net.transitions.size());
        benchmark::DoNotOptimize(r);
    }
    if (!reached) state.SkipWithError("1% precision not reached within 60 s");
    state.counters["events"] = events / static_cast<double>(state.iterations());
    state.counters["transitions"] = transitions;
    state.counters["rel_half_width"] = rel;
}
BENCHMARK(BM_Model)->DenseRange(0, 11)->Unit(benchmark::kMillisecond)->Iterations(1)
    ->Repetitions(3)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
