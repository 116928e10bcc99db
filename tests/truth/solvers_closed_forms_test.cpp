// Both solvers vs the same closed forms: M/M/1/K, machine repairman, closed networks vs MVA.
//
// Every case runs on the simulator and on the exact solver (TEST_CASE_TEMPLATE over the tags
// Sim and Exact). The exact solver must match to relative 1e-9; the simulator's 99.9% interval
// (truth_options, sim_check.hpp) must cover the truth and be at most the case's relative
// half-width wide.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "solver/solve.hpp"
#include "tests/support/closed_forms.hpp"
#include "tests/support/mva.hpp"
#include "tests/support/sim_check.hpp"
#include "tests/support/test_nets.hpp"

using namespace sgdnet;
using namespace sgdnet::testing;

namespace {

/// The simulator at 99.9% confidence, seed 7, to `precision` on the first measure.
struct Sim {
    static solver::SolveResult solve(const net::PetriNet& n, double precision) {
        return solver::simulate(n, truth_options(precision, 7));
    }
    /// The interval covers `truth` and its half-width is at most rel_half_width · |truth|.
    static void check(const solver::SolveResult& r, const std::string& name, double truth,
                      double rel_half_width) {
        check_covers(estimate(r, name), truth, rel_half_width);
    }
    /// The simulator does not enumerate states.
    static void check_states(const solver::SolveResult&, std::uint64_t) {}
};

/// The exact CTMC solver, to relative 1e-9.
struct Exact {
    static solver::SolveResult solve(const net::PetriNet& n, double /*precision*/) {
        solver::SolveOptions o;
        o.solver = solver::SolverKind::Exact;
        return solver::solve_exact(n, o);
    }
    static void check(const solver::SolveResult& r, const std::string& name, double truth,
                      double /*rel_half_width*/) {
        CHECK(estimate(r, name).mean == doctest::Approx(truth).epsilon(1e-9));
    }
    static void check_states(const solver::SolveResult& r, std::uint64_t states) {
        CHECK(*r.stats.states == states);
    }
};

}  // namespace

// M/M/1/K with the capacity enforced by an inhibitor arc (arrive is disabled while q ≥ K).
// Throughput = μ(1 − π_0) = λ(1 − π_K), mean length Σ n π_n, blocking probability π_K
// (closed_forms.hpp: mm1k). Tangible states: 0..K.
TEST_CASE_TEMPLATE("closed form: M/M/1/K via an inhibitor arc", Solver, Sim, Exact) {
    struct Case {
        double lambda, mu;
        int k;
        double hw_x, hw_l, hw_full;  // the simulator's relative half-widths
    };
    // π_K is 0.089 at K = 5 but 0.023 at K = 10: a rarer event, a wider interval (≈ 6.3% at
    // the run length that gives X to 0.5%).
    for (const Case& c :
         {Case{1.0, 1.25, 5, 0.005, 0.02, 0.05}, Case{0.8, 1.0, 10, 0.005, 0.02, 0.07}}) {
        CAPTURE(c.k);
        const QueueMeasures truth = mm1k(c.lambda, c.mu, c.k);
        NetBuilder b("mm1k");
        const uint32_t q = b.place("q");
        b.timed("arrive", c.lambda, {}, {{q, 1}}, {{q, static_cast<uint32_t>(c.k)}});
        const uint32_t serve = b.timed("serve", c.mu, {{q, 1}}, {});
        b.throughput("X", serve);
        b.tokens("L", q);
        b.prob_at_least("full", q, c.k);
        const auto r = Solver::solve(b.net, 0.005);
        Solver::check_states(r, static_cast<std::uint64_t>(c.k + 1));
        Solver::check(r, "X", truth.throughput, c.hw_x);
        Solver::check(r, "L", truth.mean_number, c.hw_l);
        Solver::check(r, "full", truth.p_full, c.hw_full);
    }
}

// Machine repairman: N machines, each fails at rate λ while up (an infinite-server transition:
// the failure rate is λ·#up), R repairmen of rate μ (closed_forms.hpp: machine_repairman).
// Repair throughput, mean number down, and the mean time between repairs 1/throughput.
TEST_CASE_TEMPLATE("closed form: machine repairman with an infinite-server transition", Solver, Sim,
                   Exact) {
    struct Case {
        int machines;
        double lambda;
        int repairmen;
        double mu;
        double hw_x, hw_down, hw_cycle;  // the simulator's relative half-widths
    };
    for (const Case& c :
         {Case{5, 0.2, 1, 1.0, 0.005, 0.02, 0.005}, Case{7, 0.2, 2, 1.0, 0.005, 0.02, 0.005}}) {
        CAPTURE(c.machines);
        const QueueMeasures truth = machine_repairman(c.machines, c.lambda, c.repairmen, c.mu);
        NetBuilder b("repairman");
        const uint32_t up = b.place("up", static_cast<uint32_t>(c.machines)), dn = b.place("down");
        b.timed("fail", c.lambda, {{up, 1}}, {{dn, 1}}, {}, net::kInfiniteServers);
        const uint32_t repair =
            b.timed("repair", c.mu, {{dn, 1}}, {{up, 1}}, {}, static_cast<uint32_t>(c.repairmen));
        b.throughput("X", repair);
        b.tokens("down", dn);
        b.inverse_throughput("cycle", {{repair, 1.0}});
        const auto r = Solver::solve(b.net, 0.005);
        Solver::check_states(r, static_cast<std::uint64_t>(c.machines + 1));
        Solver::check(r, "X", truth.throughput, c.hw_x);
        Solver::check(r, "down", truth.mean_number, c.hw_down);
        Solver::check(r, "cycle", 1 / truth.throughput, c.hw_cycle);
    }
}

// Closed cyclic network of three single-server exponential stations with mean service times
// 1, 0.5, 0.8 s and 4 customers, against exact mean value analysis (mva.hpp). Tangible
// states: placements of 4 customers on 3 stations, C(6, 2) = 15.
TEST_CASE_TEMPLATE("closed form: closed cyclic network vs exact MVA", Solver, Sim, Exact) {
    const std::vector<double> s = {1.0, 0.5, 0.8};
    const int n = 4;
    const MvaResult exact = cyclic_mva(s, n);
    NetBuilder b("cyclic");
    const auto net = b.cyclic_network({1 / s[0], 1 / s[1], 1 / s[2]}, n);
    b.throughput("X", net.transitions[0]);
    for (std::size_t i = 0; i < s.size(); ++i) b.tokens("Q" + std::to_string(i), net.places[i]);
    const auto r = Solver::solve(b.net, 0.005);
    Solver::check_states(r, 15);
    Solver::check(r, "X", exact.throughput, 0.005);
    for (std::size_t i = 0; i < s.size(); ++i)
        Solver::check(r, "Q" + std::to_string(i), exact.queue[i], 0.03);
}

// N = 12 customers. Station 0 (queue, μ=2) routes by immediates to station 1 (queue, μ=1.5)
// with weight 0.3 or to station 2 (queue, μ=3) with weight 0.7; both return to station 3,
// an infinite-server think station (μ=0.5 per customer), which returns to station 0.
// Visit ratios relative to station 0: v = (1, 0.3, 0.7, 1). Tangible states: placements of
// 12 customers on 4 stations, C(15, 3) = 455.
TEST_CASE_TEMPLATE("closed form: product-form network with routing and a delay station vs MVA",
                   Solver, Sim, Exact) {
    const int n = 12;
    const std::vector<double> mu{2.0, 1.5, 3.0, 0.5};
    const std::vector<double> v{1.0, 0.3, 0.7, 1.0};
    std::vector<MvaStation> stations;
    for (std::size_t i = 0; i < v.size(); ++i) {
        const auto kind = i == 3 ? MvaStation::Kind::Delay : MvaStation::Kind::Queue;
        stations.push_back({v[i] / mu[i], kind});
    }
    const MvaResult exact = mva(stations, n);

    NetBuilder b("routing");
    const uint32_t s0 = b.place("s0"), s1 = b.place("s1"), s2 = b.place("s2");
    const uint32_t s3 = b.place("s3", n), route = b.place("route");
    const uint32_t t0 = b.timed("serve0", mu[0], {{s0, 1}}, {{route, 1}});
    const uint32_t r1 = b.immediate("to1", 1, 0.3, {{route, 1}}, {{s1, 1}});
    b.immediate("to2", 1, 0.7, {{route, 1}}, {{s2, 1}});
    b.timed("serve1", mu[1], {{s1, 1}}, {{s3, 1}});
    b.timed("serve2", mu[2], {{s2, 1}}, {{s3, 1}});
    b.timed("think", mu[3], {{s3, 1}}, {{s0, 1}}, {}, net::kInfiniteServers);
    b.throughput("x0", t0);
    b.throughput("x1", r1);
    const std::vector<uint32_t> places{s0, s1, s2, s3};
    for (std::size_t i = 0; i < places.size(); ++i) b.tokens("q" + std::to_string(i), places[i]);
    const auto r = Solver::solve(b.net, 0.005);
    Solver::check_states(r, 455);
    Solver::check(r, "x0", exact.throughput, 0.005);
    Solver::check(r, "x1", 0.3 * exact.throughput, 0.01);
    for (std::size_t i = 0; i < places.size(); ++i)
        Solver::check(r, "q" + std::to_string(i), exact.queue[i], 0.03);
}
