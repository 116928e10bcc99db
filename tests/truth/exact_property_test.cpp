// Property test: on random small bounded nets the simulator's 95% CIs cover the exact values.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "solver/solve.hpp"
#include "tests/support/test_nets.hpp"

using sgdnet::solver::SolveError;
using sgdnet::solver::SolveOptions;
using sgdnet::testing::NetBuilder;

namespace {

/// A random conservative (hence bounded) net from `seed`: a ring of exponential transitions
/// through 3–5 places holding 1–4 tokens, plus extra exponential and immediate transitions that
/// move one token between random places, some with inhibitor arcs, test arcs, two servers,
/// priorities and weights. Measures: throughput of a ring transition, tokens of a place,
/// throughput of an immediate, prob(place non-empty).
sgdnet::net::PetriNet random_net(uint64_t seed) {
    std::mt19937_64 g(seed);
    auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
    auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(g); };
    NetBuilder b;
    const int np = uni(3, 5);
    std::vector<uint32_t> p;
    for (int i = 0; i < np; ++i) p.push_back(b.place("p" + std::to_string(i)));
    const int tokens = uni(1, 4);
    for (int k = 0; k < tokens; ++k) b.net.places[p[uni(0, np - 1)]].initial += 1;
    std::vector<uint32_t> timed, imm;
    for (int i = 0; i < np; ++i) {
        timed.push_back(b.timed("ring" + std::to_string(i), real(0.5, 3.0), {{p[i], 1}},
                                {{p[(i + 1) % np], 1}}, {}, uni(0, 3) == 0 ? 2 : 1));
    }
    const int extra = uni(1, 3);
    for (int k = 0; k < extra; ++k) {
        const int a = uni(0, np - 1), c = uni(0, np - 1), h = uni(0, np - 1);
        NetBuilder::Arcs in{{p[a], 1}}, out{{p[c], 1}}, inhibit;
        if (uni(0, 1) == 1 && h != a) inhibit.push_back({p[h], static_cast<uint32_t>(uni(1, 2))});
        const int t = uni(0, np - 1);
        if (uni(0, 2) == 0 && t != a) {  // test arc
            in.push_back({p[t], 1});
            out.push_back({p[t], 1});
        }
        timed.push_back(b.timed("x" + std::to_string(k), real(0.2, 2.0), in, out, inhibit));
    }
    // Immediates move a token forward (a < c), so they cannot loop, and only while the target
    // holds fewer than 1–2 tokens (an inhibitor on the target): a "join if not busy" rule.
    const int nimm = uni(1, 3);
    for (int k = 0; k < nimm; ++k) {
        const int a = uni(0, np - 2), c = uni(a + 1, np - 1), h = uni(0, np - 1);
        NetBuilder::Arcs inhibit{{p[c], static_cast<uint32_t>(uni(1, 2))}};
        if (uni(0, 2) == 0 && h != a && h != c) inhibit.push_back({p[h], 1});
        imm.push_back(b.immediate("i" + std::to_string(k), uni(1, 2), real(0.5, 2.0),
                                  {{p[a], 1}}, {{p[c], 1}}, inhibit));
    }
    b.throughput("thr", {{timed[uni(0, np - 1)], 1}});
    b.tokens("tok", p[uni(0, np - 1)]);
    b.throughput("imm", {{imm[0], 1}});
    b.prob_at_least("busy", p[uni(0, np - 1)], 1);
    return b.net;
}

}  // namespace

// 100 nets: with 40, a perfectly calibrated 95% interval still falls under 90% coverage about 5%
// of the time (binomial tail), so the check would say more about the draw than the simulator.
constexpr int kNets = 100;

TEST_CASE("simulation CIs cover the exact values on >= 90% of 100 random nets") {
    // SGDNET_PROPERTY_SEED overrides the first seed (to measure coverage over other net sets).
    const char* env = std::getenv("SGDNET_PROPERTY_SEED");
    const uint64_t base_seed = env ? std::strtoull(env, nullptr, 10) : 20240601;
    int nets = 0, skipped = 0, covered_first = 0, pairs = 0, covered_pairs = 0;
    for (uint64_t seed = base_seed; nets < kNets; ++seed) {
        REQUIRE(seed < base_seed + 10 * kNets);
        const auto net = random_net(seed);
        SolveOptions o;
        o.solver = sgdnet::solver::SolverKind::Exact;
        sgdnet::solver::SolveResult exact;
        try {
            exact = sgdnet::solver::solve_exact(net, o);
        } catch (const SolveError& e) {
            // Deadlocks, several closed classes, vanishing loops: not a coverage question.
            std::printf("seed %llu skipped: %s\n", static_cast<unsigned long long>(seed), e.what());
            ++skipped;
            continue;
        }
        ++nets;
        o.solver = sgdnet::solver::SolverKind::Sim;
        o.seed = seed;
        o.precision = 0.02;
        o.max_time_s = 3;
        o.threads = 2;
        const auto sim = sgdnet::solver::simulate(net, o);
        std::string line;
        for (size_t m = 0; m < exact.measures.size(); ++m) {
            const double truth = exact.measures[m].mean;
            const auto& e = sim.measures[m];
            // A CI that rounds to the exact value counts as covering (e.g. both exactly 0).
            const double slack = 1e-12 * std::max(1.0, std::abs(truth));
            const bool cover = e.ci_low - slack <= truth && truth <= e.ci_high + slack;
            ++pairs;
            covered_pairs += cover;
            if (m == 0) covered_first += cover;
            char buf[200];
            std::snprintf(buf, sizeof buf, " %s=%.6g[%.6g,%.6g]%s", e.name.c_str(), truth, e.ci_low,
                          e.ci_high, cover ? "" : "MISS");
            line += buf;
        }
        std::printf("seed %llu states %llu:%s\n", static_cast<unsigned long long>(seed),
                    static_cast<unsigned long long>(*exact.stats.states), line.c_str());
    }
    std::printf("nets %d (skipped %d); first measure covered %d/%d; all measures %d/%d\n", nets,
                skipped, covered_first, nets, covered_pairs, pairs);
    CHECK(covered_first >= 0.9 * nets);
    CHECK(covered_pairs >= 0.9 * pairs);
}
