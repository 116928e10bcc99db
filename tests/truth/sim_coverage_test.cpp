// Calibration of the simulator's confidence intervals: 200 independent runs at 95% must cover.
#include <doctest/doctest.h>

#include <cstdio>

#include "solver/solve.hpp"
#include "tests/support/test_nets.hpp"

using namespace sgdnet;
using namespace sgdnet::testing;

namespace {

/// One run of `net` at 95% confidence.
solver::SolveResult simulate_seed(const net::PetriNet& net, int seed, double precision) {
    solver::SolveOptions o;
    o.precision = precision;
    o.confidence = 0.95;
    o.seed = static_cast<uint64_t>(seed);
    return solver::simulate(net, o);
}

}  // namespace

// M/M/1 with λ = 1, μ = 2 (ρ = 0.5): mean number in system ρ/(1−ρ) = 1 and P(busy) = ρ = 0.5
// (Kleinrock, Queueing Systems I, §3.2). Runs with seeds 1..200 at 95% confidence and 1%
// precision must cover the truth in at least 90% of runs (the expected count is 190 of 200; 180
// is about 3.2 binomial standard deviations below). At 1% precision most runs need more than
// one round, so the sequential stopping rule is part of what is checked. Seeds that miss are
// printed.
TEST_CASE("sim coverage: 95% intervals cover the M/M/1 truth in >= 90% of 200 runs") {
    NetBuilder b("mm1");
    const uint32_t q = b.place("q");
    b.timed("arrive", exp_rate(1), {}, {{q, 1}});
    b.timed("serve", exp_rate(2), {{q, 1}}, {});
    b.tokens("L", q);
    b.average("busy", positive(q), "");
    const int runs = 200;
    int cover_l = 0, cover_busy = 0;
    for (int seed = 1; seed <= runs; ++seed) {
        const auto r = simulate_seed(b.net, seed, 0.01);
        const auto& l = r.measures[0];
        const auto& busy = r.measures[1];
        if (l.ci_low <= 1.0 && 1.0 <= l.ci_high) ++cover_l;
        else std::printf("seed %d misses L: [%g, %g]\n", seed, l.ci_low, l.ci_high);
        if (busy.ci_low <= 0.5 && 0.5 <= busy.ci_high) ++cover_busy;
        else std::printf("seed %d misses P(busy): [%g, %g]\n", seed, busy.ci_low, busy.ci_high);
        CHECK((l.ci_high - l.ci_low) / 2 <= 0.01 * l.mean);
    }
    std::printf("coverage over %d runs: L %d, P(busy) %d\n", runs, cover_l, cover_busy);
    CHECK(cover_l >= 180);
    CHECK(cover_busy >= 180);
}

// A nearly periodic process, where the count over a window is dominated by the firings that
// straddle its ends: N = 8 workers compute for Uniform(0.9, 1.1) s each, then wait at a barrier
// that starts the next step. Steps are independent, so steps/s = 1 / E[max of 8 uniforms] and
// E[max] = 0.9 + 0.2 · 8/9 s (order statistics of the uniform); a worker computes for a
// fraction 1.0 / E[max] of the time. The step time's cv is 1.8%, so each measure's 8 transitions
// fire in a cluster once per step; 200 runs at 95% and 0.5% precision must cover in >= 180.
TEST_CASE("sim coverage: 95% intervals cover a barrier's steps/s in >= 90% of 200 runs") {
    constexpr int n = 8;
    const double e_max = 0.9 + 0.2 * n / (n + 1.0);
    NetBuilder b("barrier");
    std::vector<uint32_t> ready, done, compute;
    for (int i = 0; i < n; ++i) {
        ready.push_back(b.place("ready" + std::to_string(i), 1));
        done.push_back(b.place("done" + std::to_string(i)));
    }
    for (int i = 0; i < n; ++i)
        compute.push_back(b.timed("compute" + std::to_string(i),
                                  net::Distribution{net::Uniform{0.9, 1.1}}, {{ready[i], 1}},
                                  {{done[i], 1}}));
    ArcList all_done, all_ready;
    for (int i = 0; i < n; ++i) {
        all_done.push_back({done[i], 1});
        all_ready.push_back({ready[i], 1});
    }
    b.immediate("barrier", 1, 1, all_done, all_ready);
    // A clock ticking 10,000 times per step, unrelated to the barrier, makes the solver's
    // batches (about 1,000 firings each) a tenth of a step long, as in a large training net.
    const uint32_t tick = b.place("tick", 1);
    b.timed("tick", net::Distribution{net::Det{1e-4}}, {{tick, 1}}, {{tick, 1}});
    std::vector<std::pair<uint32_t, double>> per_worker;
    for (uint32_t t : compute) per_worker.push_back({t, 1.0 / n});
    b.throughput("steps_per_s", per_worker);
    b.inverse_throughput("step_time", per_worker);
    b.tokens("busy0", ready[0]);
    const double truth[3] = {1 / e_max, e_max, 1.0 / e_max};
    const int runs = 200;
    int cover[3] = {0, 0, 0};
    for (int seed = 1; seed <= runs; ++seed) {
        const auto r = simulate_seed(b.net, seed, 0.005);
        for (int i = 0; i < 3; ++i) {
            const auto& m = r.measures[i];
            if (m.ci_low <= truth[i] && truth[i] <= m.ci_high)
                ++cover[i];
            else
                std::printf("seed %d misses %s: [%g, %g]\n", seed, m.name.c_str(), m.ci_low,
                            m.ci_high);
        }
        CHECK(r.precision_reached);
    }
    std::printf("coverage over %d runs: steps_per_s %d, step_time %d, busy0 %d\n", runs, cover[0],
                cover[1], cover[2]);
    for (int c : cover) CHECK(c >= 180);
}
