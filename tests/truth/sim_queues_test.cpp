// Simulator vs closed forms of classic queues: M/M/1, M/M/1/K, M/D/1, machine repairman, MVA.
//
// The truth tests run at 99.9% confidence so that the dozens of coverage assertions of the
// tier fail by chance with negligible probability; the 95% calibration itself is checked by
// sim_coverage_test.cpp. Every test asserts the truth inside the CI and a bound on its width.
#include <doctest/doctest.h>

#include <cmath>

#include "solver/solve.hpp"
#include "tests/support/sim_check.hpp"
#include "tests/support/test_nets.hpp"

using namespace sgdnet;
using namespace sgdnet::testing;

namespace {

solver::SolveOptions truth_options(double precision, uint64_t seed = 7) {
    solver::SolveOptions o;
    o.precision = precision;
    o.confidence = 0.999;
    o.seed = seed;
    o.max_time_s = 60;
    return o;
}

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
    const auto r = solver::simulate(b.net, truth_options(0.01));
    CHECK(r.precision_reached);
    check_covers(r.measures[0], 1.0, 0.01);
    check_covers(r.measures[1], 1.0, 0.01);
    check_covers(r.measures[2], 0.5, 0.01);
    CHECK(r.stats.replications >= 2);
    CHECK(r.stats.events > 0);
}

// M/M/1/K with the capacity enforced by an inhibitor arc (arrive is disabled while q ≥ K),
// λ = 1, μ = 1.25, K = 5. Birth–death chain: p_n = ρ^n (1−ρ)/(1−ρ^{K+1}), n = 0..K;
// throughput = λ (1 − p_K); L = Σ n p_n; P(full) = p_K.
TEST_CASE("sim truth: M/M/1/K via an inhibitor arc") {
    const double lambda = 1, mu = 1.25, rho = lambda / mu;
    const int K = 5;
    double norm = 0, L = 0;
    for (int n = 0; n <= K; ++n) norm += std::pow(rho, n);
    for (int n = 0; n <= K; ++n) L += n * std::pow(rho, n) / norm;
    const double pK = std::pow(rho, K) / norm;

    NetBuilder b("mm1k");
    const uint32_t q = b.place("q");
    b.timed("arrive", exp_rate(lambda), {}, {{q, 1}}, {{q, K}});
    const uint32_t serve = b.timed("serve", exp_rate(mu), {{q, 1}}, {});
    b.throughput("X", serve);
    b.tokens("L", q);
    using C = net::ExprOp::Code;
    b.average("full", {{op(C::Tokens, q), op(C::Const, 0, K), op(C::Ge)}}, "");
    const auto r = solver::simulate(b.net, truth_options(0.005));
    check_covers(r.measures[0], lambda * (1 - pK), 0.005);
    check_covers(r.measures[1], L, 0.02);
    check_covers(r.measures[2], pK, 0.05);
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
    const auto r = solver::simulate(b.net, truth_options(0.01));
    check_covers(r.measures[0], 0.75, 0.01);
    check_covers(r.measures[1], 0.5, 0.01);
}

// Machine repairman: N = 5 machines, each fails at rate λ = 0.2 while up (an infinite-server
// transition: the failure rate is λ·#up), one repairman with rate μ = 1. With n machines down,
// p_n ∝ N!/(N−n)! (λ/μ)^n; repair throughput = μ (1 − p_0); mean number down = Σ n p_n.
TEST_CASE("sim truth: machine repairman with an infinite-server transition") {
    const int N = 5;
    const double lambda = 0.2, mu = 1;
    std::vector<double> p(N + 1);
    double norm = 0, fact = 1;
    for (int n = 0; n <= N; ++n) {
        if (n > 0) fact *= N - n + 1;
        p[n] = fact * std::pow(lambda / mu, n);
        norm += p[n];
    }
    double down = 0;
    for (int n = 0; n <= N; ++n) down += n * (p[n] /= norm);

    NetBuilder b("repairman");
    const uint32_t up = b.place("up", N), dn = b.place("down");
    b.timed("fail", exp_rate(lambda), {{up, 1}}, {{dn, 1}}, {}, net::kInfiniteServers);
    const uint32_t repair = b.timed("repair", exp_rate(mu), {{dn, 1}}, {{up, 1}});
    b.throughput("X", repair);
    b.tokens("down", dn);
    const auto r = solver::simulate(b.net, truth_options(0.005));
    check_covers(r.measures[0], mu * (1 - p[0]), 0.005);
    check_covers(r.measures[1], down, 0.02);
}

// Closed cyclic network of three single-server exponential stations with mean service times
// 1, 0.5, 0.8 s and 4 customers, against exact mean value analysis (tests/test_nets.hpp: mva).
TEST_CASE("sim truth: closed cyclic network vs exact MVA") {
    const std::vector<double> s = {1.0, 0.5, 0.8};
    const int N = 4;
    const MvaResult exact = mva(s, N);

    NetBuilder b("cyclic");
    std::vector<uint32_t> q;
    for (std::size_t i = 0; i < s.size(); ++i)
        q.push_back(b.place("q" + std::to_string(i), i == 0 ? N : 0));
    std::vector<uint32_t> st;
    for (std::size_t i = 0; i < s.size(); ++i)
        st.push_back(b.timed("s" + std::to_string(i), exp_rate(1 / s[i]), {{q[i], 1}},
                             {{q[(i + 1) % s.size()], 1}}));
    b.throughput("X", st[0]);
    for (std::size_t i = 0; i < s.size(); ++i) b.tokens("Q" + std::to_string(i), q[i]);
    const auto r = solver::simulate(b.net, truth_options(0.005));
    check_covers(r.measures[0], exact.throughput, 0.005);
    for (std::size_t i = 0; i < s.size(); ++i) check_covers(r.measures[1 + i], exact.queue[i], 0.03);
}

// M/M/c with c = 3 servers (one transition, servers = 3), λ = 2, μ = 1, a = λ/μ = 2,
// ρ = a/c = 2/3. Erlang C: P(wait) = (a^c/c!)/(1−ρ) / (Σ_{k<c} a^k/k! + (a^c/c!)/(1−ρ)) = 4/9;
// Lq = P(wait) ρ/(1−ρ) = 8/9; L = Lq + a = 26/9; throughput = λ.
TEST_CASE("sim truth: M/M/3 (multiple servers) vs Erlang C") {
    const double lambda = 2, mu = 1, a = lambda / mu;
    const int c = 3;
    const double rho = a / c;
    double head = 0, fact = 1;
    for (int k = 0; k < c; ++k) {
        if (k > 0) fact *= k;
        head += std::pow(a, k) / fact;
    }
    const double tail = std::pow(a, c) / (fact * c) / (1 - rho);
    const double L = tail / (head + tail) * rho / (1 - rho) + a;

    NetBuilder b("mm3");
    const uint32_t q = b.place("q");
    b.timed("arrive", exp_rate(lambda), {}, {{q, 1}});
    const uint32_t serve = b.timed("serve", exp_rate(mu), {{q, 1}}, {}, {}, c);
    b.tokens("L", q);
    b.throughput("X", serve);
    const auto r = solver::simulate(b.net, truth_options(0.01));
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
    const auto r = solver::simulate(b.net, truth_options(0.01));
    check_covers(r.measures[0], 1.0, 0.01);
}
