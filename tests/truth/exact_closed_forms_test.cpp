// Truth tests of the exact solver: queueing closed forms and exact MVA, to relative 1e-9.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "solver/exact/ctmc_solve.hpp"
#include "solver/solve.hpp"
#include "tests/support/test_nets.hpp"

using sgdnet::solver::SolveOptions;
using sgdnet::solver::solve_exact;
using sgdnet::testing::measure;
using sgdnet::testing::NetBuilder;

namespace {

constexpr double kRel = 1e-9;

SolveOptions exact_options() {
    SolveOptions o;
    o.solver = sgdnet::solver::SolverKind::Exact;
    return o;
}

/// Stationary distribution of a birth–death chain on 0..N from birth[i] (i → i+1) and
/// death[i] (i+1 → i): π_{i+1} = π_i · birth[i] / death[i], normalized.
std::vector<double> birth_death(const std::vector<double>& birth, const std::vector<double>& death) {
    std::vector<double> pi{1.0};
    for (size_t i = 0; i < birth.size(); ++i) pi.push_back(pi.back() * birth[i] / death[i]);
    double s = 0;
    for (double v : pi) s += v;
    for (double& v : pi) v /= s;
    return pi;
}

/// Exact Mean Value Analysis of a closed single-class product-form network (Reiser &
/// Lavenberg 1980). Station i has visit ratio v[i], service rate mu[i] (per server), and is a
/// single server queue (delay[i] == false) or an infinite-server delay (delay[i] == true):
///   R_i(n) = v_i/mu_i · (1 + Q_i(n-1))   (queue),   R_i(n) = v_i/mu_i   (delay)
///   X(n) = n / Σ_i R_i(n),   Q_i(n) = X(n) · R_i(n).
/// Returns X(N) (visits per second to a station with v = 1) and fills the queue lengths.
double mva(const std::vector<double>& v, const std::vector<double>& mu,
           const std::vector<bool>& delay, int customers, std::vector<double>& q) {
    const size_t m = v.size();
    q.assign(m, 0.0);
    double x = 0;
    std::vector<double> r(m);
    for (int n = 1; n <= customers; ++n) {
        double total = 0;
        for (size_t i = 0; i < m; ++i) {
            r[i] = v[i] / mu[i] * (delay[i] ? 1.0 : 1.0 + q[i]);
            total += r[i];
        }
        x = n / total;
        for (size_t i = 0; i < m; ++i) q[i] = x * r[i];
    }
    return x;
}

}  // namespace

TEST_CASE("M/M/1/K: closed form π_n = ρ^n (1-ρ)/(1-ρ^(K+1))") {
    // Arrivals λ = 0.8/s blocked by an inhibitor while the queue holds K = 10; service μ = 1/s.
    // Throughput = μ(1 - π_0), mean length Σ n π_n, blocking probability π_K.
    const double lambda = 0.8, mu = 1.0;
    const int k = 10;
    NetBuilder b;
    const auto q = b.place("queue");
    b.timed("arrive", lambda, {}, {{q, 1}}, {{q, static_cast<uint32_t>(k)}});
    const auto serve = b.timed("serve", mu, {{q, 1}}, {});
    b.throughput("x", {{serve, 1}});
    b.tokens("L", q);
    b.prob_at_least("full", q, k);
    const auto r = solve_exact(b.net, exact_options());
    const double rho = lambda / mu;
    std::vector<double> pi;
    double L = 0;
    for (int n = 0; n <= k; ++n) {
        pi.push_back(std::pow(rho, n) * (1 - rho) / (1 - std::pow(rho, k + 1)));
        L += n * pi.back();
    }
    CHECK(*r.stats.states == static_cast<uint64_t>(k + 1));
    CHECK(measure(r, "x") == doctest::Approx(mu * (1 - pi[0])).epsilon(kRel));
    CHECK(measure(r, "L") == doctest::Approx(L).epsilon(kRel));
    CHECK(measure(r, "full") == doctest::Approx(pi[k]).epsilon(kRel));
}

TEST_CASE("M/M/c/K with K servers, and processor sharing via speed") {
    // c = 3 servers, K = 8: birth λ, death min(n, c) μ. Also an M/M/1/K whose single job
    // class is served by an infinite-server transition slowed by speed = 1/tokens(queue):
    // total rate n · μ · (1/n) = μ, the same chain as M/M/1/K.
    const double lambda = 2.5, mu = 1.0;
    const int c = 3, k = 8;
    std::vector<double> birth, death;
    for (int n = 0; n < k; ++n) {
        birth.push_back(lambda);
        death.push_back(std::min(n + 1, c) * mu);
    }
    const auto pi = birth_death(birth, death);
    double L = 0, x = 0;
    for (int n = 0; n <= k; ++n) {
        L += n * pi[n];
        x += std::min(n, c) * mu * pi[n];
    }
    NetBuilder b;
    const auto q = b.place("queue");
    b.timed("arrive", lambda, {}, {{q, 1}}, {{q, static_cast<uint32_t>(k)}});
    const auto serve = b.timed("serve", mu, {{q, 1}}, {}, {}, c);
    b.throughput("x", {{serve, 1}});
    b.tokens("L", q);
    const auto r = solve_exact(b.net, exact_options());
    CHECK(measure(r, "x") == doctest::Approx(x).epsilon(kRel));
    CHECK(measure(r, "L") == doctest::Approx(L).epsilon(kRel));

    NetBuilder ps;
    const auto pq = ps.place("queue");
    ps.timed("arrive", lambda * 0.3, {}, {{pq, 1}}, {{pq, static_cast<uint32_t>(k)}});
    const auto pserve =
        ps.timed("serve", mu, {{pq, 1}}, {}, {}, sgdnet::net::kInfiniteServers);
    ps.net.transitions[pserve].speed = sgdnet::testing::one_over_tokens({pq});
    ps.throughput("x", {{pserve, 1}});
    const auto rp = solve_exact(ps.net, exact_options());
    const double rho = lambda * 0.3 / mu;
    const double p0 = (1 - rho) / (1 - std::pow(rho, k + 1));
    CHECK(measure(rp, "x") == doctest::Approx(mu * (1 - p0)).epsilon(kRel));
}

TEST_CASE("machine repairman: N machines, R repairmen") {
    // N = 7 machines fail at rate λ = 0.2 each (infinite-server transition), R = 2 repairmen
    // repair at rate μ = 1 each. With k broken: birth (N-k)λ, death min(k, R)μ. Throughput of
    // repairs Σ min(k,R) μ π_k, mean broken Σ k π_k (Kleinrock, Queueing Systems I, §3.9).
    const int n = 7, rep = 2;
    const double lambda = 0.2, mu = 1.0;
    std::vector<double> birth, death;
    for (int k = 0; k < n; ++k) {
        birth.push_back((n - k) * lambda);
        death.push_back(std::min(k + 1, rep) * mu);
    }
    const auto pi = birth_death(birth, death);
    double broken = 0, x = 0;
    for (int k = 0; k <= n; ++k) {
        broken += k * pi[k];
        x += std::min(k, rep) * mu * pi[k];
    }
    NetBuilder b;
    const auto up = b.place("up", n), down = b.place("down");
    b.timed("fail", lambda, {{up, 1}}, {{down, 1}}, {}, sgdnet::net::kInfiniteServers);
    const auto repair = b.timed("repair", mu, {{down, 1}}, {{up, 1}}, {}, rep);
    b.throughput("x", {{repair, 1}});
    b.tokens("broken", down);
    b.throughput("cycle", {{repair, 1}}, true);
    const auto r = solve_exact(b.net, exact_options());
    CHECK(*r.stats.states == static_cast<uint64_t>(n + 1));
    CHECK(measure(r, "x") == doctest::Approx(x).epsilon(kRel));
    CHECK(measure(r, "broken") == doctest::Approx(broken).epsilon(kRel));
    CHECK(measure(r, "cycle") == doctest::Approx(1 / x).epsilon(kRel));
}

TEST_CASE("birth-death chain with level-dependent rates") {
    // One token moves along places l0..l7; up_i: l_i → l_{i+1} at rate birth[i], down_i back at
    // death[i]. π(l_i) from the product formula; X(up_i) = π_i birth[i].
    const std::vector<double> birth{3.0, 0.5, 7.0, 1.25, 2.0, 0.1, 9.0};
    const std::vector<double> death{1.0, 4.0, 0.3, 2.5, 6.0, 0.7, 1.5};
    const auto pi = birth_death(birth, death);
    NetBuilder b;
    std::vector<uint32_t> lv;
    for (size_t i = 0; i <= birth.size(); ++i) {
        lv.push_back(b.place("l" + std::to_string(i), i == 0 ? 1 : 0));
    }
    std::vector<uint32_t> up;
    for (size_t i = 0; i < birth.size(); ++i) {
        up.push_back(b.timed("up" + std::to_string(i), birth[i], {{lv[i], 1}}, {{lv[i + 1], 1}}));
        b.timed("down" + std::to_string(i), death[i], {{lv[i + 1], 1}}, {{lv[i], 1}});
    }
    for (size_t i = 0; i < lv.size(); ++i) b.tokens("p" + std::to_string(i), lv[i]);
    for (size_t i = 0; i < up.size(); ++i) b.throughput("x" + std::to_string(i), {{up[i], 1}});
    const auto r = solve_exact(b.net, exact_options());
    for (size_t i = 0; i < lv.size(); ++i) {
        CHECK(measure(r, "p" + std::to_string(i)) == doctest::Approx(pi[i]).epsilon(kRel));
    }
    for (size_t i = 0; i < up.size(); ++i) {
        CHECK(measure(r, "x" + std::to_string(i)) ==
              doctest::Approx(pi[i] * birth[i]).epsilon(kRel));
    }
}

TEST_CASE("closed product-form network with probabilistic routing and a delay station, vs MVA") {
    // N = 12 customers. Station 0 (queue, μ=2) routes by immediates to station 1 (queue, μ=1.5)
    // with weight 0.3 or to station 2 (queue, μ=3) with weight 0.7; both return to station 3,
    // an infinite-server think station (μ=0.5 per customer), which returns to station 0.
    // Visit ratios relative to station 0: v = (1, 0.3, 0.7, 1).
    const int n = 12;
    const std::vector<double> mu{2.0, 1.5, 3.0, 0.5};
    const std::vector<double> v{1.0, 0.3, 0.7, 1.0};
    const std::vector<bool> delay{false, false, false, true};
    std::vector<double> q;
    const double x = mva(v, mu, delay, n, q);

    NetBuilder b;
    const auto s0 = b.place("s0"), s1 = b.place("s1"), s2 = b.place("s2"), s3 = b.place("s3", n);
    const auto route = b.place("route");
    const auto t0 = b.timed("serve0", mu[0], {{s0, 1}}, {{route, 1}});
    const auto r1 = b.immediate("to1", 1, 0.3, {{route, 1}}, {{s1, 1}});
    b.immediate("to2", 1, 0.7, {{route, 1}}, {{s2, 1}});
    b.timed("serve1", mu[1], {{s1, 1}}, {{s3, 1}});
    b.timed("serve2", mu[2], {{s2, 1}}, {{s3, 1}});
    b.timed("think", mu[3], {{s3, 1}}, {{s0, 1}}, {}, sgdnet::net::kInfiniteServers);
    b.throughput("x0", {{t0, 1}});
    b.throughput("x1", {{r1, 1}});
    for (uint32_t i = 0; i < 4; ++i) b.tokens("q" + std::to_string(i), std::vector{s0, s1, s2, s3}[i]);
    const auto r = solve_exact(b.net, exact_options());
    CHECK(measure(r, "x0") == doctest::Approx(x).epsilon(kRel));
    CHECK(measure(r, "x1") == doctest::Approx(0.3 * x).epsilon(kRel));
    for (int i = 0; i < 4; ++i) {
        CHECK(measure(r, "q" + std::to_string(i)) == doctest::Approx(q[i]).epsilon(kRel));
    }
    // Tangible states: placements of 12 customers on 4 stations: C(15, 3) = 455.
    CHECK(*r.stats.states == 455);
}

TEST_CASE("a chain past the direct-solver limit is solved by Gauss-Seidel, vs MVA") {
    // Cyclic network of 3 single-server stations, N = 320: C(322, 2) = 51,681 states, above
    // kDirectMaxStates.
    const int n = 320;
    const std::vector<double> mu{1.0, 1.7, 2.3};
    std::vector<double> q;
    const double x = mva({1, 1, 1}, mu, {false, false, false}, n, q);
    NetBuilder b;
    const auto s0 = b.place("s0", n), s1 = b.place("s1"), s2 = b.place("s2");
    const auto t0 = b.timed("t0", mu[0], {{s0, 1}}, {{s1, 1}});
    b.timed("t1", mu[1], {{s1, 1}}, {{s2, 1}});
    b.timed("t2", mu[2], {{s2, 1}}, {{s0, 1}});
    b.throughput("x", {{t0, 1}});
    b.tokens("q1", s1);
    const auto r = solve_exact(b.net, exact_options());
    REQUIRE(*r.stats.states == 51681);
    CHECK(*r.stats.states > sgdnet::solver::kDirectMaxStates);
    CHECK(*r.stats.method == "gauss-seidel");
    CHECK(*r.stats.iterations > 0);
    CHECK(measure(r, "x") == doctest::Approx(x).epsilon(kRel));
    CHECK(measure(r, "q1") == doctest::Approx(q[1]).epsilon(kRel));
}
