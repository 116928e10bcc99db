// Unit tests of explain/bounds.hpp and explain/explain.hpp: demands and bounds against hand-derived
// closed forms, tight bounds where one resource saturates, the bottleneck sentence, what-if and a
// raw net's activity.
#include "explain/bounds.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "explain/explain.hpp"
#include "tests/support/training_support.hpp"

using namespace sgdnet;
using namespace sgdnet::training_test;
using explain::Bounds;
using explain::ResourceKind;

namespace {

const explain::ResourceBound& resource(const Bounds& b, const std::string& name) {
    for (const auto& r : b.resources)
        if (r.name == name) return r;
    FAIL("no resource " << name);
    return b.resources.front();
}

/// Simulates the net of `spec`; returns the result and checks steps_per_s ≤ every bound.
solver::SolveResult solve_below(const compiler::TrainingSpec& spec, const Bounds& b,
                                double precision = 0.005) {
    const solver::SolveResult r = solver::simulate(lower(spec), sim_options(precision));
    const auto& steps = r.measures.front();
    INFO("steps_per_s " << steps.mean << " [" << steps.ci_low << ", " << steps.ci_high
                        << "], bound " << b.bound << " (" << b.binding << ")");
    CHECK(steps.ci_low <= b.bound * 1.001);
    return r;
}

}  // namespace

// Ring, coarse, deterministic: each direction carries 2(N−1) chunks of S/N per step, the step
// is C + 2(N−1)(S/(N·B) + 2l) + U exactly, and the critical path is that very sum.
TEST_CASE("ring coarse: link demand 2(N-1)S/(N B), critical path C + 2(N-1)(S/(N B) + 2l) + U") {
    const double c = 0.120, upd = 0.004, s = 44.7e6, bw = 1.25e9, l = 20e-6;
    for (int n : {2, 8, 64}) {
        CAPTURE(n);
        compiler::TrainingSpec spec = homogeneous(n, {net::Det{c}}, bw, l, {net::Det{upd}});
        spec.sync = compiler::SyncKind::AllreduceRing;
        spec.model_bytes = s;
        const Bounds b = explain::training_bounds(spec);
        CHECK(b.sync);
        const auto& up = resource(b, "w[0].up");
        CHECK(up.kind == ResourceKind::Link);
        CHECK(up.what == "w[0]'s NIC (uplink)");
        CHECK(up.demand_s == doctest::Approx(2.0 * (n - 1) * s / (n * bw)).epsilon(1e-12));
        CHECK(resource(b, "w[1].down").demand_s == doctest::Approx(up.demand_s));
        CHECK(resource(b, "w[0]").demand_s == doctest::Approx(c + upd));
        const double step = c + 2.0 * (n - 1) * (s / (n * bw) + 2 * l) + upd;
        CHECK(b.cycle_s == doctest::Approx(step).epsilon(1e-12));
        CHECK(b.binding == "cycle");
        const auto r = solve_below(spec, b);
        check_exact(r.measures.front(), b.bound);  // deterministic: the bound is the throughput
    }
}

// Ring at a small bandwidth: the links are busy nearly all the time and the bound (the
// critical path, within 5% of the link bound) is within 1%; the sentence names a link.
TEST_CASE("ring at small bandwidth: tight bound, the link is the bottleneck") {
    compiler::TrainingSpec spec = homogeneous(8, {net::Det{0.010}}, 50e6, 5e-6);
    spec.sync = compiler::SyncKind::AllreduceRing;
    spec.model_bytes = 100e6;
    const Bounds b = explain::training_bounds(spec);
    const auto r = solve_below(spec, b);
    const double steps = r.measures.front().mean;
    CHECK(steps >= 0.99 * b.bound);
    CHECK(b.resources.front().kind == ResourceKind::Link);
    CHECK(b.resources.front().bound <= 1.05 * b.bound);
    const auto ranked = explain::rank_resources(b, r);
    REQUIRE(ranked.front().utilization.has_value());
    CHECK(ranked.front().utilization->mean > 0.95);
    const std::string sentence = explain::bottleneck_sentence(b, ranked, steps);
    CHECK(sentence.rfind("bottleneck: w[", 0) == 0);
    CHECK(sentence.find("'s NIC (") != std::string::npos);
    CHECK(sentence.find("% busy; bound 0.") != std::string::npos);
}

// ps_sync, coarse, deterministic, one server (closed forms of training_schemes_test.cpp):
// fair C + U + 2N·S/B + 2L, fifo C + U + (N+1)·S/B + 2L; both are the critical path.
TEST_CASE("ps_sync coarse: the critical path is the closed form, fair and fifo") {
    const double c = 0.050, upd = 0.003, s = 10e6, bw = 1.25e9, lw = 20e-6, ls = 30e-6;
    for (int n : {2, 8}) {
        for (auto sharing : {compiler::SharingKind::Fair, compiler::SharingKind::Fifo}) {
            CAPTURE(n);
            CAPTURE(static_cast<int>(sharing));
            const auto spec = ps_sync_coarse(n, c, upd, s, bw, lw, ls, sharing);
            const Bounds b = explain::training_bounds(spec);
            const bool fair = sharing == compiler::SharingKind::Fair;
            const double step = c + upd + (fair ? 2.0 * n : n + 1.0) * s / bw + 2 * (lw + ls);
            CHECK(b.cycle_s == doctest::Approx(step).epsilon(1e-9));
            CHECK(resource(b, "ps.down").demand_s == doctest::Approx(n * s / bw));
            CHECK(resource(b, "ps").demand_s == doctest::Approx(upd));
            const auto r = solve_below(spec, b);
            check_exact(r.measures.front(), 1 / step);
        }
    }
}

// With unequal fair shares (share_ratio r < 1) the pulls no longer all end at N·S/B, so the
// fair path "all replies, then all pushes" is no bound; what remains stays below the closed
// form C + U + (3 + r)·S/B + 2L (N = 2, training_schemes_test.cpp), and the simulated
// throughput below the bound.
TEST_CASE("ps_sync coarse with share_ratio < 1: still a bound, the fair path dropped") {
    const double c = 0.050, upd = 0.003, s = 10e6, bw = 1.25e9, lw = 20e-6, ls = 30e-6;
    for (double ratio : {0.25, 0.853}) {
        CAPTURE(ratio);
        auto spec = ps_sync_coarse(2, c, upd, s, bw, lw, ls, compiler::SharingKind::Fair);
        spec.share_ratio = ratio;
        const Bounds b = explain::training_bounds(spec);
        const double step = c + upd + (3 + ratio) * s / bw + 2 * (lw + ls);
        CHECK(b.cycle_s <= step * (1 + 1e-9));
        CHECK(b.cycle_s < c + upd + 4 * s / bw + 2 * (lw + ls));
        const auto r = solve_below(spec, b);
        check_exact(r.measures.front(), 1 / step);
    }
}

// The ready-made ps_sync model at large N: the server NICs carry N·S/K each way per step and
// the bound (replies, then pushes, fair sharing) is within 1% of the simulated throughput.
TEST_CASE("ps_sync model at N = 128: within 1% of the bound, the server's NIC named") {
    compiler::CompileOptions o;
    o.overrides = {{"N", "128"}};
    compiler::Diagnostics diags;
    const std::string path = SGDNET_SOURCE_DIR "/models/ps_sync_coarse.sgdnet";
    const auto model = compiler::evaluate_file(path, o, diags);
    INFO(diags.render());
    REQUIRE(model.has_value());
    REQUIRE(model->training.has_value());
    const Bounds b = explain::training_bounds(*model->training);
    const auto net = compiler::compile_file(path, o, diags);
    REQUIRE(net.has_value());
    const auto r = solver::simulate(*net, sim_options(0.005));
    const double steps = r.measures.front().mean;
    CHECK(r.measures.front().ci_low <= b.bound);
    CHECK(steps >= 0.99 * b.bound);
    CHECK(b.cycle_what.find("ps[0]'s NIC") != std::string::npos);
    const auto ranked = explain::rank_resources(b, r);
    CHECK(ranked.front().bound.name.rfind("ps[", 0) == 0);
    const std::string sentence = explain::bottleneck_sentence(b, ranked, steps);
    CHECK(sentence.find("bottleneck: the step's critical path (ps[0]'s NIC") == 0);
}

// ps_async: every gradient is applied alone, so a shard's update bounds the sum of the
// workers' rates at 1/U; the fractional knapsack over workers gives exactly that.
TEST_CASE("ps_async: the shard's update bounds the sum of the workers' steps") {
    compiler::TrainingSpec spec = homogeneous(4, {net::Det{0.040}}, 1.25e9, 10e-6);
    spec.servers.push_back(compiler::ServerSpec{"ps", {net::Det{0.020}}, 1.25e9, 10e-6, {}});
    spec.sync = compiler::SyncKind::PsAsync;
    spec.model_bytes = 1e6;
    const Bounds b = explain::training_bounds(spec);
    CHECK_FALSE(b.sync);
    CHECK(b.binding == "ps");
    CHECK(b.bound == doctest::Approx(1 / 0.020));
    const auto r = solve_below(spec, b);
    CHECK(r.measures.front().mean >= 0.99 * b.bound);
}

// A straggler: the critical path is the slowest worker's compute when communication is free.
TEST_CASE("a straggler's compute is the critical path") {
    compiler::TrainingSpec spec =
        homogeneous(4, {net::Det{0.100}}, training::kInfiniteBandwidth, 0);
    spec.workers[2].speed = 0.5;
    spec.sync = compiler::SyncKind::AllreduceRing;
    spec.model_bytes = 1e6;
    const Bounds b = explain::training_bounds(spec);
    CHECK(b.cycle_s == doctest::Approx(0.200));
    CHECK(b.cycle_what == "the slowest worker's compute and update");
    CHECK(b.resources.front().name == "w[2]");
    CHECK(b.bound == doctest::Approx(5.0));
    const auto r = solve_below(spec, b);
    check_exact(r.measures.front(), 5.0);
}

// Hosts: two workers on one core share it, so each step needs 2C of that core.
TEST_CASE("host cores: the CPU work placed on a host over its cores") {
    compiler::TrainingSpec spec = homogeneous(2, {net::Det{0.050}}, 1.25e9, 0);
    spec.hosts.push_back(training::HostSpec{"h", 1.0, training::kInfiniteBandwidth, 0, {}});
    for (auto& w : spec.workers) w.host = 0;
    spec.sync = compiler::SyncKind::AllreduceRing;
    spec.model_bytes = 1e6;
    const Bounds b = explain::training_bounds(spec);
    const auto& h = resource(b, "h");
    CHECK(h.kind == ResourceKind::HostCores);
    CHECK(h.what == "host h's cores");
    CHECK(h.demand_s == doctest::Approx(0.100));
    CHECK(b.binding == "h");
    const auto r = solve_below(spec, b);
    CHECK(r.measures.front().mean >= 0.95 * b.bound);
}

// Fine ring: the buckets go one after the other, each 2(N−1) rounds of its bytes/N.
TEST_CASE("fine ring without overlap: compute, every bucket's rounds, update") {
    compiler::TrainingSpec spec = fine_ring(4, 6, 0.002, 0.004, 10e6, 1.25e9, 10e-6, 0.003);
    spec.overlap = false;
    spec.bucket_bytes = spec.first_bucket_bytes = 25e6;  // buckets of 3 layers: 30 MB each
    const Bounds b = explain::training_bounds(spec);
    const double round = 30e6 / 4 / 1.25e9 + 20e-6;
    CHECK(b.cycle_s == doctest::Approx(6 * 0.006 + 2 * 6 * round + 0.003));
    const auto r = solve_below(spec, b);
    check_exact(r.measures.front(), b.bound);
}

// A raw net: M/M/1 with λ = 1, E[S] = 0.8: both transitions fire at λ, the queue holds 4.
TEST_CASE("net_activity: firings and mean tokens of an M/M/1 queue") {
    const auto net = compile_text(R"(
        net mm1 {
          place queue = 0;
          transition arrive ~ exp(rate = 1 /s) { out queue; }
          transition serve ~ exp(mean = 800 ms) { in queue; }
        }
        measure thr = throughput(mm1.serve);
    )");
    const auto a = explain::net_activity(net, sim_options(0.01));
    REQUIRE(a.result.measures.size() == 1);
    REQUIRE(a.transitions.size() == 2);
    REQUIRE(a.places.size() == 1);
    for (const auto& t : a.transitions) CHECK(t.value == doctest::Approx(1.0).epsilon(0.03));
    CHECK(a.places.front().name == "mm1.queue");
    CHECK(a.places.front().value == doctest::Approx(4.0).epsilon(0.1));
}

namespace {

/// The breakdown of `spec`'s simulation; checks that every row's parts sum to its step.
std::vector<explain::StepParts> breakdown(const compiler::TrainingSpec& spec) {
    const Bounds b = explain::training_bounds(spec);
    const auto r =
        solver::simulate(explain::with_worker_step_times(lower(spec), spec), sim_options(0.002));
    const auto parts = explain::step_breakdown(spec, r);
    REQUIRE(parts.size() == spec.workers.size() + 1);
    CHECK(parts.back().worker == "all");
    for (const auto& p : parts) {
        CAPTURE(p.worker);
        const double sum = p.compute_s + p.communication_s + p.waiting_s + p.update_s;
        CHECK(sum == doctest::Approx(p.step_s).epsilon(1e-12));
        CHECK(p.ci_low <= p.step_s);
        CHECK(p.step_s <= p.ci_high);
    }
    return parts;
}

void check_parts(const explain::StepParts& p, double compute, double comm, double wait,
                 double update) {
    CAPTURE(p.worker);
    const double tol = 0.001 * (compute + comm + wait + update);
    CHECK(std::fabs(p.compute_s - compute) <= tol);
    CHECK(std::fabs(p.communication_s - comm) <= tol);
    CHECK(std::fabs(p.waiting_s - wait) <= tol);
    CHECK(std::fabs(p.update_s - update) <= tol);
}

}  // namespace

// Deterministic ring: compute C, the 2(N−1) transmissions exposed, their propagation (2l per
// round: the worker neither computes nor transmits) waiting, update U.
TEST_CASE("breakdown: ring without overlap") {
    const double c = 0.120, upd = 0.004, s = 44.7e6, bw = 1.25e9, l = 1e-3;
    compiler::TrainingSpec spec = homogeneous(4, {net::Det{c}}, bw, l, {net::Det{upd}});
    spec.sync = compiler::SyncKind::AllreduceRing;
    spec.model_bytes = s;
    const double tx = s / (4 * bw);
    for (const auto& p : breakdown(spec)) check_parts(p, c, 6 * tx, 6 * 2 * l, upd);
}

// With the coarse overlap φ = 0.5 the last h = φ·6(tx + 2l), three rounds, of the compute runs
// beside the first three rounds: three transmissions and three propagations stay exposed.
TEST_CASE("breakdown: ring with overlap hides h of the communication") {
    const double c = 0.120, upd = 0.004, s = 44.7e6, bw = 1.25e9, l = 1e-3;
    compiler::TrainingSpec spec = homogeneous(4, {net::Det{c}}, bw, l, {net::Det{upd}});
    spec.sync = compiler::SyncKind::AllreduceRing;
    spec.model_bytes = s;
    spec.overlap_fraction = 0.5;
    const double tx = s / (4 * bw), h = 3 * (tx + 2 * l);
    for (const auto& p : breakdown(spec)) {
        check_parts(p, c, 3 * tx, 3 * 2 * l, upd);
        CHECK(p.step_s == doctest::Approx(c - h + 6 * (tx + 2 * l) + upd).epsilon(0.002));
    }
}

// ps_sync fair, deterministic: the push and the reply, N·S/B each, are exposed; the server's
// update and both propagations are waiting.
TEST_CASE("breakdown: ps_sync waits for the server's update") {
    const double c = 0.050, upd = 0.003, s = 10e6, bw = 1.25e9, lw = 1e-3, ls = 2e-3;
    const auto spec = ps_sync_coarse(4, c, upd, s, bw, lw, ls, compiler::SharingKind::Fair);
    for (const auto& p : breakdown(spec)) check_parts(p, c, 8 * s / bw, upd + 2 * (lw + ls), 0);
}

// ps_sync fifo, deterministic: the replies leave the server one after the other, so each worker's
// reply and push take S/B each on its own NIC (exposed), and the step (C + U + (N+1)·S/B + 2L,
// the closed form of the bounds test above) leaves U + (N−1)·S/B and both propagations waiting.
TEST_CASE("breakdown: ps_sync fifo exposes one reply and one push per worker") {
    const double c = 0.050, upd = 0.003, s = 10e6, bw = 1.25e9, lw = 1e-3, ls = 2e-3;
    const int n = 4;
    const auto spec = ps_sync_coarse(n, c, upd, s, bw, lw, ls, compiler::SharingKind::Fifo);
    for (const auto& p : breakdown(spec)) {
        check_parts(p, c, 2 * s / bw, upd + (n - 1) * s / bw + 2 * (lw + ls), 0);
        const double step = c + upd + (n + 1) * s / bw + 2 * (lw + ls);
        CHECK(p.step_s == doctest::Approx(step).epsilon(0.002));
    }
}

// A straggler at half speed with free communication: the others wait C for it each step.
TEST_CASE("breakdown: a straggler makes the others wait") {
    compiler::TrainingSpec spec =
        homogeneous(4, {net::Det{0.100}}, training::kInfiniteBandwidth, 0, {net::Det{0.010}});
    spec.workers[2].speed = 0.5;
    spec.sync = compiler::SyncKind::AllreduceRing;
    spec.model_bytes = 1e6;
    const auto parts = breakdown(spec);
    check_parts(parts[0], 0.100, 0, 0.100, 0.010);
    check_parts(parts[2], 0.200, 0, 0, 0.010);
    check_parts(parts.back(), 0.125, 0, 0.075, 0.010);
}

// what_if: a param moves by ± the fraction (an array size to the nearest other integers), a
// param at 0 is skipped, and the values are those of a compile with the same --set pairs.
TEST_CASE("what_if: moved values, integers, skipped params, ranking") {
    const std::string text = R"(
        param N = 4;
        param C = 100 ms;
        param unused = 0;
        worker w[N] { compute = det(C); bandwidth = 1 Gbps; }
        training { sync = allreduce_ring; model_bytes = 1 MB; }
    )";
    auto compile = [&](const std::vector<std::pair<std::string, std::string>>& extra)
        -> std::optional<net::PetriNet> {
        compiler::CompileOptions o;
        o.overrides = extra;
        compiler::Diagnostics diags;
        return compiler::compile(text, "what_if.sgdnet", o, diags);
    };
    const std::vector<compiler::ParamValue> params{
        {"N", 4, ""}, {"C", 0.1, "s"}, {"unused", 0, ""}};
    const auto rows = explain::what_if(params, compile, sim_options(0.01), 0.1);
    REQUIRE(rows.size() == 3);
    // C sets the compute, most of the step: elasticity near −1; ranked first.
    CHECK(rows[0].param == "C");
    CHECK(rows[0].low_value == doctest::Approx(0.09));
    CHECK(rows[0].high_value == doctest::Approx(0.11));
    CHECK(rows[0].elasticity < -0.8);
    CHECK(rows[0].change_low > 0);
    const auto at = [&](double c) {
        return solver::simulate(*compile({{"C", std::to_string(c) + " s"}}), sim_options(0.01))
            .measures.front()
            .mean;
    };
    CHECK(rows[0].low == doctest::Approx(at(0.09)).epsilon(1e-12));
    CHECK(rows[1].param == "N");
    CHECK(rows[1].low_value == 3);
    CHECK(rows[1].high_value == 5);
    CHECK(rows[1].skipped.empty());
    CHECK(rows[2].param == "unused");
    CHECK(rows[2].skipped == "it is 0");
}

// The three forms of the sentence, on hand-made bounds and utilizations.
TEST_CASE("bottleneck_sentence: a saturated resource, the critical path, a busy resource, none") {
    Bounds b;
    b.cycle_bound = 10;
    b.cycle_what = "compute, rounds, update";
    b.bound = 10;
    b.binding = "cycle";
    explain::ResourceBound link{"w[0].up", ResourceKind::Link, "w[0]'s NIC (uplink)", 1, 0.098,
                                10.2};
    explain::ResourceBound cpu{"w[0]", ResourceKind::Compute, "w[0]'s compute and update", 1, 0.05,
                               20};
    b.resources = {link, cpu};
    auto use = [](const explain::ResourceBound& r, double u) {
        return explain::ResourceUse{r, solver::MeasureEstimate{"util." + r.name, u, u, u, ""}};
    };
    CHECK(explain::bottleneck_sentence(b, {use(link, 0.97), use(cpu, 0.49)}, 9.7) ==
          "bottleneck: w[0]'s NIC (uplink), 97% busy; bound 10.2 steps/s (10 with the rest of the "
          "step's critical path)");
    b.resources.front().bound = link.bound = 30;
    CHECK(explain::bottleneck_sentence(b, {use(cpu, 0.49), use(link, 0.33)}, 9.5) ==
          "bottleneck: the step's critical path (compute, rounds, update); bound 10 steps/s; the "
          "busiest resource is w[0]'s compute and update, 49% busy");
    CHECK(explain::bottleneck_sentence(b, {use(cpu, 0.49), use(link, 0.33)}, 5) ==
          "no resource saturates: 5 steps/s is 50% of the bound 10 steps/s; the busiest resource "
          "is w[0]'s compute and update, 49% busy");
    CHECK(explain::bottleneck_sentence(b, {use(link, 0.99), use(cpu, 0.49)}, 6) ==
          "bottleneck: w[0]'s NIC (uplink), 99% busy; 6 steps/s is 20% of its bound 30 steps/s "
          "(busy but not at full rate)");
}

// The bounds need no net: 100,000 workers take a moment (demands are kept per worker that uses
// a resource, not per worker and resource).
TEST_CASE("bounds at N = 100,000: ring links and ps_sync shard NICs in closed form") {
    const int n = 100000;
    const double s = 100e6, bw = 1.25e9;
    compiler::TrainingSpec ring = homogeneous(n, {net::Det{0.1}}, bw, 10e-6);
    ring.sync = compiler::SyncKind::AllreduceRing;
    ring.model_bytes = s;
    const Bounds r = explain::training_bounds(ring);
    CHECK(resource(r, "w[99999].up").demand_s ==
          doctest::Approx(2.0 * (n - 1) * s / (n * bw)).epsilon(1e-12));
    CHECK(r.cycle_s == doctest::Approx(0.1 + 2.0 * (n - 1) * (s / (n * bw) + 20e-6)));

    compiler::TrainingSpec ps = homogeneous(n, {net::Det{0.1}}, bw, 0);
    for (int k = 0; k < 8; ++k)
        ps.servers.push_back(
            compiler::ServerSpec{"ps[" + std::to_string(k) + "]", {net::Det{0.01}}, 4 * bw, 0, {}});
    ps.sync = compiler::SyncKind::PsSync;
    ps.model_bytes = s;
    const Bounds p = explain::training_bounds(ps);
    const double nic = n * (s / 8) / (4 * bw);  // one direction of a shard per step
    CHECK(resource(p, "ps[3].down").demand_s == doctest::Approx(nic));
    CHECK(p.cycle_s == doctest::Approx(0.01 + 2 * nic + 0.1));  // fair: replies, compute, pushes
    CHECK(p.bound == doctest::Approx(1 / p.cycle_s));
}
