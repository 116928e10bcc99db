// Truth tests of transfers (docs/language.md §5.1) and of fine-grained all-reduce (buckets, overlap).
#include <doctest/doctest.h>

#include <string>

#include "training/builder.hpp"
#include "training/ddp_buckets.hpp"
#include "tests/support/training_support.hpp"

using namespace sgdnet;
using namespace sgdnet::compiler;
using namespace sgdnet::training_test;

namespace {

using training::Builder;
using training::DirMode;
using training::MessageSpec;
using training::Node;

net::Measure time_average_tokens(const net::PetriNet& net, const std::string& place) {
    net::Measure m;
    m.name = "busy." + place;
    m.kind = net::Measure::Kind::TimeAverage;
    auto p = net.find_place(place);
    REQUIRE(p.has_value());
    m.expr = net::MarkingExpr::tokens(p->value);
    return m;
}

/// One cycle: message m1 (bytes1, a→b) starts at 0, message m2 (bytes2, c→d) starts at `join_s`;
/// when both have arrived the net rests `rest_s` and starts over. Returns (throughput of the
/// cycle, fraction of time m1 transmits, fraction of time m2 transmits).
struct JoinResult {
    double cycles_per_s, m1_busy, m2_busy;
};
JoinResult join_midway(const std::vector<Node>& nodes, int a, int b, double bytes1, int c, int d,
                       double bytes2, double join_s, double rest_s, double share_ratio = 1) {
    net::PetriNet net;
    net.name = "join";
    Builder bld(net);
    bld.set_message_costs({0, 0, DirMode::Fair, share_ratio});
    for (const Node& n : nodes) bld.add_node(n);
    auto go = bld.place("go", 1);
    auto done1 = bld.place("done1");
    auto done2 = bld.place("done2");
    auto timer = bld.place("timer");
    MessageSpec m1{"m1", a, b, bytes1, DirMode::Fair, {}, {}, {{done1, 1}}, {}, {}};
    MessageSpec m2{"m2", c, d, bytes2, DirMode::Fair, {}, {}, {{done2, 1}}, {}, {}};
    auto start1 = bld.message(m1);
    auto start2 = bld.message(m2);
    start1.push_back({timer, 1});
    bld.immediate("start", {{go, 1}}, start1);
    bld.timed("join", {net::Det{join_s}}, {{timer, 1}}, start2);
    auto rest = bld.timed("rest", {net::Det{rest_s}}, {{done1, 1}, {done2, 1}}, {{go, 1}});
    net.measures.push_back(net::Measure{"cycles", net::Measure::Kind::Throughput, {{rest, 1}}, {}, "1/s", {}});
    net.measures.push_back(time_average_tokens(net, "m1.sending"));
    net.measures.push_back(time_average_tokens(net, "m2.sending"));
    REQUIRE(net::validate(net).empty());
    auto e = run_sim(net);
    return {e["cycles"].mean, e["busy.m1.sending"].mean, e["busy.m2.sending"].mean};
}

}  // namespace

// Processor sharing with carried-over bytes (§5.1 `fair`).
// Case 1, one shared direction pair: A and B at 10 MB/s. m1 (10 MB, A→B) runs alone at 10 MB/s
// for 0.5 s (5 MB left); m2 (4 MB, A→B) joins, both get 5 MB/s: m2 ends after 4/5 = 0.8 s at
// t = 1.3 s; m1 sent 4 MB meanwhile, its last 1 MB alone takes 0.1 s: t = 1.4 s. Rest 0.6 s →
// cycle 2.0 s; m1 transmits 1.4/2.0 = 0.7 of the time, m2 0.8/2.0 = 0.4.
// Case 2, unequal bandwidths: A 10 MB/s, B 15 MB/s, D 10 MB/s. m1 (10 MB, A→B) alone runs at
// min(10, 15) = 10 MB/s: 5 MB left at 0.5 s. m2 (4 MB, D→B) joins B's down direction (k_B = 2):
// m1 gets min(10/1, 15/2) = 7.5 MB/s, m2 min(10/1, 15/2) = 7.5 MB/s. m2 ends after 4/7.5 =
// 0.5333 s (t = 1.0333 s); m1 has 1 MB left, alone at 10 MB/s: t = 1.1333 s. Rest 0.6 s →
// cycle 1.7333 s; busy fractions 1.1333/1.7333 and 0.5333/1.7333.
TEST_CASE("fair sharing: a message joining midway, remaining bytes carried over") {
    const double mb = 1e6;
    {
        auto r = join_midway({{"A", 10 * mb, 0}, {"B", 10 * mb, 0}}, 0, 1, 10 * mb, 0, 1, 4 * mb,
                             0.5, 0.6);
        check_exact({"cycles", r.cycles_per_s, 0, 0, ""}, 1 / 2.0);
        check_exact({"m1", r.m1_busy, 0, 0, ""}, 1.4 / 2.0);
        check_exact({"m2", r.m2_busy, 0, 0, ""}, 0.8 / 2.0);
    }
    {
        auto r = join_midway({{"A", 10 * mb, 0}, {"B", 15 * mb, 0}, {"D", 10 * mb, 0}}, 0, 1,
                             10 * mb, 2, 1, 4 * mb, 0.5, 0.6);
        const double m2_time = 4.0 / 7.5, m1_end = 0.5 + m2_time + 0.1, cycle = m1_end + 0.6;
        check_exact({"cycles", r.cycles_per_s, 0, 0, ""}, 1 / cycle);
        check_exact({"m1", r.m1_busy, 0, 0, ""}, m1_end / cycle);
        check_exact({"m2", r.m2_busy, 0, 0, ""}, m2_time / cycle);
    }
}

// Unequal fair shares (§5.1 `share_ratio`), r = 1/2: S sends to R1 (rank 1) and then R0 (rank
// 0), all at 10 MB/s. m1 (10 MB, S→R1) alone runs at 10 MB/s, 5 MB left at 0.5 s; m2 (4 MB,
// S→R0) joins S's up direction, where m1 weighs r = 1/2 and m2 weighs 1: m2 gets 2/3 of it,
// 6.667 MB/s, and ends after 0.6 s (t = 1.1 s); m1 sent 2 MB meanwhile at 3.333 MB/s, and its
// last 3 MB alone take 0.3 s: t = 1.4 s. Rest 0.6 s → cycle 2.0 s; m1 transmits 1.4/2.0 of the
// time, m2 0.6/2.0 (0.8/2.0 with equal shares, above). The receivers' directions carry one
// message each and give it their whole bandwidth.
TEST_CASE("unequal fair shares: the peer of rank 0 weighs 1, of rank 1 r") {
    const double mb = 1e6;
    const std::vector<Node> nodes{{"S", 10 * mb, 0, {}, 0}, {"R0", 10 * mb, 0, {}, 0},
                                  {"R1", 10 * mb, 0, {}, 1}};
    auto r = join_midway(nodes, 0, 2, 10 * mb, 0, 1, 4 * mb, 0.5, 0.6, 0.5);
    check_exact({"cycles", r.cycles_per_s, 0, 0, ""}, 1 / 2.0);
    check_exact({"m1", r.m1_busy, 0, 0, ""}, 1.4 / 2.0);
    check_exact({"m2", r.m2_busy, 0, 0, ""}, 0.6 / 2.0);
    CHECK(training::share_weight(0.5, 0) == 1000);
    CHECK(training::share_weight(0.5, 2) == 250);
    CHECK(training::share_weight(0.853, 1) == 853);
    CHECK(training::share_weight(0.1, 4) == 1);  // 0.1, rounded; never below 1
    CHECK(training::share_weight(0.1, 9) == 1);
    CHECK(training::share_weight(1, 7) == 1);  // equal shares: the net of `fair` as before
}

// Fine all-reduce with one bucket (cap above the model size) and overlap = false is the coarse
// model with compute = Σ fwd + Σ bwd: both equal C + 2(N−1)(S/(N·B) + 2l) + U.
TEST_CASE("fine ring, one bucket, no overlap = coarse with the same total compute") {
    const int n = 4, nl = 6;
    const double f = 0.004, b = 0.008, bytes = 5e6, bw = 1.25e9, l = 15e-6, upd = 0.002;
    TrainingSpec fine = fine_ring(n, nl, f, b, bytes, bw, l, upd);
    fine.bucket_bytes = fine.first_bucket_bytes = 1e9;
    fine.overlap = false;
    TrainingSpec coarse = fine;
    coarse.granularity = Granularity::Coarse;
    const double s = nl * bytes;
    const double step = nl * (f + b) + 2.0 * (n - 1) * (s / (n * bw) + 2 * l) + upd;
    net::PetriNet fine_net = lower(fine);
    net::PetriNet coarse_net = lower(coarse);
    CHECK(fine_net.transitions.size() > coarse_net.transitions.size());
    CHECK(fine_net.find_transition("w[3].bwd.layer5").has_value());
    check_exact(run_sim(fine_net)["step_time"], step);
    check_exact(run_sim(coarse_net)["step_time"], step);
}

// Overlap, 4 layers, N = 2, zero latency, one bucket per layer (cap 1 B: every layer is larger,
// so each is a bucket on its own). fwd 10 ms and bwd 20 ms per layer, 37.5 MB per layer at
// 1.25 GB/s: a bucket's all-reduce is 2 rounds of 18.75 MB = 2 × 15 ms = 30 ms.
// Backward runs layer3, layer2, layer1, layer0 from t = 40 ms; bucket k (layer 3−k) is ready at
// 60, 80, 100, 120 ms. Buckets go one after the other: bucket 0 runs 60–90, bucket 1 90–120,
// bucket 2 120–150, bucket 3 150–180; update 5 ms → step 185 ms (no overlap: 40 + 80 + 4×30 + 5
// = 245 ms, checked too).
TEST_CASE("fine ring with overlap: 4-layer hand derivation") {
    TrainingSpec spec = fine_ring(2, 4, 0.010, 0.020, 37.5e6, 1.25e9, 0, 0.005);
    spec.bucket_bytes = spec.first_bucket_bytes = 1;
    CHECK(make_buckets(spec.workers[0].layers, 1, 1).size() == 4);
    check_exact(run_sim(lower(spec))["step_time"], 0.185);
    spec.overlap = false;
    check_exact(run_sim(lower(spec))["step_time"], 0.245);
}
