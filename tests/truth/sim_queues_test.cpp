// Simulator vs closed forms of open queues: M/M/1, M/D/1, M/M/3, M/G/1 (the closed forms that
// hold for both solvers are in solvers_closed_forms_test.cpp).
//
// The truth tests run at 99.9% confidence (truth_options, sim_check.hpp). Every test asserts the
// truth inside the CI and a bound on its width.
#include <doctest/doctest.h>

#include "solver/solve.hpp"
#include "tests/support/closed_forms.hpp"
#include "tests/support/sim_check.hpp"
#include "tests/support/test_nets.hpp"

using namespace sgdnet;
using namespace sgdnet::testing;

namespace {

// The seed of every run of this file (truth_options: sim_check.hpp).
constexpr uint64_t kSeed = 7;

}  // namespace

// M/M/1, λ = 1, μ = 2, ρ = 1/2 (Kleinrock, Queueing Systems I, §3.2):
//   mean number in system L = ρ/(1−ρ) = 1, P(busy) = ρ = 0.5, throughput = λ = 1.
TEST_CASE("sim truth: M/M/1") {
    NetBuilder b("mm1");
    const uint32_t q = b.place("q");
    b.timed("arrive", exp_rate(1), {}, {{q, 1}});
    const uint32_t serve = b.timed("serve", exp_rate(2), {{q, 1}}, {});
    b.tokens("L", q);
    b.throughput("X", serve);
    b.average("busy", positive(q), "");
    const auto r = solver::simulate(b.net, truth_options(0.01, kSeed));
    CHECK(r.precision_reached);
    check_covers(r.measures[0], 1.0, 0.01);
    check_covers(r.measures[1], 1.0, 0.01);
    check_covers(r.measures[2], 0.5, 0.01);
    CHECK(r.stats.replications >= 2);
    CHECK(r.stats.events > 0);
}

// M/D/1, λ = 1, D = 0.5 s, ρ = 0.5. Pollaczek–Khinchine: Lq = ρ²/(2(1−ρ)) = 0.25, so the mean
// number in system L = ρ + Lq = 0.75; P(busy) = ρ.
TEST_CASE("sim truth: M/D/1 (Pollaczek-Khinchine)") {
    NetBuilder b("md1");
    const uint32_t q = b.place("q");
    b.timed("arrive", exp_rate(1), {}, {{q, 1}});
    b.timed("serve", det(0.5), {{q, 1}}, {});
    b.tokens("L", q);
    b.average("busy", positive(q), "");
    const auto r = solver::simulate(b.net, truth_options(0.01, kSeed));
    check_covers(r.measures[0], 0.75, 0.01);
    check_covers(r.measures[1], 0.5, 0.01);
}

// M/M/c with c = 3 servers (one transition, servers = 3), λ = 2, μ = 1, a = λ/μ = 2,
// ρ = a/c = 2/3. Erlang C: P(wait) = (a^c/c!)/(1−ρ) / (Σ_{k<c} a^k/k! + (a^c/c!)/(1−ρ)) = 4/9;
// Lq = P(wait) ρ/(1−ρ) = 8/9; L = Lq + a = 26/9 (closed_forms.hpp: mmc_mean_number);
// throughput = λ.
TEST_CASE("sim truth: M/M/3 (multiple servers) vs Erlang C") {
    const double lambda = 2, mu = 1;
    const int c = 3;
    const double L = mmc_mean_number(lambda, mu, c);

    NetBuilder b("mm3");
    const uint32_t q = b.place("q");
    b.timed("arrive", exp_rate(lambda), {}, {{q, 1}});
    const uint32_t serve = b.timed("serve", exp_rate(mu), {{q, 1}}, {}, {}, c);
    b.tokens("L", q);
    b.throughput("X", serve);
    const auto r = solver::simulate(b.net, truth_options(0.01, kSeed));
    CHECK(L == doctest::Approx(26.0 / 9));
    check_covers(r.measures[0], L, 0.01);
    check_covers(r.measures[1], lambda, 0.01);
}

// M/G/1 with lognormal service (mean 0.5 s, cv 1), λ = 1, ρ = 0.5. Pollaczek–Khinchine:
// L = ρ + ρ² (1 + cv²) / (2 (1 − ρ)) = 0.5 + 0.25 · 2 / 1 = 1.0.
TEST_CASE("sim truth: M/G/1 with lognormal service (Pollaczek-Khinchine)") {
    NetBuilder b("mg1");
    const uint32_t q = b.place("q");
    b.timed("arrive", exp_rate(1), {}, {{q, 1}});
    b.timed("serve", {net::Lognormal{0.5, 1.0}}, {{q, 1}}, {});
    b.tokens("L", q);
    const auto r = solver::simulate(b.net, truth_options(0.01, kSeed));
    check_covers(r.measures[0], 1.0, 0.01);
}
