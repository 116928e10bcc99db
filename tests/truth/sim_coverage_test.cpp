// Calibration of the simulator's confidence intervals: 200 independent runs at 95% must cover.
#include <doctest/doctest.h>

#include <cstdio>

#include "solver/solve.hpp"
#include "tests/test_nets.hpp"

using namespace sgdnet;
using namespace sgdnet::testing;

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
        solver::SolveOptions o;
        o.precision = 0.01;
        o.confidence = 0.95;
        o.seed = static_cast<uint64_t>(seed);
        const auto r = solver::simulate(b.net, o);
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
