// Fine ring all-reduce benchmark (Google Benchmark): net size and simulated events/s at N = 8, 32, 64.
#include <benchmark/benchmark.h>

#include <string>

#include "compiler/compile.hpp"
#include "solver/solve.hpp"

namespace {

using namespace sgdnet;

net::PetriNet fine_ring(int n) {
    compiler::CompileOptions opts;
    opts.overrides.push_back({"N", std::to_string(n)});
    compiler::Diagnostics diags;
    auto net = compiler::compile_file(std::string(SGDNET_SOURCE_DIR) +
                                          "/models/allreduce_ring_fine.sgdnet",
                                      opts, diags);
    if (!net) throw std::runtime_error(diags.render());
    return *net;
}

/// One run to 1% precision of models/allreduce_ring_fine.sgdnet (ResNet-50-like, 161 layers) on
/// one thread; counters: events per wall second, events, places, transitions.
void BM_FineRing(benchmark::State& state) {
    const net::PetriNet net = fine_ring(static_cast<int>(state.range(0)));
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

}  // namespace

BENCHMARK_MAIN();
