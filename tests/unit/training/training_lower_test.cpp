// Unit tests of the training lowering: DDP bucketing, gradient-ready order, element names,
// measures, granularity reduction and diagnostics, from TrainingSpecs and from .sgdnet text.
#include <doctest/doctest.h>

#include <string>

#include "compiler/compile.hpp"
#include "training/ddp_buckets.hpp"
#include "training/training_spec.hpp"

using namespace sgdnet;
using namespace sgdnet::compiler;

namespace {

std::vector<LayerSpec> layers_of(const std::vector<double>& bytes) {
    std::vector<LayerSpec> out;
    for (std::size_t k = 0; k < bytes.size(); ++k) {
        out.push_back({"layer" + std::to_string(k), {net::Det{0.001}}, {net::Det{0.002}}, bytes[k], {}});
    }
    return out;
}

std::optional<net::PetriNet> compile_text(const std::string& text, Diagnostics& diags,
                                          CompileOptions opts = {}) {
    return compile(text, "t.sgdnet", opts, diags);
}

const char* kFineRing = R"(
model fine;
param N = 4;
layers net {
  layer0: fwd = det(1 ms), bwd = det(2 ms), bytes = 3 MB;
  layer1: fwd = det(1 ms), bwd = det(2 ms), bytes = 3 MB;
  layer2: fwd = det(1 ms), bwd = det(2 ms), bytes = 3 MB;
}
worker w[N] { layers = net; update = det(1 ms); bandwidth = 10 Gbps; latency = 10 us;
              speed = i == 0 ? 0.5 : 1; batch = i + 1; }
training { sync = allreduce_ring; bucket = 5 MB; }
)";

}  // namespace

TEST_CASE("gradient-ready order: reverse layer order unless the table records one") {
    auto layers = layers_of({1, 2, 3});
    CHECK(gradient_ready_order(layers) == std::vector<int>{2, 1, 0});
    layers[0].bwd_order = 1;
    layers[1].bwd_order = 0;
    layers[2].bwd_order = 2;
    CHECK(gradient_ready_order(layers) == std::vector<int>{1, 0, 2});
}

TEST_CASE("DDP buckets: reverse order, caps, first_bucket; a bucket closes once it reaches its cap") {
    // Ready order: 5 (4 B), 4 (4 B), 3 (9 B), 2 (1 B), 1 (1 B), 0 (2 B).
    auto layers = layers_of({2, 1, 1, 9, 4, 4});
    SUBCASE("cap 8, first cap 8") {
        auto b = make_buckets(layers, 8, 8);
        REQUIRE(b.size() == 3);
        CHECK(b[0].layers == std::vector<int>{5, 4});
        CHECK(b[0].bytes == 8);
        CHECK(b[1].layers == std::vector<int>{3});  // 9 B >= 8 B closes it at once
        CHECK(b[2].layers == std::vector<int>{2, 1, 0});
        CHECK(b[2].bytes == 4);
    }
    SUBCASE("cap 6: a bucket exceeds its cap by its last layer (DDP), not split before it") {
        // 5 (4 B): 4 < 6, stays open; + 4 (4 B): 8 >= 6, closed at 8 B. 3 (9 B): closed alone.
        // 2, 1, 0: 1 + 1 + 2 = 4 B < 6, the remainder. ("At most 6 B" would give {5} {4} {3}
        // {2, 1, 0}.)
        auto b = make_buckets(layers, 6, 6);
        REQUIRE(b.size() == 3);
        CHECK(b[0].layers == std::vector<int>{5, 4});
        CHECK(b[0].bytes == 8);
        CHECK(b[1].layers == std::vector<int>{3});
        CHECK(b[2].layers == std::vector<int>{2, 1, 0});
    }
    SUBCASE("a layer larger than the cap joins the open bucket") {
        // Ready order 1 (1 B), 0 (9 B), cap 4: 1 < 4 stays open; + 9 B = 10 >= 4 closes {1, 0}.
        auto b = make_buckets(layers_of({9, 1}), 4, 4);
        REQUIRE(b.size() == 1);
        CHECK(b[0].layers == std::vector<int>{1, 0});
        CHECK(b[0].bytes == 10);
    }
    SUBCASE("first cap 4 then cap 100") {
        auto b = make_buckets(layers, 4, 100);
        REQUIRE(b.size() == 2);
        CHECK(b[0].layers == std::vector<int>{5});
        CHECK(b[1].bytes == 17);
    }
    SUBCASE("one bucket when the cap exceeds the model") {
        CHECK(make_buckets(layers, 1e9, 1e9).size() == 1);
    }
}

TEST_CASE("spec errors are reported, not thrown") {
    TrainingSpec spec;
    net::PetriNet net;
    CHECK(lower_training_spec(spec, net) == "the training system has no workers");
    WorkerSpec w;
    w.name = "w[0]";
    w.compute = net::Distribution{net::Det{0.1}};
    spec.workers.push_back(w);
    spec.sync = SyncKind::PsSync;
    CHECK(lower_training_spec(spec, net).find("server") != std::string::npos);
    spec.sync = SyncKind::AllreduceRing;
    spec.granularity = Granularity::Fine;
    CHECK(lower_training_spec(spec, net).find("layer table") != std::string::npos);
}

TEST_CASE("the docs/language.md §1 example compiles to a readable ring") {
    const char* text = R"(
model ring8;
param N  = 8;
param bw = 10 Gbps;
worker w[N] {
  compute   = lognormal(mean = 120 ms, cv = 0.05);
  update    = det(4 ms);
  bandwidth = bw;
  latency   = 20 us;
  batch     = 32;
}
training { sync = allreduce_ring; granularity = coarse; model_bytes = 44.7 MB; }
)";
    Diagnostics diags;
    auto net = compile_text(text, diags);
    INFO(diags.render());
    REQUIRE(net);
    CHECK(net->find_transition("w[3].compute"));
    CHECK(net->find_transition("w[3].update"));
    // The 2(N−1) = 14 rounds are folded: one transmission per worker, fired once per round.
    CHECK(net->find_transition("ring.w[2]"));
    CHECK(net->find_transition("ring.w[7].begin"));
    CHECK(net->find_transition("ring.w[7].end"));
    CHECK_FALSE(net->find_transition("ring.round0.w[0]"));
    const auto& begin = net->transitions[net->find_transition("ring.w[7].begin")->value];
    REQUIRE(begin.outputs.size() == 2);
    CHECK(net->places[begin.outputs[1].place.value].name == "ring.w[7].todo");
    CHECK(begin.outputs[1].multiplicity == 14);
    const auto& end = net->transitions[net->find_transition("ring.w[7].end")->value];
    REQUIRE(end.inhibitors.size() == 1);
    CHECK(net->places[end.inhibitors[0].place.value].name == "ring.w[7].todo");
    CHECK(end.inputs[0].multiplicity == 14);
    // O(N) elements: per worker a compute, an update, and per bucket begin, transmission,
    // arrival, end.
    CHECK(net->transitions.size() == 8 * 6);
    REQUIRE(net->measures.size() >= 3);
    CHECK(net->measures[0].name == "steps_per_s");
    CHECK(net->measures[1].name == "samples_per_s");
    CHECK(net->measures[2].name == "step_time");
    // samples_per_s = steps_per_s × Σ batch: each of the 8 terms has coefficient 8·32/8 = 32.
    for (const auto& t : net->measures[1].terms) CHECK(t.coef == doctest::Approx(32));
    const auto* t = &net->transitions[net->find_transition("ring.w[2]")->value];
    // 44.7 MB / 8 over 10 Gbps = 4.47 ms.
    CHECK(net::mean(t->delay) == doctest::Approx(44.7e6 / 8 / 1.25e9));
}

TEST_CASE("fine model: per-layer names, buckets, straggler speed; --granularity coarse reduces") {
    Diagnostics diags;
    auto fine = compile_text(kFineRing, diags);
    INFO(diags.render());
    REQUIRE(fine);
    CHECK(fine->find_transition("w[3].bwd.layer2"));
    CHECK(fine->find_transition("w[0].fwd.layer0"));
    // Buckets of 5 MB (first_bucket = bucket) over three 3 MB layers, DDP's rule: layer2 (3 MB
    // < 5 MB) stays open, + layer1 = 6 MB >= 5 MB closes it; layer0 is the last bucket.
    // Two buckets: {layer2, layer1}, {layer0}.
    CHECK(fine->find_transition("ring.bucket1.w[1]"));
    CHECK_FALSE(fine->find_transition("ring.bucket2.w[1]"));
    // Worker 0 runs at half speed: its layer times double.
    const auto& slow = fine->transitions[fine->find_transition("w[0].bwd.layer1")->value];
    const auto& fast = fine->transitions[fine->find_transition("w[1].bwd.layer1")->value];
    CHECK(net::mean(slow.delay) == doctest::Approx(0.004));
    CHECK(net::mean(fast.delay) == doctest::Approx(0.002));
    // Heterogeneous batches: samples_per_s coefficient = Σ batch / N = (1+2+3+4)/4.
    CHECK(fine->measures[1].terms[0].coef == doctest::Approx(2.5));

    CompileOptions coarse_opts;
    coarse_opts.granularity = Granularity::Coarse;
    Diagnostics diags2;
    auto coarse = compile_text(kFineRing, diags2, coarse_opts);
    INFO(diags2.render());
    REQUIRE(coarse);
    CHECK(coarse->transitions.size() < fine->transitions.size());
    // The reduced chain: compute = Σ fwd + Σ bwd = 9 ms, divided by speed 0.5 for worker 0.
    const auto& c0 = coarse->transitions[coarse->find_transition("w[0].compute")->value];
    CHECK(net::mean(c0.delay) == doctest::Approx(0.018));
    CHECK(coarse->find_transition("ring.w[1]"));
}

TEST_CASE("diagnostics of the training block") {
    SUBCASE("missing sync") {
        Diagnostics diags;
        auto net = compile_text("worker w[2] { compute = det(1 ms); }\ntraining { model_bytes = 1 MB; }\n",
                                diags);
        CHECK_FALSE(net);
        CHECK(diags.render().find("sync") != std::string::npos);
    }
    SUBCASE("missing model_bytes without layers") {
        Diagnostics diags;
        auto net = compile_text(
            "worker w[2] { compute = det(1 ms); }\ntraining { sync = allreduce_ring; }\n", diags);
        CHECK_FALSE(net);
        CHECK(diags.render().find("model_bytes") != std::string::npos);
    }
    SUBCASE("workers without a training block") {
        Diagnostics diags;
        auto net = compile_text("worker w[2] { compute = det(1 ms); }\n", diags);
        CHECK_FALSE(net);
        CHECK(diags.render().find("training") != std::string::npos);
    }
}

TEST_CASE("parameter-server shards, fifo, ssp and gossip elements") {
    const char* text = R"(
worker w[3] { compute = det(10 ms); bandwidth = 10 Gbps; }
server ps[2] { update = det(1 ms); bandwidth = 25 Gbps; }
training { sync = ps_ssp(staleness = 2); model_bytes = 10 MB; sharing = fifo; }
)";
    Diagnostics diags;
    auto net = compile_text(text, diags);
    INFO(diags.render());
    REQUIRE(net);
    CHECK(net->find_transition("push.w[2].ps[1]"));
    CHECK(net->find_transition("pull.ps[1].w[0]"));
    CHECK(net->find_transition("ssp.advance"));
    CHECK(net->find_place("ps[1].down.free"));
    CHECK(net->places[net->find_place("w[0].ssp.credit")->value].initial == 3);
    // Each shard gets 5 MB: 5 MB over min(10, 25) Gbps = 4 ms.
    const auto& push = net->transitions[net->find_transition("push.w[2].ps[1]")->value];
    CHECK(net::mean(push.delay) == doctest::Approx(4e-3));
}

TEST_CASE("generated elements point at their declarations") {
    Diagnostics diags;
    auto net = compile_text(kFineRing, diags);
    INFO(diags.render());
    REQUIRE(net);
    const auto& bwd = net->transitions[net->find_transition("w[2].bwd.layer1")->value];
    CHECK(bwd.where.begin.line == 9);  // `worker w[N] {` is line 9 of kFineRing
    const auto& ring = net->transitions[net->find_transition("ring.bucket0.w[2]")->value];
    CHECK(ring.where.begin.line == 11);  // the training block
}

TEST_CASE("fine parameter-server messages fuse consecutive tensors up to `fusion`") {
    const std::string base = R"(
model fused;
layers net {
  layer0: fwd = det(1 ms), bwd = det(2 ms), bytes = 3 MB;
  layer1: fwd = det(1 ms), bwd = det(2 ms), bytes = 3 MB;
  layer2: fwd = det(1 ms), bwd = det(2 ms), bytes = 3 MB;
}
server ps { update = det(1 ms); bandwidth = 1 Gbps; }
worker w[2] { layers = net; bandwidth = 1 Gbps; }
)";
    // Default 4 MiB: 3 MB + 3 MB does not fit, so every layer is a message of its own,
    // named after its layer, in gradient-ready order (layer2 first).
    Diagnostics d1;
    auto apart = compile_text(base + "training { sync = ps_sync; }\n", d1);
    INFO(d1.render());
    REQUIRE(apart);
    for (const char* l : {"layer0", "layer1", "layer2"}) {
        CHECK(apart->find_place(std::string("push.w[0].ps.") + l + ".turn"));
    }
    // 10 MB: the three layers (9 MB) are one message, named after its first layer.
    Diagnostics d2;
    auto fused = compile_text(base + "training { sync = ps_sync; fusion = 10 MB; }\n", d2);
    INFO(d2.render());
    REQUIRE(fused);
    CHECK(fused->find_place("push.w[0].ps.layer2.turn"));
    CHECK_FALSE(fused->find_place("push.w[0].ps.layer1.turn"));
    CHECK_FALSE(fused->find_place("push.w[0].ps.layer0.turn"));
    CHECK(fused->transitions.size() < apart->transitions.size());
}
