// Truth tests of hosts (processor sharing of cores, shared host NICs) and of the per-message costs (overhead, CPU per byte) against hand-derived closed forms.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "tests/support/training_support.hpp"

using namespace sgdnet;
using namespace sgdnet::compiler;
using namespace sgdnet::training_test;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

training::HostSpec host(const std::string& name, double cores, double bw_Bps = kInf,
                        double latency_s = 0) {
    training::HostSpec h;
    h.name = name;
    h.cores = cores;
    h.bandwidth_Bps = bw_Bps;
    h.latency_s = latency_s;
    return h;
}

}  // namespace

// Deterministic nets are checked with check_exact: within 0.5% of the truth, the precision the
// simulation runs to (the stopping rule's bound on the CI half-width relative to the mean).

// Two workers on one host of C cores, coarse ring, N = 2, compute det(T), bandwidth B, no
// latency. Both computations start together and are the host's only jobs: each runs at
// min(1, C/2), so the compute phase lasts T_c = T·max(1, 2/C) (2T on one core, 2T/1.5 on 1.5,
// T on 2 or more). The ring then sends 2 rounds of S/2 bytes: S/B, with the host idle (no
// CPU cost per byte). step = T_c + S/B. util.h = min(k, C)/C averaged over time = min(2, C)/C
// during T_c and 0 after: min(2, C)/C · T_c / step. util.w[0] counts work, not time: T / step.
TEST_CASE("workers on one host share its cores: step = T max(1, 2/C) + S/B") {
    const double t = 0.100, s = 50e6, bw = 1e9;
    for (double cores : {1.0, 1.5, 2.0, 4.0}) {
        CAPTURE(cores);
        TrainingSpec spec = homogeneous(2, {net::Det{t}}, bw, 0);
        spec.sync = SyncKind::AllreduceRing;
        spec.model_bytes = s;
        spec.hosts.push_back(host("h", cores));
        for (auto& w : spec.workers) w.host = 0;
        auto e = run_sim(lower(spec));
        const double compute = t * std::max(1.0, 2 / cores);
        const double step = compute + s / bw;
        check_exact(e["step_time"], step);
        check_exact(e["util.h"], std::min(2.0, cores) / cores * compute / step);
        check_exact(e["util.w[0]"], t / step);
    }
}

// The same with interference a (docs/language.md §5.4): while m = min(k, C) cores are busy
// each job runs at min(1, C/k) / (1 + a(m − 1)). Two computations on C cores: m = min(2, C),
// so the compute phase lasts T·max(1, 2/C)·(1 + a(min(2, C) − 1)): 2T on one core (m = 1, no
// interference), T(1 + a) on two or four, 2T/1.5·(1 + a/2) on 1.5. Three workers on two cores:
// k = 3, m = 2, each at (2/3)/(1 + a): 1.5T(1 + a); the ring then takes 2(N−1)·S/(N·B).
// A straggler (speed 1/2: work 2T) beside a worker of work T on two cores: both at 1/(1 + a)
// until the fast one ends at T(1 + a), having done T of the straggler's 2T; the straggler's
// last T runs alone (m = 1) at full speed: T(2 + a), then S/B.
TEST_CASE("interference of busy cores: step = T max(1, 2/C) (1 + a(min(2, C) - 1)) + S/B") {
    const double t = 0.100, s = 50e6, bw = 1e9;
    // n workers of compute det(T) on one host of C cores with interference a, coarse ring.
    auto on_host = [&](int n, double cores, double a) {
        TrainingSpec spec = homogeneous(n, {net::Det{t}}, bw, 0);
        spec.sync = SyncKind::AllreduceRing;
        spec.model_bytes = s;
        spec.hosts.push_back(host("h", cores));
        spec.hosts[0].interference = a;
        for (auto& w : spec.workers) w.host = 0;
        return spec;
    };
    for (double a : {0.1, 0.25}) {
        CAPTURE(a);
        for (double cores : {1.0, 1.5, 2.0, 4.0}) {
            CAPTURE(cores);
            auto e = run_sim(lower(on_host(2, cores, a)));
            const double m = std::min(2.0, cores);
            const double compute = t * std::max(1.0, 2 / cores) * (1 + a * (m - 1));
            check_exact(e["step_time"], compute + s / bw);
        }
        auto e3 = run_sim(lower(on_host(3, 2, a)));
        check_exact(e3["step_time"], 1.5 * t * (1 + a) + 2.0 * 2 * s / (3 * bw));
        TrainingSpec straggler = on_host(2, 2, a);
        straggler.workers[1].speed = 0.5;
        auto e2 = run_sim(lower(straggler));
        check_exact(e2["step_time"], t * (2 + a) + s / bw);
    }
}

// The same with oversubscription o (docs/language.md §5.4): while k > C jobs run, each also
// pays 1 + o(k − C)/k for taking turns on the cores. n workers of det(T) on C cores, coarse
// ring: two on one core run at (1/2)/(1 + o/2) each, so the compute phase lasts T(2 + o); two
// on 1.5 cores at (1.5/2)/(1 + o/4): (2T/1.5)(1 + o/4); two on two cores are not crowded: T;
// three on two at (2/3)/(1 + o/3): 1.5T(1 + o/3), times 1 + a with interference a (m = 2
// busy cores), then the ring's 2(N−1)·S/(N·B). A straggler (speed 1/2: work 2T) beside a
// worker of work T on one core: both at 1/(2 + o) until the fast one ends at T(2 + o),
// having done T of the straggler's 2T; its last T runs alone at full speed: T(3 + o), then S/B.
TEST_CASE("oversubscription: step = T max(1, n/C) (1 + o max(0, n - C)/n) + ring") {
    const double t = 0.100, s = 50e6, bw = 1e9;
    auto on_host = [&](int n, double cores, double o, double a) {
        TrainingSpec spec = homogeneous(n, {net::Det{t}}, bw, 0);
        spec.sync = SyncKind::AllreduceRing;
        spec.model_bytes = s;
        spec.hosts.push_back(host("h", cores));
        spec.hosts[0].oversubscription = o;
        spec.hosts[0].interference = a;
        for (auto& w : spec.workers) w.host = 0;
        return spec;
    };
    for (double o : {0.2, 0.5}) {
        CAPTURE(o);
        check_exact(run_sim(lower(on_host(2, 1, o, 0)))["step_time"], t * (2 + o) + s / bw);
        check_exact(run_sim(lower(on_host(2, 1.5, o, 0)))["step_time"],
                    2 * t / 1.5 * (1 + o / 4) + s / bw);
        check_exact(run_sim(lower(on_host(2, 2, o, 0)))["step_time"], t + s / bw);
        const double ring3 = 2.0 * 2 * s / (3 * bw);
        check_exact(run_sim(lower(on_host(3, 2, o, 0)))["step_time"],
                    1.5 * t * (1 + o / 3) + ring3);
        check_exact(run_sim(lower(on_host(3, 2, o, 0.1)))["step_time"],
                    1.5 * t * (1 + o / 3) * 1.1 + ring3);
        TrainingSpec straggler = on_host(2, 1, o, 0);
        straggler.workers[1].speed = 0.5;
        check_exact(run_sim(lower(straggler))["step_time"], t * (3 + o) + s / bw);
    }
}

// The coarse overlap fraction φ on a shared host (docs/training.md, "Coarse overlap"): two
// workers on one host of C cores, coarse ring, N = 2, compute det(T), update det(U), bandwidth
// B, no latency; the ring alone takes R = S/B. With s = max(1, 2/C) both heads run at 1/s and
// end together at s·(T − h); then the two tails (h of work each) run at 1/s beside the ring
// and end at s·h = φ·R, within it, so φ of the ring is hidden whatever the sharing; the two
// updates run together, s·U:   step = s·(T + U) + (1 − φ)·R. With oversubscription o the
// two jobs of every phase are still the host's only ones, so s = max(1, 2/C)(1 + o·max(0,
// 2 − C)/2) and the same holds.
TEST_CASE("coarse overlap on a shared host hides φ of the communication: step = s(T+U) + (1-φ)R") {
    const double t = 0.100, upd = 0.004, s = 50e6, bw = 1e9, phi = 0.5;
    for (double o : {0.0, 0.3}) {
        for (double cores : {1.0, 1.5, 2.0}) {
            CAPTURE(o);
            CAPTURE(cores);
            TrainingSpec spec = homogeneous(2, {net::Det{t}}, bw, 0, {net::Det{upd}});
            spec.sync = SyncKind::AllreduceRing;
            spec.model_bytes = s;
            spec.overlap_fraction = phi;
            spec.hosts.push_back(host("h", cores));
            spec.hosts[0].oversubscription = o;
            for (auto& w : spec.workers) w.host = 0;
            const double share =
                std::max(1.0, 2 / cores) * (1 + o * std::max(0.0, 2 - cores) / 2);
            check_exact(run_sim(lower(spec))["step_time"],
                        share * (t + upd) + (1 - phi) * s / bw);
        }
    }
}

// The same with worker 0 at speed 0.5 on one core: its job holds 2T of work, worker 1's T.
// Both run at 1/2 until worker 1's ends at 2T (worker 0 has done T, T left), then worker 0
// alone at full speed ends at 3T: the work left carries over. step = 3T + S/B; the host is
// busy 3T of it; util.w[0] = 2T / step.
TEST_CASE("processor sharing carries the work left over: a straggler on a shared core") {
    const double t = 0.100, s = 50e6, bw = 1e9;
    TrainingSpec spec = homogeneous(2, {net::Det{t}}, bw, 0);
    spec.workers[0].speed = 0.5;
    spec.sync = SyncKind::AllreduceRing;
    spec.model_bytes = s;
    spec.hosts.push_back(host("h", 1));
    for (auto& w : spec.workers) w.host = 0;
    auto e = run_sim(lower(spec));
    const double step = 3 * t + s / bw;
    check_exact(e["step_time"], step);
    check_exact(e["util.h"], 3 * t / step);
    check_exact(e["util.w[0]"], 2 * t / step);
    check_exact(e["util.w[1]"], t / step);
}

// Fine ring, N = 2, w[i] alone on host h[i]; two layers (fwd f = 2 ms, bwd b = 3 ms, 1 MB
// each), one bucket per layer (cap 1 B), bandwidth B = 1 GB/s, no latency, no update. A round
// sends m = 0.5 MB: transmission m/B = 0.5 ms; with comm_cpu c = 2 ns/B a CPU job of m·c = 1 ms
// at the sender's host and one at the receiver's. By symmetry both hosts carry the same jobs.
// Forward and the first backward run alone: T0 = 2f + b = 7 ms, bucket 0 (layer1) ready.
// - One core: from T0 the host runs the backward of layer0 (3 ms of work), its own send job
//   and the peer's receive job (1 ms each): three jobs at 1/3. The CPU jobs end at T0 + 3
//   (the backward has 2 ms left); round 0 is delivered then (its transmission ended at
//   T0 + 0.5) and round 1 starts: again three jobs at 1/3, ending at T0 + 6 (backward: 1 ms
//   left), bucket 0 done. The backward ends alone at T0 + 7: bucket 1's two rounds have two
//   jobs each at 1/2: 2 ms per round, done at T0 + 11. step = 18 ms.
// - Infinite cores: each round is delivered after max(0.5, 1, 1) = 1 ms; bucket 0 is done at
//   T0 + 2, the backward at T0 + 3, bucket 1 at T0 + 5: step = 12 ms.
// - One core, c = 0: rounds of 0.5 ms; bucket 0 done at T0 + 1, the backward alone at T0 + 3,
//   bucket 1 at T0 + 4: step = 11 ms.
TEST_CASE("CPU cost per byte shares the core with the backward: piecewise processor sharing") {
    struct Case { double cores, comm_cpu, step; };
    for (Case k : {Case{1, 2e-9, 0.018}, Case{kInf, 2e-9, 0.012}, Case{1, 0, 0.011}}) {
        CAPTURE(k.cores);
        CAPTURE(k.comm_cpu);
        TrainingSpec spec = fine_ring(2, 2, 0.002, 0.003, 1e6, 1e9, 0, 0);
        spec.bucket_bytes = spec.first_bucket_bytes = 1;
        spec.comm_cpu_s_per_byte = k.comm_cpu;
        spec.hosts = {host("h[0]", k.cores), host("h[1]", k.cores)};
        spec.workers[0].host = 0;
        spec.workers[1].host = 1;
        auto e = run_sim(lower(spec));
        check_exact(e["step_time"], k.step);
    }
}

// The one-core case above with oversubscription o (fine granularity): T0 = 7 ms runs alone
// (k = 1, no cost). Bucket 0's two rounds each have three jobs on the core, each at
// (1/3)/(1 + 2o/3) = 1/(3 + 2o): a round's CPU jobs (1 ms) end after 3 + 2o ms, the backward
// doing 1 ms of its 3 in each; its last 1 ms runs alone; bucket 1's two rounds have two jobs
// each at 1/(2 + o): 2 + o ms per round. step = 7 + 2(3 + 2o) + 1 + 2(2 + o) = 18 + 6o ms.
TEST_CASE("oversubscription at fine granularity: backward and per-byte jobs take turns") {
    for (double o : {0.25, 0.5}) {
        CAPTURE(o);
        TrainingSpec spec = fine_ring(2, 2, 0.002, 0.003, 1e6, 1e9, 0, 0);
        spec.bucket_bytes = spec.first_bucket_bytes = 1;
        spec.comm_cpu_s_per_byte = 2e-9;
        spec.hosts = {host("h[0]", 1), host("h[1]", 1)};
        for (auto& h : spec.hosts) h.oversubscription = o;
        spec.workers[0].host = 0;
        spec.workers[1].host = 1;
        check_exact(run_sim(lower(spec))["step_time"], 0.018 + 0.006 * o);
    }
}

// backward_overhead E (docs/language.md §5.4), ring, N = 2, bandwidth B, no latency.
// - Coarse, compute det(T), hosts of infinite cores: the compute gains E: step = T + E + S/B.
// - Coarse, both workers on one core: their computes (T + E each) share it: 2(T + E) + S/B.
// - Fine, two layers of 1 MB (fwd f = 2 ms, bwd b = 3 ms), one bucket per layer, alone on
//   their hosts: E splits by bytes, E/2 per backward. Layer 1's bucket (1 MB: two rounds of
//   0.5 MB, 1 ms) is ready at 2f + b + E/2 and ends within layer 0's backward (b + E/2 > 1 ms);
//   layer 0's bucket follows: step = 2f + 2b + E + 1 ms.
TEST_CASE("backward overhead is CPU work of the backward: step = T + E + S/B, and shared") {
    const double t = 0.100, s = 50e6, bw = 1e9;
    for (double e : {0.004, 0.020}) {
        CAPTURE(e);
        TrainingSpec spec = homogeneous(2, {net::Det{t}}, bw, 0);
        spec.sync = SyncKind::AllreduceRing;
        spec.model_bytes = s;
        spec.backward_overhead_s = e;
        check_exact(run_sim(lower(spec))["step_time"], t + e + s / bw);
        spec.hosts.push_back(host("h", 1));
        for (auto& w : spec.workers) w.host = 0;
        check_exact(run_sim(lower(spec))["step_time"], 2 * (t + e) + s / bw);

        TrainingSpec fine = fine_ring(2, 2, 0.002, 0.003, 1e6, 1e9, 0, 0);
        fine.bucket_bytes = fine.first_bucket_bytes = 1;
        fine.backward_overhead_s = e;
        check_exact(run_sim(lower(fine))["step_time"], 0.004 + 0.006 + e + 0.001);
    }
}

// Ring, coarse, N workers alone on hosts of infinite cores, message overhead o and CPU cost c
// per byte. Round r of worker j pays o (holding its NIC), then transmits S/N bytes (S/(N·B))
// with CPU jobs of S·c/N at both ends beside it; the chunk is delivered after
// max(S/(N·B) + 2l, S·c/N). Round r + 1 needs that delivery from j − 1 (and j's own
// transmission, shorter), so with all workers in step each of the 2(N−1) rounds takes
// o + max(S/(N·B) + 2l, S·c/N):
//   step = C + 2(N−1)(o + max(S/(N·B) + 2l, S·c/N)) + U.
TEST_CASE("ring per-message costs: step = C + 2(N-1)(o + max(S/(N B) + 2l, S c/N)) + U") {
    const double c = 0.050, upd = 0.002, s = 40e6, bw = 1.25e9, l = 20e-6, o = 150e-6;
    for (int n : {2, 8}) {
        // No CPU cost per byte; a network-bound one (S·c/N below the link); a CPU-bound one.
        for (double cpu : {0.0, 0.2e-9, 2e-9}) {
            CAPTURE(n);
            CAPTURE(cpu);
            TrainingSpec spec = homogeneous(n, {net::Det{c}}, bw, l, {net::Det{upd}});
            spec.sync = SyncKind::AllreduceRing;
            spec.model_bytes = s;
            spec.message_overhead_s = o;
            spec.comm_cpu_s_per_byte = cpu;
            auto e = run_sim(lower(spec));
            const double round = o + std::max(s / (n * bw) + 2 * l, s * cpu / n);
            const double step = c + 2.0 * (n - 1) * round + upd;
            check_exact(e["step_time"], step);
            check_exact(e["steps_per_s"], 1 / step);
        }
    }
}

// The same ring, N = 2, both workers on one host of one core: both workers pay each round's
// overhead at once on the one core, 2o, and compute and update together, 2C and 2U:
//   step = 2C + 2(N−1)(2o + S/(N·B) + 2l) + 2U.
TEST_CASE("ring overhead is CPU work: two workers on one core pay 2o per round") {
    const double c = 0.050, upd = 0.002, s = 40e6, bw = 1.25e9, l = 20e-6, o = 150e-6;
    TrainingSpec spec = homogeneous(2, {net::Det{c}}, bw, l, {net::Det{upd}});
    spec.sync = SyncKind::AllreduceRing;
    spec.model_bytes = s;
    spec.message_overhead_s = o;
    spec.hosts.push_back(host("h", 1));
    for (auto& w : spec.workers) w.host = 0;
    auto e = run_sim(lower(spec));
    check_exact(e["step_time"], 2 * c + 2 * (2 * o + s / (2 * bw) + 2 * l) + 2 * upd);
}

// DDP's buffer broadcast before each forward (`buffers` = b bytes), coarse ring, det compute C,
// update U, bandwidth B. Worker 0 sends b to worker 1, 2, …, N−1 one after the other, each
// message paying o and then b/B: worker k's copy arrives at k(o + b/B) + 2l and worker 0
// starts last, at (N−1)(o + b/B). Every chain of ring rounds passes through worker 0 within
// N−1 hops, so the ring ends as if all had started with worker 0 (with l = 0; for N = 2 the
// one other worker starts 2l after worker 0, which its first round hides):
//   step = (N−1)(o + b/B) + C + 2(N−1)(o + S/(N·B) + 2l) + U.
TEST_CASE("buffer broadcast before each forward: step = (N-1)(o + b/B) + the ring's step") {
    const double c = 0.050, upd = 0.002, s = 40e6, bw = 1.25e9, b = 2e6;
    struct Case { int n; double l; double o; };
    for (Case k : {Case{2, 20e-6, 150e-6}, Case{2, 0, 0}, Case{3, 0, 0}, Case{8, 0, 0},
                   Case{8, 0, 100e-6}}) {
        CAPTURE(k.n);
        CAPTURE(k.l);
        CAPTURE(k.o);
        TrainingSpec spec = homogeneous(k.n, {net::Det{c}}, bw, k.l, {net::Det{upd}});
        spec.sync = SyncKind::AllreduceRing;
        spec.model_bytes = s;
        spec.buffer_bytes = b;
        spec.message_overhead_s = k.o;
        const double ring = c + 2.0 * (k.n - 1) * (k.o + s / (k.n * bw) + 2 * k.l) + upd;
        check_exact(run_sim(lower(spec))["step_time"], (k.n - 1) * (k.o + b / bw) + ring);
    }
}

// ps_sync, coarse, as the closed forms of training_schemes_test.cpp with a message overhead o
// on hosts of infinite cores: every pull and every push pays o before its transmission, all
// of a phase at once (each on its sender's host), so each phase takes o longer:
//   fair: step = C + U + 2o + 2N·S/B + 2L;   fifo: step = C + U + 2o + (N+1)·S/B + 2L
// (fifo: the replies still leave S/B apart after their overheads, so the pushes, o later
// each, still never queue). With the server alone on a host of one core, its N pull
// overheads share the core and all end at N·o (its update, alone, takes U):
//   fair: step = C + U + (N+1)·o + 2N·S/B + 2L.
TEST_CASE("ps_sync with message overhead: fair, fifo, and a one-core server") {
    const double c = 0.050, upd = 0.003, s = 10e6, bw = 1.25e9, lw = 20e-6, ls = 30e-6;
    const double o = 200e-6, big_l = lw + ls;
    for (int n : {1, 4}) {
        for (SharingKind sharing : {SharingKind::Fair, SharingKind::Fifo}) {
            CAPTURE(n);
            CAPTURE(static_cast<int>(sharing));
            TrainingSpec spec = ps_sync_coarse(n, c, upd, s, bw, lw, ls, sharing);
            spec.message_overhead_s = o;
            const double step = sharing == SharingKind::Fair
                                    ? c + upd + 2 * o + 2.0 * n * s / bw + 2 * big_l
                                    : c + upd + 2 * o + (n + 1.0) * s / bw + 2 * big_l;
            check_exact(run_sim(lower(spec))["step_time"], step);
            if (sharing == SharingKind::Fifo) continue;
            spec.hosts.push_back(host("ps_host", 1));
            spec.servers[0].host = 0;
            auto e = run_sim(lower(spec));
            const double one_core = c + upd + (n + 1.0) * o + 2.0 * n * s / bw + 2 * big_l;
            check_exact(e["step_time"], one_core);
            // The core works U + N·o per step (the overheads at 1/N each, N·o in all).
            check_exact(e["util.ps_host"], (upd + n * o) / one_core);
        }
    }
}

// allreduce_tree and gossip with a message overhead o (training_schemes_test.cpp's closed
// forms): every message of a tree level (a child's reduce, a parent's broadcasts) pays o at
// once on its sender's host before the level's transfers, so each level takes o longer:
// step = C + U + 2·depth·(o + per level). gossip, N = 2: the four messages of the two
// exchanges pay o at once: steps_per_s = 2 / (C + U + o + 2S/B + 2l).
TEST_CASE("tree and gossip with message overhead") {
    const double c = 0.08, upd = 0.002, s = 20e6, bw = 1.25e9, l = 25e-6, o = 300e-6;
    struct Case { int n; int depth; double per_level; };
    for (Case k : {Case{2, 1, s / bw + 2 * l}, Case{3, 1, 2 * s / bw + 2 * l},
                   Case{7, 2, 2 * s / bw + 2 * l}}) {
        CAPTURE(k.n);
        TrainingSpec spec = homogeneous(k.n, {net::Det{c}}, bw, l, {net::Det{upd}});
        spec.sync = SyncKind::AllreduceTree;
        spec.model_bytes = s;
        spec.message_overhead_s = o;
        check_exact(run_sim(lower(spec))["step_time"], c + upd + 2 * k.depth * (o + k.per_level));
    }
    TrainingSpec spec = homogeneous(2, {net::Det{c}}, bw, l, {net::Det{upd}});
    spec.sync = SyncKind::Gossip;
    spec.model_bytes = s;
    spec.message_overhead_s = o;
    check_exact(run_sim(lower(spec))["steps_per_s"], 2 / (c + upd + o + 2 * s / bw + 2 * l));
}

// A host NIC shared by its nodes. ps_sync, N = 2 workers on host h (NIC of bandwidth B_h,
// latency l_h; the workers' own NICs are unlimited, with a latency l_w that inter-host
// messages do not see), the server alone (unlimited bandwidth, latency l_s). Both pushes leave
// h through h.up at once and share it fairly: 2S/B_h, then l_h + l_s; both replies share
// h.down: 2S/B_h again. step = C + U + 4S/B_h + 2(l_h + l_s); h.up is busy 2S/B_h of it.
// Fifo: the replies leave h.down one after the other, so the workers compute S/B_h apart and
// their pushes never queue (as ps_sync's fifo closed form): step = C + U + 3S/B_h + 2(l_h +
// l_s); h.up still carries 2S/B_h.
TEST_CASE("shared host NIC: the pushes of a host's workers share its NIC") {
    const double c = 0.040, upd = 0.002, s = 10e6, bh = 1.25e9, lh = 10e-6, lw = 500e-6;
    const double ls = 30e-6;
    for (SharingKind sharing : {SharingKind::Fair, SharingKind::Fifo}) {
        CAPTURE(static_cast<int>(sharing));
        TrainingSpec spec = homogeneous(2, {net::Det{c}}, kInfiniteBandwidth, lw);
        spec.servers.push_back(ServerSpec{"ps", {net::Det{upd}}, kInfiniteBandwidth, ls, {}});
        spec.sync = SyncKind::PsSync;
        spec.model_bytes = s;
        spec.sharing = sharing;
        spec.hosts.push_back(host("h", kInf, bh, lh));
        for (auto& w : spec.workers) w.host = 0;
        auto e = run_sim(lower(spec));
        const double transfers = sharing == SharingKind::Fair ? 4 * s / bh : 3 * s / bh;
        const double step = c + upd + transfers + 2 * (lh + ls);
        check_exact(e["step_time"], step);
        check_exact(e["util.h.up"], 2 * s / bh / step);
    }
}

// Ring across hosts, N = 4, w[i] on h[i/2], host NICs of bandwidth B_h, workers' own NICs
// unlimited, no latency. w[0]→w[1] and w[2]→w[3] stay inside a host (own NICs: free);
// w[1]→w[2] and w[3]→w[0] cross through the host NICs, each direction carrying one chunk at a
// time, d = S/(4·B_h). Round r of j starts at max(own round r−1 sent, round r−1 of j−1
// arrived): by induction every round starts at r·d, and the last arrival or own send ends at
// 6d for every worker: step = C + U + 2(N−1)·S/(N·B_h), as for a ring of bandwidth B_h.
// Inside one host (N = 2 on h) the ring uses the free own NICs: step = C + U.
TEST_CASE("ring through host NICs: inter-host links pace the ring, intra-host ones are free") {
    const double c = 0.060, upd = 0.003, s = 40e6, bh = 1.25e9;
    for (SharingKind sharing : {SharingKind::Fair, SharingKind::Fifo}) {
        CAPTURE(static_cast<int>(sharing));
        TrainingSpec spec = homogeneous(4, {net::Det{c}}, kInfiniteBandwidth, 0, {net::Det{upd}});
        spec.sync = SyncKind::AllreduceRing;
        spec.model_bytes = s;
        spec.sharing = sharing;
        spec.hosts = {host("h[0]", kInf, bh), host("h[1]", kInf, bh)};
        for (int i = 0; i < 4; ++i) spec.workers[static_cast<std::size_t>(i)].host = i / 2;
        check_exact(run_sim(lower(spec))["step_time"], c + upd + 6 * s / (4 * bh));
    }
    TrainingSpec spec = homogeneous(2, {net::Det{c}}, kInfiniteBandwidth, 0, {net::Det{upd}});
    spec.sync = SyncKind::AllreduceRing;
    spec.model_bytes = s;
    spec.hosts = {host("h", kInf, bh)};
    for (auto& w : spec.workers) w.host = 0;
    check_exact(run_sim(lower(spec))["step_time"], c + upd);
}

// The coarse reduction keeps the host terms: N = 2 workers on one host of one core, fine ring
// with one bucket and no overlap. Every layer job of the two workers runs beside its twin at
// 1/2, so the fine chain takes 2·nl·(f + b), as the coarse compute (one job of nl·(f + b) per
// worker) does; the two updates run together too:
//   step = 2·nl·(f + b) + 2(N−1)(S/(N·B) + 2l) + 2U, fine and coarse.
TEST_CASE("fine ring on a shared core = its coarse reduction") {
    const int nl = 4;
    const double f = 0.004, b = 0.008, bytes = 5e6, bw = 1.25e9, l = 15e-6, upd = 0.002;
    TrainingSpec fine = fine_ring(2, nl, f, b, bytes, bw, l, upd);
    fine.bucket_bytes = fine.first_bucket_bytes = 1e9;
    fine.overlap = false;
    fine.hosts.push_back(host("h", 1));
    for (auto& w : fine.workers) w.host = 0;
    TrainingSpec coarse = fine;
    coarse.granularity = Granularity::Coarse;
    const double step = 2 * nl * (f + b) + 2 * (nl * bytes / (2 * bw) + 2 * l) + 2 * upd;
    check_exact(run_sim(lower(fine))["step_time"], step);
    check_exact(run_sim(lower(coarse))["step_time"], step);
}

// ps_async with a free network (no bandwidth, latency or update) and N workers on one host of
// C cores, compute ~ exp(mean m): every worker always has its compute in progress, so each
// runs at min(1, C/N) and completes steps at rate min(1, C/N)/m (memoryless: the sharing only
// scales the rate). steps_per_s = N·min(1, C/N)/m = min(N, C)/m; util.h = min(N, C)/C. Solved
// by simulation (truth in the CI) and by the exact CTMC solver (every delay exponential).
TEST_CASE("exponential compute on a shared host: steps/s = min(N, C)/m on both solvers") {
    const double m = 0.1;
    struct Case { int n; double cores; };
    for (Case k : {Case{3, 2}, Case{2, 1}, Case{2, 4}}) {
        CAPTURE(k.n);
        CAPTURE(k.cores);
        TrainingSpec spec = homogeneous(k.n, {net::Exp{1 / m}}, kInfiniteBandwidth, 0);
        spec.servers.push_back(ServerSpec{"ps", {net::Det{0}}, kInfiniteBandwidth, 0, {}});
        spec.sync = SyncKind::PsAsync;
        spec.model_bytes = 1e6;
        spec.hosts.push_back(host("h", k.cores));
        for (auto& w : spec.workers) w.host = 0;
        const net::PetriNet net = lower(spec);
        const double truth = std::min<double>(k.n, k.cores) / m;
        auto e = run_sim(net, sim_options(0.01, 40 + static_cast<uint64_t>(k.n)));
        check_covers(e["steps_per_s"], truth, 0.011);
        solver::SolveOptions exact;
        exact.solver = solver::SolverKind::Exact;
        auto x = estimates(solver::solve_exact(net, exact));
        check_exact(x["steps_per_s"], truth, 1e-9);
        check_exact(x["util.h"], std::min<double>(k.n, k.cores) / k.cores, 1e-9);
    }
}
