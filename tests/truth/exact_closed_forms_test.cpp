// Truth tests of the exact solver: queueing closed forms and exact MVA, to relative 1e-9 (the
// closed forms that hold for both solvers are in solvers_closed_forms_test.cpp).
#include <doctest/doctest.h>

#include <vector>

#include "solver/exact/ctmc_solve.hpp"
#include "solver/solve.hpp"
#include "tests/support/closed_forms.hpp"
#include "tests/support/mva.hpp"
#include "tests/support/test_nets.hpp"

using sgdnet::solver::SolveOptions;
using sgdnet::solver::solve_exact;
using sgdnet::testing::birth_death;
using sgdnet::testing::measure;
using sgdnet::testing::NetBuilder;

namespace {

constexpr double kRel = 1e-9;

SolveOptions exact_options() {
    SolveOptions o;
    o.solver = sgdnet::solver::SolverKind::Exact;
    return o;
}

}  // namespace

TEST_CASE("M/M/c/K with K servers, and processor sharing via speed") {
    // c = 3 servers, K = 8: birth λ, death min(n, c) μ (closed_forms.hpp: mmck). Also an
    // M/M/1/K whose single job class is served by an infinite-server transition slowed by
    // speed = 1/tokens(queue): total rate n · μ · (1/n) = μ, the same chain as M/M/1/K.
    const double lambda = 2.5, mu = 1.0;
    const int c = 3, k = 8;
    const auto mmck = sgdnet::testing::mmck(lambda, mu, c, k);
    NetBuilder b;
    const auto q = b.place("queue");
    b.timed("arrive", lambda, {}, {{q, 1}}, {{q, static_cast<uint32_t>(k)}});
    const auto serve = b.timed("serve", mu, {{q, 1}}, {}, {}, c);
    b.throughput("x", {{serve, 1}});
    b.tokens("L", q);
    const auto r = solve_exact(b.net, exact_options());
    CHECK(measure(r, "x") == doctest::Approx(mmck.throughput).epsilon(kRel));
    CHECK(measure(r, "L") == doctest::Approx(mmck.mean_number).epsilon(kRel));

    NetBuilder ps;
    const auto pq = ps.place("queue");
    ps.timed("arrive", lambda * 0.3, {}, {{pq, 1}}, {{pq, static_cast<uint32_t>(k)}});
    const auto pserve =
        ps.timed("serve", mu, {{pq, 1}}, {}, {}, sgdnet::net::kInfiniteServers);
    ps.net.transitions[pserve].speed = sgdnet::testing::one_over_tokens({pq});
    ps.throughput("x", {{pserve, 1}});
    const auto rp = solve_exact(ps.net, exact_options());
    const double x_ps = sgdnet::testing::mm1k(lambda * 0.3, mu, k).throughput;
    CHECK(measure(rp, "x") == doctest::Approx(x_ps).epsilon(kRel));
}

TEST_CASE("birth-death chain with level-dependent rates") {
    // One token moves along places l0..l7; up_i: l_i → l_{i+1} at rate birth[i], down_i back at
    // death[i]. π(l_i) from the product formula; X(up_i) = π_i birth[i].
    const std::vector<double> birth{3.0, 0.5, 7.0, 1.25, 2.0, 0.1, 9.0};
    const std::vector<double> death{1.0, 4.0, 0.3, 2.5, 6.0, 0.7, 1.5};
    const auto pi = birth_death(birth, death);
    NetBuilder b;
    b.birth_death_chain(birth, death);
    const auto r = solve_exact(b.net, exact_options());
    for (size_t i = 0; i <= birth.size(); ++i) {
        CHECK(measure(r, "p" + std::to_string(i)) == doctest::Approx(pi[i]).epsilon(kRel));
    }
    for (size_t i = 0; i < birth.size(); ++i) {
        CHECK(measure(r, "x" + std::to_string(i)) ==
              doctest::Approx(pi[i] * birth[i]).epsilon(kRel));
    }
}

TEST_CASE("a chain past the direct-solver limit is solved by Gauss-Seidel, vs MVA") {
    // Cyclic network of 3 single-server stations, N = 320: C(322, 2) = 51,681 states, above
    // kDirectMaxStates.
    const int n = 320;
    const std::vector<double> mu{1.0, 1.7, 2.3};
    const auto [x, q] = sgdnet::testing::cyclic_mva({1 / mu[0], 1 / mu[1], 1 / mu[2]}, n);
    NetBuilder b;
    const auto cyclic = b.cyclic_network(mu, static_cast<uint32_t>(n));
    b.throughput("x", {{cyclic.transitions[0], 1}});
    b.tokens("q1", cyclic.places[1]);
    const auto r = solve_exact(b.net, exact_options());
    REQUIRE(*r.stats.states == 51681);
    CHECK(*r.stats.states > sgdnet::solver::kDirectMaxStates);
    CHECK(*r.stats.method == "gauss-seidel");
    CHECK(*r.stats.iterations > 0);
    CHECK(measure(r, "x") == doctest::Approx(x).epsilon(kRel));
    CHECK(measure(r, "q1") == doctest::Approx(q[1]).epsilon(kRel));
}
