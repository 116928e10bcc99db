// Unit tests of layer tables: `layers NAME = profile("…")` through profile::load_profile, and
// the optional `order` column of written tables.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "compiler/compile.hpp"
#include "frontend/parse.hpp"
#include "profile/profile_import.hpp"
#include "compiler/resolve.hpp"
#include "training/ddp_buckets.hpp"
#include "training/training_spec.hpp"
#include "net/distribution.hpp"

using namespace sgdnet::compiler;
using namespace sgdnet::profile;
namespace net = sgdnet::net;

namespace {

std::string profiles_dir() { return std::string(SGDNET_TEST_DATA_DIR) + "/profiles"; }

nlohmann::json read_json(const std::string& name) {
    std::ifstream in(profiles_dir() + "/" + name);
    return nlohmann::json::parse(in);
}

/// Resolves `text` (a model file in tests/data/profiles, so relative profile paths work).
struct Run {
    Diagnostics diags;
    Ast ast;
    Resolved resolved;
    explicit Run(const std::string& text) {
        ast = parse(diags.add_source("m.sgdnet", text), diags);
        REQUIRE_MESSAGE(!diags.has_errors(), diags.render());
        resolved = resolve(ast, {}, profiles_dir(), diags);
    }
    std::shared_ptr<const LayerTable> table(const std::string& name) {
        const auto* v = resolved.scope.find(name);
        REQUIRE(v);
        REQUIRE_MESSAGE(*v, diags.render());
        return std::get<std::shared_ptr<const LayerTable>>(**v);
    }
    bool says(const std::string& message) const {
        return diags.render().find(message) != std::string::npos;
    }
};

double mean_of(const net::Distribution& d) { return net::mean(d); }

}  // namespace

TEST_CASE("profile(): the importer's tables, tails folded in, loss counted once") {
    for (const char* wl : {"mlp", "resnet18"}) {
        CAPTURE(wl);
        Run r(std::string("layers t = profile(\"") + wl + "_layers.json\");");
        CHECK_MESSAGE(!r.diags.has_errors(), r.diags.render());
        auto t = r.table("t");
        const auto j = read_json(std::string(wl) + "_layers.json");
        const auto& tot = j["totals"];
        REQUIRE(t->layers.size() == j["layers"].size());
        // compute = zero_grad + forward + backward; forward_s already holds the loss
        // (forward_s - model_forward_s = loss_s), so loss_s is not added again.
        const double zg = tot["zero_grad_s"]["mean"], fw = tot["forward_s"]["mean"],
                     bw = tot["backward_s"]["mean"], loss = tot["loss_s"]["mean"];
        REQUIRE(t->compute);
        CHECK(mean_of(*t->compute) == doctest::Approx(zg + fw + bw).epsilon(1e-12));
        CHECK(loss > 1e-5);  // so the check above would fail if the loss were added twice
        CHECK(fw - double(tot["model_forward_s"]["mean"]) == doctest::Approx(loss).epsilon(1e-6));
        REQUIRE(t->update);
        CHECK(mean_of(*t->update) == doctest::Approx(double(tot["optimizer_s"]["mean"])));
        // Tails folded into the layers: Σ fwd + Σ bwd = compute (docs/profiles.md, "Tails").
        double sum = 0, gaps = 0;
        for (std::size_t k = 0; k < t->layers.size(); ++k) {
            sum += mean_of(t->layers[k].fwd) + mean_of(t->layers[k].bwd);
            gaps += double(j["layers"][k]["fwd_s"]["mean"]) + double(j["layers"][k]["bwd_s"]["mean"]);
            CHECK(t->layers[k].bwd_order == int(j["layers"][k]["bwd_order"]));
            CHECK(t->layers[k].bytes == double(j["layers"][k]["param_bytes"]));
        }
        CHECK(sum == doctest::Approx(mean_of(*t->compute)).epsilon(1e-12));
        CHECK(sum > gaps);  // the gap times alone miss zero_grad and the tails
    }
    Run r("layers mlp = profile(\"mlp_layers.json\");");
    auto t = r.table("mlp");
    // PyTorch names become identifiers (they name generated transitions `W.fwd.IDENT`).
    CHECK(t->layers[0].name == "net_0");
    CHECK(t->layers[3].name == "net_6");
}

TEST_CASE("profile(): a Chrome trace gives forward times, apportioned backward and warnings") {
    // tiny_trace.json (see profile_import_test.cpp): zero_grad 50 us, forward 320 us, backward
    // 600 us per step → compute = 970 us; optimizer 80 us.
    Run r("layers t = profile(\"tiny_trace.json\");");
    CHECK_FALSE(r.diags.has_errors());
    CHECK(r.says("warning: profile"));
    CHECK(r.says("no per-layer backward"));
    auto t = r.table("t");
    REQUIRE(t->layers.size() == 2);
    CHECK(t->layers[1].name == "b_x");
    CHECK(mean_of(*t->compute) == doctest::Approx(970e-6).epsilon(1e-12));
    CHECK(mean_of(*t->update) == doctest::Approx(80e-6).epsilon(1e-12));
    double sum = 0;
    for (const auto& l : t->layers) sum += mean_of(l.fwd) + mean_of(l.bwd);
    CHECK(sum == doctest::Approx(970e-6).epsilon(1e-12));
}

TEST_CASE("profile(): problems are reported at the profile(…) call with their JSON path") {
    {
        Run r("param x = 1;\nlayers t = profile(\"truncated_layers.json\");");
        const auto d = r.diags.sorted();
        REQUIRE(d.size() == 1);
        CHECK(d[0].message.find("truncated_layers.json: invalid JSON") != std::string::npos);
        CHECK(d[0].range.begin.line == 2);
        CHECK(d[0].range.begin.col == 12);  // `profile(` starts in column 12
    }
    {
        Run r("layers t = profile(\"no_such.json\");");
        CHECK(r.says("no_such.json: cannot read"));
        CHECK(r.diags.sorted().at(0).range.begin.col == 12);
    }
    {
        // A trace without `layer_fwd:` ranges has the coarse phases but no table to give.
        const auto path = std::filesystem::temp_directory_path() / "sgdnet_layerless_trace.json";
        std::ofstream(path) << R"([{"ph": "X", "name": "forward", "ts": 0, "dur": 100},
            {"ph": "X", "name": "backward", "ts": 100, "dur": 200},
            {"ph": "X", "name": "optimizer", "ts": 300, "dur": 50}])";
        Run r("layers t = profile(\"" + path.string() + "\");");
        CHECK(r.says("it records no layers"));
        std::filesystem::remove(path);
    }
    {
        Run r("layers t = profile(3);");
        CHECK(r.says("`profile` needs a file name, got"));
    }
}

TEST_CASE("the `order` column records the gradient-ready order") {
    Run r(R"(layers t {
  a: fwd = 1 ms, bwd = 2 ms, bytes = 1 MB, order = 1;
  b: fwd = 1 ms, bwd = 2 ms, bytes = 1 MB, order = 0;
  c: fwd = 1 ms, bwd = 2 ms, bytes = 1 MB, order = 2;
}
layers plain { a: fwd = 1 ms, bwd = 2 ms, bytes = 1 MB; b: fwd = 1 ms, bwd = 2 ms, bytes = 1 MB; })");
    CHECK_MESSAGE(!r.diags.has_errors(), r.diags.render());
    auto t = r.table("t");
    CHECK(t->layers[0].bwd_order == 1);
    CHECK(t->layers[1].bwd_order == 0);
    CHECK(t->layers[2].bwd_order == 2);
    CHECK_FALSE(r.table("plain")->layers[0].bwd_order);
}

TEST_CASE("`order` must be a permutation of 0…L−1 given on every row or none") {
    auto errors_of = [](const std::string& rows) {
        Run r("layers t {\n" + rows + "}\n");
        CHECK(r.diags.has_errors());
        return r.diags.render();
    };
    const std::string a = "  a: fwd = 1 ms, bwd = 1 ms, bytes = 1 B";
    const std::string b = "  b: fwd = 1 ms, bwd = 1 ms, bytes = 1 B";
    CHECK(errors_of(a + ", order = 0;\n" + b + ", order = 0;\n")
              .find("`order = 0` is given to layers `a` and `b`") != std::string::npos);
    CHECK(errors_of(a + ", order = 0;\n" + b + ", order = 2;\n")
              .find("`order` of layer `b` is 2, outside 0..1") != std::string::npos);
    CHECK(errors_of(a + ", order = 0;\n" + b + ";\n")
              .find("layer `b` has no `order`") != std::string::npos);
    CHECK(errors_of(a + ", order = 0.5;\n" + b + ", order = 1;\n").find("`order`") !=
          std::string::npos);
    CHECK(errors_of(a + ", order = 1 ms;\n" + b + ", order = 0;\n").find("dimensionless") !=
          std::string::npos);
    CHECK(errors_of(a + ", order = -1;\n" + b + ", order = 0;\n").find("`order`") !=
          std::string::npos);
}

TEST_CASE("`order` drives the fine backward chain and the buckets") {
    // Ready order b, a, c (orders 1, 0, 2 on rows a, b, c): the backward chain is
    // w.bwd.b → w.bwd.a → w.bwd.c, not the reverse layer order c → b → a.
    const std::string text = R"(
layers t {
  a: fwd = 1 ms, bwd = 2 ms, bytes = 1 MB, order = 1;
  b: fwd = 1 ms, bwd = 2 ms, bytes = 1 MB, order = 0;
  c: fwd = 1 ms, bwd = 2 ms, bytes = 1 MB, order = 2;
}
worker w[2] { layers = t; bandwidth = 1 Gbps; }
training { sync = allreduce_ring; granularity = fine; bucket = 1 MB; first_bucket = 1 MB; }
)";
    Diagnostics diags;
    auto n = compile(text, "order.sgdnet", {}, diags);
    REQUIRE_MESSAGE(n, diags.render());
    auto outputs_to = [&](const std::string& from, const std::string& to) {
        const auto& t = n->transitions[n->find_transition("w[0].bwd." + from)->value];
        const auto& next = n->transitions[n->find_transition("w[0].bwd." + to)->value];
        for (const auto& o : t.outputs)
            for (const auto& i : next.inputs)
                if (o.place == i.place) return true;
        return false;
    };
    CHECK(outputs_to("b", "a"));
    CHECK(outputs_to("a", "c"));
    CHECK_FALSE(outputs_to("c", "b"));
    // The last forward starts the first ready layer's backward: w.fwd.c.done → w.bwd.b.
    auto fwd_done = n->find_place("w[0].fwd.c.done");
    REQUIRE(fwd_done);
    const auto& first_bwd = n->transitions[n->find_transition("w[0].bwd.b")->value];
    CHECK(std::any_of(first_bwd.inputs.begin(), first_bwd.inputs.end(),
                      [&](const net::Arc& a) { return a.place == *fwd_done; }));
    // Spec level: the same order reaches the lowering.
    std::vector<LayerSpec> specs;
    for (int o : {1, 0, 2}) specs.push_back({"l", net::Det{0}, net::Det{0}, 1, o});
    CHECK(gradient_ready_order(specs) == std::vector<int>{1, 0, 2});
}

TEST_CASE("import-profile's `order` column reads back as the recorded order") {
    Diagnostics d;
    auto p = load_profile(profiles_dir() + "/mlp_layers.json", d);
    REQUIRE(p);
    std::swap(p->layers[0].bwd_order, p->layers[1].bwd_order);  // not reverse order any more
    const std::string text = to_sgdnet(*p, "mlp");
    REQUIRE(text.find("order = ") != std::string::npos);
    Run r(text);
    CHECK_MESSAGE(!r.diags.has_errors(), r.diags.render());
    auto t = r.table("mlp");
    REQUIRE(t->layers.size() == p->layers.size());
    for (std::size_t k = 0; k < t->layers.size(); ++k)
        CHECK(t->layers[k].bwd_order == p->layers[k].bwd_order);
}

TEST_CASE("the lowering's buckets of a profile(…) table are the buckets DDP recorded") {
    // make_buckets (the fine lowering's bucketing) on the table that `profile("…")` builds,
    // first_bucket = 1 MiB (DDP's default) and bucket = the recorded cap, gives the buckets
    // PyTorch DDP used, layer by layer; the generated net has one ring per bucket.
    for (const char* wl : {"mlp", "resnet18"}) {
        CAPTURE(wl);
        Diagnostics d;
        auto p = load_profile(profiles_dir() + "/" + wl + "_layers.json", d);
        REQUIRE(p);
        Run r(std::string("layers t = profile(\"") + wl + "_layers.json\");");
        auto t = r.table("t");
        std::vector<LayerSpec> specs;
        for (const auto& l : t->layers) specs.push_back({l.name, l.fwd, l.bwd, l.bytes, l.bwd_order});
        for (const auto& rec : p->recorded_buckets) {
            CAPTURE(rec.cap_key);
            auto ours = make_buckets(specs, 1024.0 * 1024.0, rec.cap_B);
            REQUIRE(ours.size() == rec.layers.size());
            for (std::size_t b = 0; b < ours.size(); ++b) {
                std::vector<int> sorted = ours[b].layers;
                std::sort(sorted.begin(), sorted.end());
                CHECK(sorted == rec.layers[b]);
                CHECK(ours[b].bytes == rec.bytes[b]);
            }
            // Through the whole pipeline: ring.bucketB exists for B < #buckets only.
            const std::string text = std::string("layers t = profile(\"") + profiles_dir() + "/" +
                                     wl + "_layers.json\");\nworker w[2] { layers = t; "
                                     "bandwidth = 1 Gbps; }\ntraining { sync = allreduce_ring; "
                                     "granularity = fine; first_bucket = 1 MiB; bucket = " +
                                     rec.cap_key + " MiB; }\n";
            Diagnostics cd;
            auto n = compile(text, "ddp.sgdnet", {}, cd);
            REQUIRE_MESSAGE(n, cd.render());
            const std::string last = "ring.bucket" + std::to_string(ours.size() - 1) + ".w[0]";
            const std::string over = "ring.bucket" + std::to_string(ours.size()) + ".w[0]";
            CHECK(n->find_transition(last));
            CHECK_FALSE(n->find_transition(over));
        }
    }
}
