// Unit tests of hosts and per-message costs in the training lowering: unchanged nets at the defaults, CPU-job and message shapes, host NICs, util.HOST and the spec checks.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "compiler/compile.hpp"
#include "training/training_spec.hpp"

using namespace sgdnet;
using namespace sgdnet::training;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

HostSpec host(const std::string& name, double cores, double bw_Bps = kInf, double latency_s = 0) {
    HostSpec h;
    h.name = name;
    h.cores = cores;
    h.bandwidth_Bps = bw_Bps;
    h.latency_s = latency_s;
    return h;
}

/// Three workers (one slower) and two shards with NICs, latencies and updates; a layer table
/// for fine granularity; a coarse overlap fraction.
TrainingSpec system_of(SyncKind sync, Granularity g, SharingKind sharing) {
    TrainingSpec spec;
    for (int i = 0; i < 3; ++i) {
        WorkerSpec w;
        w.name = "w[" + std::to_string(i) + "]";
        w.compute = net::Distribution{net::Det{0.010}};
        for (int k = 0; k < 3; ++k) {
            w.layers.push_back(LayerSpec{"l" + std::to_string(k), {net::Det{0.001}},
                                         {net::Exp{500}}, 3e6, {}});
        }
        w.update = net::Distribution{net::Det{0.001}};
        w.speed = i == 0 ? 0.5 : 1;
        w.bandwidth_Bps = 1.25e9;
        w.latency_s = 10e-6;
        spec.workers.push_back(w);
    }
    for (int s = 0; s < 2; ++s) {
        spec.servers.push_back(
            ServerSpec{"ps[" + std::to_string(s) + "]", {net::Det{0.002}}, 3e9, 5e-6, {}});
    }
    spec.sync = sync;
    spec.staleness = 1;
    spec.granularity = g;
    spec.sharing = sharing;
    spec.model_bytes = 9e6;
    spec.bucket_bytes = spec.first_bucket_bytes = 5e6;
    spec.overlap_fraction = g == Granularity::Coarse ? 0.5 : 0;
    return spec;
}

net::PetriNet lowered(const TrainingSpec& spec) {
    net::PetriNet net;
    net.name = "spec";
    const std::string error = lower_training_spec(spec, net);
    INFO(error);
    REQUIRE(error.empty());
    REQUIRE(net::validate(net).empty());
    return net;
}

const net::Transition& transition(const net::PetriNet& net, const std::string& name) {
    auto t = net.find_transition(name);
    INFO(name);
    REQUIRE(t.has_value());
    return net.transitions[t->value];
}

const net::Measure* measure(const net::PetriNet& net, const std::string& name) {
    for (const auto& m : net.measures) {
        if (m.name == name) return &m;
    }
    return nullptr;
}

std::vector<std::string> input_names(const net::PetriNet& net, const net::Transition& t) {
    std::vector<std::string> out;
    for (const auto& a : t.inputs) out.push_back(net.places[a.place.value].name);
    return out;
}

}  // namespace

TEST_CASE("hosts of infinite cores without a NIC and zero message costs leave the net unchanged") {
    for (SyncKind sync : {SyncKind::AllreduceRing, SyncKind::AllreduceTree, SyncKind::Gossip,
                          SyncKind::PsSync, SyncKind::PsAsync, SyncKind::PsSsp}) {
        for (Granularity g : {Granularity::Coarse, Granularity::Fine}) {
            for (SharingKind sharing : {SharingKind::Fair, SharingKind::Fifo}) {
                CAPTURE(static_cast<int>(sync));
                CAPTURE(static_cast<int>(g));
                CAPTURE(static_cast<int>(sharing));
                const TrainingSpec plain = system_of(sync, g, sharing);
                const net::PetriNet expected = lowered(plain);
                // Every node alone on a host of its own.
                TrainingSpec own = plain;
                for (auto& w : own.workers) {
                    w.host = static_cast<int>(own.hosts.size());
                    own.hosts.push_back(host(w.name + ".host", kInf));
                }
                for (auto& s : own.servers) {
                    s.host = static_cast<int>(own.hosts.size());
                    own.hosts.push_back(host(s.name + ".host", kInf));
                }
                CHECK(lowered(own) == expected);
                // Everything on one host: messages between its nodes use their own NICs.
                TrainingSpec one = plain;
                one.hosts = {host("h", kInf)};
                for (auto& w : one.workers) w.host = 0;
                for (auto& s : one.servers) s.host = 0;
                CHECK(lowered(one) == expected);
            }
        }
    }
}

// The sizes of docs/training.md's table (N = 8, each fine model and its coarse reduction),
// which predate hosts: the ready-made models (which place nothing on hosts) lower to the same
// nets.
TEST_CASE("the ready-made models keep their net sizes") {
    struct Size {
        const char* model;
        Granularity granularity;
        std::size_t places, transitions;
    };
    const Granularity fine = Granularity::Fine, coarse = Granularity::Coarse;
    for (Size s : {Size{"allreduce_ring_fine", fine, 2824, 2744},
                   Size{"allreduce_ring_fine", coarse, 64, 48},
                   Size{"allreduce_tree_fine", fine, 2855, 2764},
                   Size{"allreduce_tree_fine", coarse, 71, 48},
                   Size{"ps_sync_fine", fine, 7078, 5776}, Size{"ps_sync_fine", coarse, 96, 74},
                   Size{"ps_async_fine", fine, 7974, 6672},
                   Size{"ps_async_fine", coarse, 126, 104},
                   Size{"gossip_fine", fine, 2680, 2664}, Size{"gossip_fine", coarse, 112, 96}}) {
        CAPTURE(s.model);
        CAPTURE(static_cast<int>(s.granularity));
        compiler::CompileOptions opts;
        opts.overrides.push_back({"N", "8"});
        opts.granularity = s.granularity;
        compiler::Diagnostics diags;
        auto net = compiler::compile_file(
            std::string(SGDNET_SOURCE_DIR) + "/models/" + s.model + ".sgdnet", opts, diags);
        INFO(diags.render());
        REQUIRE(net);
        CHECK(net->places.size() == s.places);
        CHECK(net->transitions.size() == s.transitions);
    }
}

TEST_CASE("a CPU job on a host of finite cores: NAME.begin, NAME.running, HOST.cpu.active") {
    TrainingSpec spec = system_of(SyncKind::AllreduceRing, Granularity::Coarse, SharingKind::Fair);
    spec.overlap_fraction = 0;
    spec.hosts = {host("h", 2), host("idle", 4)};
    spec.workers[0].host = 0;
    spec.workers[1].host = 0;
    const net::PetriNet net = lowered(spec);
    const auto& begin = transition(net, "w[0].compute.begin");
    CHECK(begin.kind == net::TransitionKind::Immediate);
    CHECK(input_names(net, begin) == std::vector<std::string>{"w[0].ready"});
    const auto& job = transition(net, "w[0].compute");
    CHECK(job.kind == net::TransitionKind::Timed);
    CHECK(input_names(net, job) ==
          std::vector<std::string>{"w[0].compute.running", "h.cpu.active"});
    CHECK(job.memory == net::Memory::Age);
    REQUIRE(job.speed.has_value());
    // speed = min(1, 2 / k) for k jobs in progress: 1 for one or two, 2/3 for three.
    const uint32_t active = net.find_place("h.cpu.active")->value;
    std::vector<uint32_t> marking(net.places.size(), 0);
    for (uint32_t k : {1u, 2u, 3u, 4u}) {
        marking[active] = k;
        CHECK(job.speed->evaluate(marking.data()) == doctest::Approx(std::min(1.0, 2.0 / k)));
    }
    // The worker's update is a job too; w[2] (no host) keeps its plain transitions.
    CHECK(net.find_transition("w[1].update.begin"));
    CHECK_FALSE(net.find_transition("w[2].compute.begin"));
    CHECK_FALSE(transition(net, "w[2].compute").speed.has_value());
    // util.HOST = average of min(k, C) / C, for every host of finite cores, used or not.
    const net::Measure* util = measure(net, "util.h");
    REQUIRE(util);
    CHECK(util->kind == net::Measure::Kind::TimeAverage);
    marking[active] = 1;
    CHECK(util->expr.evaluate(marking.data()) == doctest::Approx(0.5));
    marking[active] = 3;
    CHECK(util->expr.evaluate(marking.data()) == doctest::Approx(1.0));
    CHECK(measure(net, "util.idle"));
    CHECK(net.measures.back().name == "util.idle");
}

TEST_CASE("fine compute, backward tail and server updates are CPU jobs of their hosts") {
    TrainingSpec fine = system_of(SyncKind::PsAsync, Granularity::Fine, SharingKind::Fair);
    fine.hosts = {host("h", 1)};
    fine.workers[1].host = 0;
    fine.servers[0].host = 0;
    const net::PetriNet net = lowered(fine);
    CHECK(transition(net, "w[1].fwd.l0").speed.has_value());
    CHECK(net.find_transition("w[1].bwd.l2.begin"));
    CHECK(transition(net, "ps[0].update.w[2].l2").speed.has_value());
    CHECK_FALSE(transition(net, "ps[1].update.w[2].l2").speed.has_value());

    TrainingSpec coarse = system_of(SyncKind::PsSync, Granularity::Coarse, SharingKind::Fair);
    coarse.hosts = {host("h", 1)};
    coarse.workers[0].host = 0;
    coarse.servers[1].host = 0;
    const net::PetriNet c = lowered(coarse);
    CHECK(transition(c, "w[0].backward_tail").speed.has_value());
    CHECK(transition(c, "w[0].compute").speed.has_value());
    CHECK(transition(c, "ps[1].update").speed.has_value());
    // ps_* gates the next compute with the backward tail: an input of the compute's begin.
    const auto in = input_names(c, transition(c, "w[0].compute.begin"));
    CHECK(std::find(in.begin(), in.end(), "w[0].backward_tail.done") != in.end());
}

TEST_CASE("message overhead and CPU per byte: M.overhead, M.cpu.send, M.cpu.recv, M.deliver") {
    TrainingSpec spec = system_of(SyncKind::PsSync, Granularity::Coarse, SharingKind::Fair);
    spec.overlap_fraction = 0;
    spec.message_overhead_s = 100e-6;
    spec.comm_cpu_s_per_byte = 1e-9;
    spec.hosts = {host("h", 2)};
    spec.servers[0].host = 0;
    const net::PetriNet net = lowered(spec);
    // On a host of infinite cores the overhead is a plain delay, each message its own job.
    const auto& overhead = transition(net, "push.w[1].ps[0].overhead");
    CHECK(net::mean(overhead.delay) == doctest::Approx(100e-6));
    CHECK(overhead.servers == net::kInfiniteServers);
    CHECK(input_names(net, overhead) == std::vector<std::string>{"push.w[1].ps[0].queued"});
    // The pull replies of ps[0] pay theirs on h, sharing its cores.
    CHECK(net.find_transition("pull.ps[0].w[1].overhead.begin"));
    CHECK(transition(net, "pull.ps[0].w[1].overhead").speed.has_value());
    // 4.5 MB per shard at 1 ns/B: 4.5 ms at each end; ps[0]'s end is on h.
    const auto& send = transition(net, "push.w[1].ps[0].cpu.send");
    CHECK(net::mean(send.delay) == doctest::Approx(4.5e-3));
    CHECK_FALSE(send.speed.has_value());
    CHECK(transition(net, "push.w[1].ps[0].cpu.recv").speed.has_value());
    CHECK(input_names(net, transition(net, "push.w[1].ps[0].deliver")) ==
          std::vector<std::string>{"push.w[1].ps[0].transferred",
                                   "push.w[1].ps[0].cpu.send.done",
                                   "push.w[1].ps[0].cpu.recv.done"});
    // Both jobs start with the transmission: `M.start`-less fair messages fork them from the
    // overhead's end.
    const auto& overhead_out = overhead.outputs;
    std::vector<std::string> outs;
    for (const auto& a : overhead_out) outs.push_back(net.places[a.place.value].name);
    CHECK(outs == std::vector<std::string>{"push.w[1].ps[0].sending", "w[1].up.active",
                                           "ps[0].down.active", "push.w[1].ps[0].cpu.send.running",
                                           "push.w[1].ps[0].cpu.recv.running", "h.cpu.active"});
}

TEST_CASE("ring messages through a host NIC are shared, not exclusive") {
    TrainingSpec spec = system_of(SyncKind::AllreduceRing, Granularity::Coarse, SharingKind::Fifo);
    spec.overlap_fraction = 0;
    spec.workers.push_back(spec.workers.back());
    spec.workers.back().name = "w[3]";
    spec.hosts = {host("h[0]", kInf, 2.5e9, 5e-6), host("h[1]", kInf, 2.5e9, 5e-6)};
    for (int i = 0; i < 4; ++i) spec.workers[static_cast<std::size_t>(i)].host = i / 2;
    const net::PetriNet net = lowered(spec);
    // w[0] → w[1] inside h[0]: own NICs, exclusive; w[1] → w[2] through h[0].up and h[1].down
    // in the fifo mode of `sharing`, at the hosts' bandwidth and latency.
    CHECK(net.find_place("h[0].up.free"));
    CHECK(net.find_place("h[1].down.free"));
    CHECK(net.find_transition("ring.w[1].start"));
    CHECK_FALSE(net.find_transition("ring.w[0].start"));
    CHECK(net::mean(transition(net, "ring.w[1]").delay) == doctest::Approx(9e6 / 4 / 2.5e9));
    CHECK(net::mean(transition(net, "ring.w[1].arrive").delay) == doctest::Approx(10e-6));
    CHECK(net::mean(transition(net, "ring.w[0].arrive").delay) == doctest::Approx(20e-6));
    CHECK(measure(net, "util.h[0].up"));
    CHECK(measure(net, "util.w[0].up"));
    CHECK_FALSE(measure(net, "util.w[1].up"));
}

TEST_CASE("hosts and message costs are checked") {
    auto error_of = [](const TrainingSpec& spec) {
        net::PetriNet net;
        return lower_training_spec(spec, net);
    };
    const TrainingSpec base = system_of(SyncKind::PsSync, Granularity::Coarse, SharingKind::Fair);
    TrainingSpec spec = base;
    spec.workers[1].host = 0;
    CHECK(error_of(spec) == "worker w[1]: host index 0 is out of range (0 hosts)");
    spec = base;
    spec.hosts = {host("h", 1)};
    spec.servers[1].host = -1;
    CHECK(error_of(spec) == "server ps[1]: host index -1 is out of range (1 hosts)");
    spec = base;
    spec.hosts = {host("h", 0)};
    CHECK(error_of(spec) == "host h: cores must be > 0");
    spec.hosts = {host("h", 1, 0)};
    CHECK(error_of(spec) == "host h: bandwidth must be > 0");
    spec.hosts = {host("h", 1, 1e9, -1e-6)};
    CHECK(error_of(spec) == "host h: latency must be >= 0");
    spec = base;
    spec.message_overhead_s = -1e-6;
    CHECK(error_of(spec) == "message_overhead must be >= 0");
    spec = base;
    spec.comm_cpu_s_per_byte = -1e-9;
    CHECK(error_of(spec) == "comm_cpu must be >= 0");
}
