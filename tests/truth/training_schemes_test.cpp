// Truth tests of the coarse coordination schemes (docs/language.md §5.2) against closed forms.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "tests/support/training_support.hpp"

using namespace sgdnet;
using namespace sgdnet::compiler;
using namespace sgdnet::training_test;

namespace {
const net::Distribution kDet120ms{net::Det{0.120}};
}

// Ring all-reduce, coarse, deterministic (§5.2): each round sends S/N bytes to the next worker,
// transmission S/(N·B) alone on both directions (every ring direction carries one message at a
// time), then propagation latency_a + latency_b = 2l; round r of worker j waits for round r−1 of
// worker j−1, so with all workers in step the 2(N−1) rounds take 2(N−1)(S/(N·B) + 2l) and
//   step_time = compute + 2(N−1)(S/(N·B) + 2l) + update.
TEST_CASE("ring all-reduce coarse deterministic: step = C + 2(N-1)(S/(N B) + 2l) + U") {
    const double c = 0.120, upd = 0.004, s = 44.7e6, bw = 1.25e9, l = 20e-6;
    for (int n : {2, 8, 64}) {
        CAPTURE(n);
        TrainingSpec spec = homogeneous(n, {net::Det{c}}, bw, l, {net::Det{upd}});
        spec.sync = SyncKind::AllreduceRing;
        spec.model_bytes = s;
        auto e = run_sim(lower(spec));
        const double step = c + 2.0 * (n - 1) * (s / (n * bw) + 2 * l) + upd;
        check_exact(e["step_time"], step);
        check_exact(e["steps_per_s"], 1 / step);
        check_exact(e["samples_per_s"], n / step);  // batch 1 per worker
        // Each NIC direction transmits 2(N−1) chunks of S/(N·B) per step.
        check_exact(e["util.w[0].up"], 2.0 * (n - 1) * s / (n * bw) / step);
        check_exact(e["util.w[0]"], (c + upd) / step);
    }
}

// ps_sync, coarse, deterministic, one server, every bandwidth B, S = model_bytes,
// L = latency_worker + latency_server, C compute, U server update.
//
// fair: after the update the server sends N parameter messages at once on its up direction;
// each gets B/N, all finish together at N·S/B, arrive after L. All workers compute C together,
// then push together: the server's down direction is shared by N, again N·S/B, then L, then U.
//   step = C + U + 2N·S/B + 2L.
// fifo: the N parameter messages leave one at a time (ties in random order): the k-th (k = 1..N)
// ends at k·S/B. Worker k computes from k·S/B + L and pushes at k·S/B + L + C; the previous push
// ended exactly then, so pushes never queue and the last one ends at (N+1)·S/B + L + C, arriving
// L later:
//   step = C + U + (N+1)·S/B + 2L.
TEST_CASE("ps_sync coarse deterministic: fair 2N S/B and fifo (N+1) S/B") {
    const double c = 0.050, upd = 0.003, s = 10e6, bw = 1.25e9, lw = 20e-6, ls = 30e-6;
    const double big_l = lw + ls;
    for (int n : {1, 4, 8}) {
        for (SharingKind sharing : {SharingKind::Fair, SharingKind::Fifo}) {
            CAPTURE(n);
            CAPTURE(static_cast<int>(sharing));
            TrainingSpec spec = ps_sync_coarse(n, c, upd, s, bw, lw, ls, sharing);
            auto e = run_sim(lower(spec));
            const double step = sharing == SharingKind::Fair
                                    ? c + upd + 2.0 * n * s / bw + 2 * big_l
                                    : c + upd + (n + 1.0) * s / bw + 2 * big_l;
            check_exact(e["step_time"], step);
            check_exact(e["steps_per_s"], 1 / step);
            check_exact(e["util.ps"], upd / step);
        }
    }
}

// ps_sync as above with unequal fair shares (share_ratio = r, §5.1): the server's parameter
// messages weigh r^i on its up direction, the pushes r^i on its down direction (i the worker);
// every worker direction carries one message and gives it the whole bandwidth.
// N = 2: the two pulls share B as 1 : r, so w[0]'s ends at (1 + r)·S/B, w[1]'s at 2S/B (work
// conservation). w[0] pushes from (1 + r)·S/B + L + C, w[1] from 2S/B + L + C: before w[0]'s
// push, alone until then, can end at (2 + r)·S/B + L + C. So the down direction works without
// a gap from w[0]'s push on, and the last push ends 2S/B after it starts:
//   step = C + U + (3 + r)·S/B + 2L   (r = 1: the fair 4S/B; r → 0: the fifo 3S/B).
// N = 3, r = 1/2 (weights 1, 1/2, 1/4; times in S/B after the update): the pulls end at 1.75
// (w[0] alone reaches S while w[1] and w[2] reach 1/2 and 1/4), 2.5 (w[1] at 2/3 of B, w[2] at
// 1/3) and 3. The pushes start at those times + L + C; by w[1]'s start w[0]'s push has 3/4 done,
// by w[2]'s it has ended (at 2.875) and w[1]'s has 1/4 done: the down direction is never idle
// from 1.75 + L + C, so the last push ends 3 later:
//   step = C + U + 4.75·S/B + 2L = C + U + (1 + r + r²)·S/B + 3S/B + 2L.
TEST_CASE("ps_sync coarse deterministic, share_ratio r: the pulls end one after the other") {
    const double c = 0.050, upd = 0.003, s = 10e6, bw = 1.25e9, lw = 20e-6, ls = 30e-6;
    const double big_l = lw + ls;
    struct Case { int n; double r; };
    for (Case k : {Case{2, 0.25}, Case{2, 0.5}, Case{2, 0.853}, Case{3, 0.5}}) {
        CAPTURE(k.n);
        CAPTURE(k.r);
        TrainingSpec spec = ps_sync_coarse(k.n, c, upd, s, bw, lw, ls, SharingKind::Fair);
        spec.share_ratio = k.r;
        auto e = run_sim(lower(spec));
        double first = 0;
        for (int i = 0; i < k.n; ++i) first += std::pow(k.r, i);
        const double step = c + upd + (first + k.n) * s / bw + 2 * big_l;
        check_exact(e["step_time"], step);
        check_exact(e["steps_per_s"], 1 / step);
    }
}

// ps_async, coarse, deterministic, fifo: a worker's cycle alone is C + S/B + L (push) + U + S/B
// + L (reply); the shard's down direction (S/B per gradient), its update (U) and its up
// direction (S/B) each serve every step of every worker one at a time, so (deterministic closed
// cyclic network) throughput = min(N / (C + U + 2S/B + 2L), 1 / max(S/B, U)).
TEST_CASE("ps_async coarse fifo deterministic: min(N/cycle, 1/max(S/B, U))") {
    const double c = 0.040, s = 5e6, bw = 1.25e9, lw = 10e-6, ls = 10e-6;
    struct Case { int n; double upd; };
    // compute-bound (N = 2), network-bound (N = 16, S/B = 4 ms > U), update-bound (U = 6 ms).
    for (Case k : {Case{2, 0.001}, Case{16, 0.001}, Case{16, 0.006}}) {
        CAPTURE(k.n);
        CAPTURE(k.upd);
        TrainingSpec spec =
            ps_coarse(SyncKind::PsAsync, k.n, c, k.upd, s, bw, lw, ls, SharingKind::Fifo);
        auto e = run_sim(lower(spec));
        const double cycle = c + k.upd + 2 * s / bw + 2 * (lw + ls);
        const double truth = std::min(k.n / cycle, 1 / std::max(s / bw, k.upd));
        check_exact(e["steps_per_s"], truth);
    }
}

// ps_async as above with `protocol = rendezvous` (§5.1): the shard posts one receive at a time,
// so a gradient travels only while no other is travelling to it or being applied: the shard's
// posted receive is held for D = S/B + L + U per gradient. A worker's cycle is unchanged, and
// the reply (S/B on the shard's up direction, one per D) never queues, so the shard is a single
// server of det(D) with N customers whose delay elsewhere is det(C + S/B + L):
//   throughput = min(N / (C + U + 2S/B + 2L), 1 / (S/B + L + U)).
// A message overhead M (infinite cores) is paid by the sender before the transmission takes the
// posted receive: it lengthens a worker's cycle by 2M (push and reply) and leaves D alone.
TEST_CASE("ps_async coarse rendezvous deterministic: the shard holds its receive S/B + L + U") {
    const double c = 0.040, s = 5e6, bw = 1.25e9, lw = 10e-6, ls = 10e-6;
    struct Case { int n; double upd; double overhead; };
    // compute-bound, shard-bound (4 ms + 1 ms), update-heavy, shard-bound with an overhead.
    for (Case k : {Case{2, 0.001, 0}, Case{16, 0.001, 0}, Case{16, 0.006, 0},
                   Case{16, 0.001, 0.002}}) {
        CAPTURE(k.n);
        CAPTURE(k.upd);
        CAPTURE(k.overhead);
        TrainingSpec spec =
            ps_coarse(SyncKind::PsAsync, k.n, c, k.upd, s, bw, lw, ls, SharingKind::Fifo);
        spec.protocol = Protocol::Rendezvous;
        spec.message_overhead_s = k.overhead;
        auto e = run_sim(lower(spec));
        const double cycle = c + k.upd + 2 * s / bw + 2 * (lw + ls) + 2 * k.overhead;
        const double held = s / bw + lw + ls + k.upd;
        check_exact(e["steps_per_s"], std::min(k.n / cycle, 1 / held));
    }
}

// Fine ps_async with `protocol = rendezvous`, no latency: 8 workers with two layers (fwd 1 ms,
// bwd 2 ms, 5 MB each: 4 ms on a 10 Gbps link), fused no further than 5 MB, so each push and
// each reply is two messages; the shard applies each in U/2 = 1 ms. With a rendezvous the
// shard's receive is held 4 + 1 ms per message, 10 ms per worker step, while a worker's cycle
// alone is 6 + 2·(4 + 4) + 1 ms: 8 workers keep it busy, steps/s = 1 / 10 ms. With eager
// transfers the shard's down direction (8 ms per step) binds instead: 1 / 8 ms.
TEST_CASE("fine ps_async rendezvous: one message at a time through the shard's receive") {
    const std::string text = R"(
layers net {
  a: fwd = det(1 ms), bwd = det(2 ms), bytes = 5 MB;
  b: fwd = det(1 ms), bwd = det(2 ms), bytes = 5 MB;
}
worker w[8] { layers = net; bandwidth = 10 Gbps; }
server ps { update = det(2 ms); bandwidth = 10 Gbps; }
training { sync = ps_async; fusion = 5 MB; overlap = false; sharing = fifo; PROTOCOL }
)";
    auto with = [&](const std::string& protocol) {
        std::string t = text;
        t.replace(t.find("PROTOCOL"), 8, protocol);
        return run_sim(compile_text(t));
    };
    check_exact(with("protocol = rendezvous;")["steps_per_s"], 1 / 0.010);
    check_exact(with("protocol = eager;")["steps_per_s"], 1 / 0.008);
    check_exact(with("")["steps_per_s"], 1 / 0.008);
}

// ps_sync with a free network (no bandwidth, no latency, no update) and exponential compute of
// mean m: a step lasts the maximum of N independent exponentials, whose mean is m·H_N
// (H_N = 1 + 1/2 + … + 1/N), so steps/s = 1 / (m·H_N). Solved by simulation (truth in the CI)
// and by the exact CTMC solver (every delay is exponential).
TEST_CASE("ps_sync free network, exponential compute: steps/s = 1/(mean H_N)") {
    const double m = 0.1;
    for (int n : {1, 3, 6}) {
        CAPTURE(n);
        TrainingSpec spec = homogeneous(n, {net::Exp{1 / m}}, kInfiniteBandwidth, 0);
        spec.servers.push_back(ServerSpec{"ps", {net::Det{0}}, kInfiniteBandwidth, 0, {}});
        spec.sync = SyncKind::PsSync;
        spec.model_bytes = 1e6;
        double h = 0;
        for (int k = 1; k <= n; ++k) h += 1.0 / k;
        const double truth = 1 / (m * h);
        net::PetriNet net = lower(spec);
        check_covers(run_sim(net, sim_options(0.01, 100 + static_cast<uint64_t>(n)))["steps_per_s"], truth,
                     0.011);
        solver::SolveOptions exact;
        exact.solver = solver::SolverKind::Exact;
        check_exact(estimates(solver::solve_exact(net, exact))["steps_per_s"], truth, 1e-9);
    }
}

// Straggler: worker 0 has speed 0.5 (`speed = i == 0 ? 0.5 : 1`), so its compute takes 2C.
// Ring all-reduce with zero latency, round time t = S/(N·B). Every other worker starts its round
// 0 at C, but round r of worker j needs round r−1 of worker j−1; the chain from worker 0's round
// 0 (started at 2C) reaches worker j at round j and delays every later round: round r of worker j
// starts at 2C + r·t for r ≥ j. The last round (2N−3 ≥ j) therefore ends at 2C + 2(N−1)t for
// every worker, and step = 2C + 2(N−1)·S/(N·B) + U: the straggler's compute replaces C on the
// critical path; communication is not hidden.
TEST_CASE("straggler slows ring all-reduce by its extra compute") {
    const double c = 0.1, upd = 0.002, s = 40e6, bw = 1.25e9;
    for (int n : {2, 4, 16}) {
        CAPTURE(n);
        TrainingSpec spec = homogeneous(n, {net::Det{c}}, bw, 0, {net::Det{upd}});
        spec.workers[0].speed = 0.5;
        spec.sync = SyncKind::AllreduceRing;
        spec.model_bytes = s;
        auto e = run_sim(lower(spec));
        const double step = 2 * c + 2.0 * (n - 1) * s / (n * bw) + upd;
        check_exact(e["step_time"], step);
        check_exact(e["util.w[0]"], (2 * c + upd) / step);
        check_exact(e["util.w[1]"], (c + upd) / step);
    }
}

// allreduce_tree, coarse, deterministic, fair sharing, binary tree of depth d (N = 2^(d+1) − 1:
// every inner node has two children). Reduce: at each level both children send S to their
// parent at once, sharing its down direction (2S/B), then 2l of propagation; broadcast: each
// parent sends S to its two children at once, sharing its up direction, 2S/B + 2l per level.
// Leaves compute C, so step = C + U + 2d·(2S/B + 2l) (the root's compute overlaps the rest).
// N = 2 (depth 1, one child): C + U + 2(S/B + 2l).
TEST_CASE("allreduce_tree coarse deterministic: C + U + 2 depth (2S/B + 2l)") {
    const double c = 0.08, upd = 0.002, s = 20e6, bw = 1.25e9, l = 25e-6;
    struct Case { int n; int depth; double per_level; };
    for (Case k : {Case{2, 1, s / bw + 2 * l}, Case{3, 1, 2 * s / bw + 2 * l},
                   Case{7, 2, 2 * s / bw + 2 * l}}) {
        CAPTURE(k.n);
        TrainingSpec spec = homogeneous(k.n, {net::Det{c}}, bw, l, {net::Det{upd}});
        spec.sync = SyncKind::AllreduceTree;
        spec.model_bytes = s;
        auto e = run_sim(lower(spec));
        const double step = c + upd + 2 * k.depth * k.per_level;
        check_exact(e["step_time"], step);
        check_exact(e["steps_per_s"], 1 / step);
    }
}

// gossip, coarse, deterministic, N = 2, fair: each worker has one neighbour. Both finish compute
// together and each exchange sends S both ways, so every NIC direction carries two messages at
// once (one per exchange): each gets B/2 and takes 2S/B, then 2l. A worker's step is
// C + 2S/B + 2l + U and steps_per_s counts both workers' local steps: 2 / (C + U + 2S/B + 2l).
// With infinite bandwidth and N = 5, a step is C + 2l + U whichever neighbour is picked:
// steps_per_s = 5 / (C + U + 2l).
TEST_CASE("gossip coarse deterministic closed forms") {
    const double c = 0.05, upd = 0.001, s = 8e6, bw = 1.25e9, l = 40e-6;
    {
        TrainingSpec spec = homogeneous(2, {net::Det{c}}, bw, l, {net::Det{upd}});
        spec.sync = SyncKind::Gossip;
        spec.model_bytes = s;
        auto e = run_sim(lower(spec));
        check_exact(e["steps_per_s"], 2 / (c + upd + 2 * s / bw + 2 * l));
        check_exact(e["step_time"], c + upd + 2 * s / bw + 2 * l);
    }
    {
        TrainingSpec spec = homogeneous(5, {net::Det{c}}, kInfiniteBandwidth, l, {net::Det{upd}});
        spec.sync = SyncKind::Gossip;
        spec.model_bytes = s;
        auto e = run_sim(lower(spec));
        check_exact(e["steps_per_s"], 5 / (c + upd + 2 * l));
    }
}

// ps_ssp(staleness = K): with K large the bound almost never binds and the throughput is
// ps_async's. (Only with equal speeds: with a slower worker the fast ones drift ahead without
// bound under ps_async, so any finite K eventually binds and ps_ssp runs at the slowest pace.)
// With K = 0 a worker waits for every worker to finish computing the previous step, which can
// only slow it down relative to K = 1. Stochastic: exponential compute, shared network.
TEST_CASE("ps_ssp: large K matches ps_async, K = 0 never faster than K = 1") {
    auto spec_for = [](SyncKind kind, int64_t k, double slow) {
        TrainingSpec spec = homogeneous(4, {net::Exp{1 / 0.05}}, 1.25e9, 10e-6);
        spec.workers[0].speed = slow;
        spec.servers.push_back(ServerSpec{"ps", {net::Det{0.001}}, 1.25e9, 10e-6, {}});
        spec.sync = kind;
        spec.staleness = k;
        spec.model_bytes = 5e6;
        return spec;
    };
    auto async = run_sim(lower(spec_for(SyncKind::PsAsync, 0, 1)), sim_options(0.005, 3));
    auto large = run_sim(lower(spec_for(SyncKind::PsSsp, 200, 1)), sim_options(0.005, 4));
    const auto& a = async["steps_per_s"];
    const auto& b = large["steps_per_s"];
    INFO("async " << a.mean << " [" << a.ci_low << ", " << a.ci_high << "], ssp(200) " << b.mean
                  << " [" << b.ci_low << ", " << b.ci_high << "]");
    CHECK(std::fabs(a.mean - b.mean) <= (a.ci_high - a.ci_low) / 2 + (b.ci_high - b.ci_low) / 2);
    for (double slow : {1.0, 0.5}) {
        CAPTURE(slow);
        auto k0 = run_sim(lower(spec_for(SyncKind::PsSsp, 0, slow)), sim_options(0.005, 5));
        auto k1 = run_sim(lower(spec_for(SyncKind::PsSsp, 1, slow)), sim_options(0.005, 6));
        INFO("ssp(0) " << k0["steps_per_s"].mean << ", ssp(1) " << k1["steps_per_s"].mean);
        CHECK(k0["steps_per_s"].ci_low <= k1["steps_per_s"].ci_high);
        // The bound binds: K = 0 is clearly slower than K = 1 here.
        CHECK(k0["steps_per_s"].ci_high < k1["steps_per_s"].ci_low);
    }
}
