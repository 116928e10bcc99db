// Tests of the PyTorch profile import: shared real profiles, traces, DDP buckets, malformed input.
#include "profile/profile_import.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "net/distribution.hpp"

using namespace sgdnet;
using frontend::Diagnostic;
using frontend::Diagnostics;
using profile::Profile;
using profile::ProfiledTime;
using nlohmann::json;

namespace {

std::string data_path(const std::string& name) {
    return std::string(SGDNET_TEST_DATA_DIR) + "/profiles/" + name;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

json read_json(const std::string& name) { return json::parse(read_text(data_path(name))); }

std::vector<std::string> messages(const Diagnostics& d, Diagnostic::Severity sev) {
    std::vector<std::string> out;
    for (const auto& x : d.sorted())
        if (x.severity == sev) out.push_back(x.message);
    return out;
}
std::vector<std::string> errors(const Diagnostics& d) {
    return messages(d, Diagnostic::Severity::Error);
}

bool any_contains(const std::vector<std::string>& v, const std::string& needle) {
    for (const auto& s : v)
        if (s.find(needle) != std::string::npos) return true;
    return false;
}

// Parses `j` (dumped) and returns the error messages; the parse must fail without throwing.
std::vector<std::string> parse_errors(const json& j, const std::string& name = "p.json") {
    Diagnostics d;
    std::optional<Profile> p;
    CHECK_NOTHROW(p = profile::parse_profile(j.dump(), name, d));
    CHECK_FALSE(p.has_value());
    CHECK(d.has_errors());
    return errors(d);
}

struct Workload {
    const char* file;
    std::size_t layers;
    double bytes;  // gradient bytes, data README table
    const char* first;
    const char* last;
};
const Workload kWorkloads[] = {
    {"mlp_layers.json", 4, 12'636'200, "net.0", "net.6"},
    {"resnet18_layers.json", 41, 44'726'568, "conv1", "fc"},
};

}  // namespace

TEST_CASE("profile import: shared per-layer profiles, counts, bytes, order, identifiers") {
    for (const auto& w : kWorkloads) {
        CAPTURE(w.file);
        Diagnostics d;
        auto p = profile::load_profile(data_path(w.file), d);
        REQUIRE(p);
        CHECK_FALSE(d.has_errors());
        CHECK(p->source == Profile::Source::LayerJson);
        CHECK(p->has_bytes);
        CHECK(p->has_layer_backward);
        REQUIRE(p->layers.size() == w.layers);
        CHECK(p->layers.front().name == w.first);
        CHECK(p->layers.back().name == w.last);
        double bytes = 0;
        std::set<int> orders;
        std::set<std::string> idents;
        const std::regex ident("[A-Za-z_][A-Za-z0-9_]*");
        for (const auto& l : p->layers) {
            bytes += l.bytes;
            orders.insert(l.bwd_order);
            idents.insert(l.ident);
            CHECK(std::regex_match(l.ident, ident));
        }
        CHECK(bytes == w.bytes);  // integers well below 2^53: exact
        CHECK(orders.size() == w.layers);
        CHECK(*orders.begin() == 0);
        CHECK(*orders.rbegin() == static_cast<int>(w.layers) - 1);
        CHECK(idents.size() == w.layers);  // collision-free
        // Both shared profiles record the reverse layer order as the gradient-ready order.
        for (std::size_t i = 0; i < w.layers; ++i)
            CHECK(p->layers[i].bwd_order == static_cast<int>(w.layers - 1 - i));
    }
    Diagnostics d;
    auto r = profile::load_profile(data_path("resnet18_layers.json"), d);
    REQUIRE(r);
    CHECK(r->layers[2].name == "layer1.0.conv1");
    CHECK(r->layers[2].ident == "layer1_0_conv1");
    CHECK(r->workload == "resnet18");
    CHECK(r->batch == 16);
}

TEST_CASE("profile import: fitted distributions keep the profile's means; tails fold in") {
    for (const auto& w : kWorkloads) {
        CAPTURE(w.file);
        json j = read_json(w.file);
        Diagnostics d;
        auto p = profile::load_profile(data_path(w.file), d);
        REQUIRE(p);
        const json& tot = j["totals"];
        const double zg = tot["zero_grad_s"]["mean"], ftail = tot["fwd_tail_s"]["mean"],
                     btail = tot["bwd_tail_s"]["mean"];
        const std::size_t n = p->layers.size();
        double sum = 0;
        for (std::size_t i = 0; i < n; ++i) {
            CAPTURE(i);
            const auto& l = p->layers[i];
            const json& jl = j["layers"][i];
            const double fwd = jl["fwd_s"]["mean"], bwd = jl["bwd_s"]["mean"];
            // Gap times kept as recorded.
            CHECK(l.fwd_gap.mean_s == fwd);
            CHECK(l.bwd_gap.mean_s == bwd);
            CHECK(l.fwd_gap.std_s == jl["fwd_s"]["std"].get<double>());
            // Tails: zero_grad into the first fwd, the forward tail into the last fwd, the
            // backward tail into the last-ready layer's bwd (here layer 0: reverse order).
            double want_fwd = fwd + (i == 0 ? zg : 0) + (i == n - 1 ? ftail : 0);
            double want_bwd = bwd + (i == 0 ? btail : 0);
            CHECK(net::mean(l.fwd) == doctest::Approx(want_fwd).epsilon(1e-14));
            CHECK(net::mean(l.bwd) == doctest::Approx(want_bwd).epsilon(1e-14));
            // An unfolded layer: exactly lognormal(mean, cv = std/mean).
            if (i != 0 && i != n - 1) {
                auto* ln = std::get_if<net::Lognormal>(&l.fwd.v);
                REQUIRE(ln);
                CHECK(ln->mean_s == fwd);
                CHECK(ln->cv == jl["fwd_s"]["std"].get<double>() / fwd);
            }
            sum += net::mean(l.fwd) + net::mean(l.bwd);
        }
        // Σ fwd + Σ bwd = zero_grad + forward + backward (data README: Σ fwd_s + fwd_tail =
        // forward_s, Σ bwd_s + bwd_tail = backward_s), up to rounding of the recorded sums.
        const double compute = zg + tot["forward_s"]["mean"].get<double>() +
                               tot["backward_s"]["mean"].get<double>();
        CHECK(sum == doctest::Approx(compute).epsilon(1e-12));
        CHECK(net::mean(p->compute) == doctest::Approx(compute).epsilon(1e-15));
        CHECK(net::mean(p->update) == tot["optimizer_s"]["mean"].get<double>());
        CHECK(net::mean(p->step_dist) == tot["step_s"]["mean"].get<double>());
        // compute + update is the whole step: the phases add up to step_s within 0.1% here
        // (the step also holds the loop's own overhead).
        CHECK(net::mean(p->compute) + net::mean(p->update) ==
              doctest::Approx(tot["step_s"]["mean"].get<double>()).epsilon(1e-3));
    }
}

TEST_CASE("ddp_buckets: hand-derived assignment") {
    // Layers in forward order with bytes 3, 5, 2, 7, 1 and reverse ready order, so the ready
    // sequence is L4(1) L3(7) L2(2) L1(5) L0(3). First cap 4, cap 6:
    //   L4: 1 < 4; L3: 8 >= 4 → close {L4,L3}; cap 6: L2: 2; L1: 7 >= 6 → close {L2,L1};
    //   L0: 3 < 6 → remainder {L0}.
    Profile p;
    const double b[] = {3, 5, 2, 7, 1};
    for (int i = 0; i < 5; ++i) {
        profile::ProfiledLayer l;
        l.name = "l" + std::to_string(i);
        l.bytes = b[i];
        l.bwd_order = 4 - i;
        p.layers.push_back(l);
    }
    auto got = profile::ddp_buckets(p, 6, 4);
    CHECK(got == std::vector<std::vector<int>>{{4, 3}, {2, 1}, {0}});
    // A layer larger than the cap ends the bucket it lands in: cap 2 everywhere:
    //   L4: 1; L3: 8 >= 2 → {L4,L3}; L2: 2 >= 2 → {L2}; L1: 5 → {L1}; L0: 3 → {L0}.
    CHECK(profile::ddp_buckets(p, 2, 2) ==
          std::vector<std::vector<int>>{{4, 3}, {2}, {1}, {0}});
    // A cap above the total: one bucket in ready order.
    CHECK(profile::ddp_buckets(p, 100, 100) == std::vector<std::vector<int>>{{4, 3, 2, 1, 0}});
    // Another recorded order is followed: ready order L0 L1 L2 L3 L4, cap 6 (no first cap):
    //   3; 8 → {L0,L1}; 2; 9 → {L2,L3}; {L4}.
    for (int i = 0; i < 5; ++i) p.layers[i].bwd_order = i;
    CHECK(profile::ddp_buckets(p, 6, 6) == std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4}});
}

TEST_CASE("ddp_buckets: same buckets as PyTorch DDP recorded, both workloads, caps 25 and 1") {
    for (const auto& w : kWorkloads) {
        CAPTURE(w.file);
        Diagnostics d;
        auto p = profile::load_profile(data_path(w.file), d);
        REQUIRE(p);
        REQUIRE(p->recorded_buckets.size() == 2);
        std::set<std::string> caps;
        for (const auto& rec : p->recorded_buckets) {
            CAPTURE(rec.cap_key);
            caps.insert(rec.cap_key);
            CHECK(rec.cap_B == std::stod(rec.cap_key) * 1024 * 1024);
            auto ours = profile::ddp_buckets(*p, rec.cap_B, 1024 * 1024);  // DDP first cap 1 MiB
            REQUIRE(ours.size() == rec.layers.size());
            for (std::size_t b = 0; b < ours.size(); ++b) {
                CAPTURE(b);
                std::vector<int> sorted = ours[b];
                std::sort(sorted.begin(), sorted.end());
                CHECK(sorted == rec.layers[b]);  // layer by layer
                double bytes = 0;
                for (int i : ours[b]) bytes += p->layers[i].bytes;
                CHECK(bytes == rec.bytes[b]);
            }
        }
        CHECK(caps == std::set<std::string>{"1", "25"});
    }
}

TEST_CASE("trace import: hand-made trace, exact statistics") {
    // Two steps (times in us). Step 0: zero_grad 40, forward [50, 350] with layer a ending at
    // 160 and b.x at 290, backward 500, optimizer 100, step 1000. Step 1: zero_grad 60, forward
    // [1070, 1410], a ends 1210, b.x ends 1370, backward 700, optimizer 60, step 1200.
    // Gaps: a = 160−50 = 110 and 1210−1070 = 140; b.x = 130 and 160; tail = 60 and 40.
    // Two samples x, y: mean (x+y)/2, sample std |x−y|/√2.
    Diagnostics d;
    auto p = profile::load_profile(data_path("tiny_trace.json"), d);
    REQUIRE(p);
    CHECK_FALSE(d.has_errors());
    CHECK(any_contains(messages(d, Diagnostic::Severity::Warning), "no per-layer backward"));
    CHECK(p->source == Profile::Source::ChromeTrace);
    CHECK_FALSE(p->has_bytes);
    CHECK_FALSE(p->has_layer_backward);
    CHECK(p->steps == 2);
    const double us = 1e-6, r2 = std::sqrt(2.0);
    auto near = [&](double got, double want) { return got == doctest::Approx(want).epsilon(1e-12); };
    CHECK(near(p->forward.mean_s, 320 * us));
    CHECK(near(p->forward.std_s, 40 / r2 * us));
    CHECK(near(p->backward.mean_s, 600 * us));
    CHECK(near(p->backward.std_s, 200 / r2 * us));
    CHECK(near(p->optimizer.mean_s, 80 * us));
    CHECK(near(p->zero_grad.mean_s, 50 * us));
    CHECK(near(p->step.mean_s, 1100 * us));
    CHECK(near(p->step.std_s, 200 / r2 * us));
    CHECK(near(p->fwd_tail.mean_s, 50 * us));
    REQUIRE(p->layers.size() == 2);
    CHECK(p->layers[0].name == "a");
    CHECK(p->layers[1].name == "b.x");
    CHECK(p->layers[1].ident == "b_x");
    CHECK(near(p->layers[0].fwd_gap.mean_s, 125 * us));
    CHECK(near(p->layers[0].fwd_gap.std_s, 30 / r2 * us));
    CHECK(near(p->layers[1].fwd_gap.mean_s, 145 * us));
    // Folded: a gets zero_grad (125+50), b.x the tail (145+50); stds add in quadrature:
    // sqrt((30/√2)² + (20/√2)²) = sqrt(450+200) us.
    CHECK(near(p->layers[0].fwd_time.mean_s, 175 * us));
    CHECK(near(p->layers[0].fwd_time.std_s, std::sqrt(650.0) * us));
    CHECK(near(p->layers[1].fwd_time.mean_s, 195 * us));
    // Backward apportioned to forward gaps: 600 × 125/270 and 600 × 145/270, cv of backward.
    CHECK(near(p->layers[0].bwd_time.mean_s, 600.0 * 125 / 270 * us));
    CHECK(near(p->layers[1].bwd_time.mean_s, 600.0 * 145 / 270 * us));
    auto* ln = std::get_if<net::Lognormal>(&p->layers[1].bwd.v);
    REQUIRE(ln);
    CHECK(ln->cv == doctest::Approx((200 / r2) / 600).epsilon(1e-12));
    CHECK(p->layers[0].bwd_order == 1);
    CHECK(p->layers[1].bwd_order == 0);
    CHECK(p->layers[0].bytes == 0);
    CHECK(near(net::mean(p->compute), (50 + 320 + 600) * us));
}

TEST_CASE("trace import: shared traces agree loosely with the per-layer profiles") {
    // Different runs of the same workload: the data README states compute speed drifts ±10–15%
    // between runs minutes apart, and the trace has only 5 steps (standard error of a mean ~4%
    // for resnet18's forward, cv 0.1) plus profiler overhead; 20% covers both.
    for (const char* wl : {"mlp", "resnet18"}) {
        CAPTURE(wl);
        Diagnostics d1, d2;
        auto t = profile::load_profile(data_path(std::string(wl) + "_trace.json"), d1);
        auto l = profile::load_profile(data_path(std::string(wl) + "_layers.json"), d2);
        REQUIRE(t);
        REQUIRE(l);
        CHECK(t->steps == 5);
        CHECK(t->forward.n == 5);
        CHECK(t->forward.mean_s == doctest::Approx(l->forward.mean_s).epsilon(0.20));
        CHECK(t->backward.mean_s == doctest::Approx(l->backward.mean_s).epsilon(0.20));
        CHECK(t->optimizer.mean_s == doctest::Approx(l->optimizer.mean_s).epsilon(0.20));
        CHECK(t->step.mean_s == doctest::Approx(l->step.mean_s).epsilon(0.20));
        // The same layers, in the same forward order.
        REQUIRE(t->layers.size() == l->layers.size());
        for (std::size_t i = 0; i < t->layers.size(); ++i) CHECK(t->layers[i].name == l->layers[i].name);
        // Σ gaps + tail = forward in every step, hence also for the means.
        double sum = t->fwd_tail.mean_s;
        for (const auto& x : t->layers) sum += x.fwd_gap.mean_s;
        CHECK(sum == doctest::Approx(t->forward.mean_s).epsilon(1e-12));
    }
}

TEST_CASE("trace import: bare list and traceEvents forms give the same profile") {
    json j = read_json("tiny_trace.json");
    Diagnostics d1, d2;
    auto a = profile::parse_profile(j.dump(), "obj.json", d1);
    auto b = profile::parse_profile(j["traceEvents"].dump(), "list.json", d2);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(a->forward == b->forward);
    CHECK(a->step == b->step);
    REQUIRE(a->layers.size() == b->layers.size());
    CHECK(a->layers[1].fwd == b->layers[1].fwd);
}

TEST_CASE("profile import: unreadable, truncated and empty files give diagnostics") {
    SUBCASE("truncated JSON") {
        Diagnostics d;
        std::optional<Profile> p;
        CHECK_NOTHROW(p = profile::load_profile(data_path("truncated_layers.json"), d));
        CHECK_FALSE(p);
        auto e = errors(d);
        REQUIRE(e.size() == 1);
        CHECK(e[0].find("truncated_layers.json: invalid JSON") != std::string::npos);
        CHECK(e[0].find("unexpected end of input") != std::string::npos);
    }
    SUBCASE("empty traces") {
        for (const char* f : {"empty_trace.json", "empty_trace_events.json"}) {
            CAPTURE(f);
            Diagnostics d;
            CHECK_FALSE(profile::load_profile(data_path(f), d));
            CHECK(any_contains(errors(d), "empty trace: no events"));
        }
        Diagnostics d;
        CHECK_FALSE(profile::load_profile(data_path("empty_trace_events.json"), d));
        CHECK(any_contains(errors(d), "/traceEvents: empty trace"));
    }
    SUBCASE("unreadable file") {
        Diagnostics d;
        CHECK_FALSE(profile::load_profile(data_path("no_such_file.json"), d));
        CHECK(any_contains(errors(d), "no_such_file.json: cannot read"));
    }
    SUBCASE("neither format") {
        CHECK(any_contains(parse_errors(json{{"a", 1}}), "neither a per-layer profile"));
        CHECK(any_contains(parse_errors(json(3)), "got number"));
    }
}

TEST_CASE("per-layer profile import: malformed inputs give diagnostics naming the JSON path") {
    json good = read_json("resnet18_layers.json");
    SUBCASE("wrong type") {
        json j = good;
        j["layers"][3]["fwd_s"]["mean"] = "fast";
        auto e = parse_errors(j, "resnet18_layers.json");
        REQUIRE(e.size() == 1);
        CHECK(e[0] ==
              "profile resnet18_layers.json: /layers/3/fwd_s/mean: expected a number, got string");
    }
    SUBCASE("missing fields, every one reported") {
        json j = good;
        j["layers"][3]["fwd_s"].erase("mean");
        j["layers"][7].erase("param_bytes");
        j["totals"].erase("backward_s");
        auto e = parse_errors(j);
        CHECK(e.size() == 3);
        CHECK(any_contains(e, "p.json: /layers/3/fwd_s/mean: missing required field"));
        CHECK(any_contains(e, "/layers/7/param_bytes: missing required field"));
        CHECK(any_contains(e, "/totals/backward_s: missing required field"));
    }
    SUBCASE("layers not an array, totals missing") {
        json j = good;
        j["layers"] = json::object();
        j.erase("totals");
        auto e = parse_errors(j);
        CHECK(any_contains(e, "/layers: expected an array, got object"));
        CHECK(any_contains(e, "/totals: missing required field"));
    }
    SUBCASE("bad values") {
        json j = good;
        j["layers"][0]["param_bytes"] = -4;
        j["layers"][1]["bwd_order"] = 2.5;
        j["layers"][2]["bwd_s"]["std"] = nullptr;
        auto e = parse_errors(j);
        CHECK(any_contains(e, "/layers/0/param_bytes: expected a finite number >= 0, got -4"));
        CHECK(any_contains(e, "/layers/1/bwd_order: expected an integer, got a non-integer"));
        CHECK(any_contains(e, "/layers/2/bwd_s/std: expected a number, got null"));
    }
    SUBCASE("gradient-ready order not a permutation") {
        json j = good;
        j["layers"][5]["bwd_order"] = j["layers"][6]["bwd_order"];
        auto e = parse_errors(j);
        CHECK(any_contains(e, "/layers/6/bwd_order: gradient-ready position"));
        json k = good;
        k["layers"][0]["bwd_order"] = 41;
        CHECK(any_contains(parse_errors(k), "/layers/0/bwd_order: expected an integer in 0..40"));
    }
    SUBCASE("recorded buckets naming an unknown layer") {
        json j = good;
        j["ddp_buckets"]["1"]["buckets"][2]["layers"][0] = "nope";
        CHECK(any_contains(parse_errors(j),
                           "/ddp_buckets/1/buckets/2/layers/0: unknown layer `nope`"));
    }
}

TEST_CASE("trace import: malformed traces give diagnostics naming the JSON path") {
    json trace = read_json("tiny_trace.json");
    SUBCASE("trace event without dur or with a wrong-typed name") {
        json j = trace;
        j["traceEvents"][3].erase("dur");
        j["traceEvents"][4]["name"] = 7;
        auto e = parse_errors(j, "t.json");
        CHECK(any_contains(e, "profile t.json: /traceEvents/3/dur: missing required field"));
        CHECK(any_contains(e, "/traceEvents/4/name: expected a string, got number"));
    }
    SUBCASE("trace without backward ranges") {
        json j = json::array();
        for (const auto& ev : trace["traceEvents"])
            if (ev.value("name", "") != "backward") j.push_back(ev);
        CHECK(any_contains(parse_errors(j), "no `backward` record_function range"));
    }
    SUBCASE("trace whose steps run different layers") {
        json j = trace;
        j["traceEvents"][14]["name"] = "layer_fwd:c";
        CHECK(any_contains(parse_errors(j), "/traceEvents/12: the `layer_fwd:` ranges"));
    }
    SUBCASE("traceEvents not a list") {
        CHECK(any_contains(parse_errors(json{{"traceEvents", 1}}),
                           "/traceEvents: expected an array, got number"));
    }
}

TEST_CASE("to_identifier and collision-free layer identifiers") {
    CHECK(profile::to_identifier("layer1.0.conv1") == "layer1_0_conv1");
    CHECK(profile::to_identifier("net.0") == "net_0");
    CHECK(profile::to_identifier("0") == "_0");
    CHECK(profile::to_identifier("") == "layer");
    CHECK(profile::to_identifier("true") == "true_");
    CHECK(profile::to_identifier("fc") == "fc");
    json j = read_json("mlp_layers.json");
    j["layers"][0]["name"] = "a.b";
    j["layers"][1]["name"] = "a_b";
    j["layers"][2]["name"] = "a-b";
    j.erase("ddp_buckets");
    Diagnostics d;
    auto p = profile::parse_profile(j.dump(), "m.json", d);
    REQUIRE(p);
    CHECK(p->layers[0].ident == "a_b");
    CHECK(p->layers[1].ident == "a_b_2");
    CHECK(p->layers[2].ident == "a_b_3");
}

TEST_CASE("to_sgdnet: layer table in forward order, units, lets; numbers read back") {
    Diagnostics d;
    auto p = profile::load_profile(data_path("mlp_layers.json"), d);
    REQUIRE(p);
    std::string text = profile::to_sgdnet(*p, "mlp");
    CAPTURE(text);
    CHECK(text.rfind("// Imported by `sgdnet import-profile` from ", 0) == 0);
    CHECK(text.find("layers mlp {\n") != std::string::npos);
    CHECK(text.find("order =") == std::string::npos);  // reverse order: the default
    // Rows in forward order, each with its times and bytes; numbers read back within the
    // 6 significant digits written (relative error <= 5e-6).
    const std::regex row(
        R"((\w+): fwd = lognormal\(mean = ([0-9.e+-]+) (ms|us), cv = ([0-9.e+-]+)\), )"
        R"(bwd = lognormal\(mean = ([0-9.e+-]+) (ms|us), cv = ([0-9.e+-]+)\), bytes = (\d+) B;)");
    auto scale = [](const std::string& u) { return u == "ms" ? 1e-3 : 1e-6; };
    std::size_t k = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), row); it != std::sregex_iterator();
         ++it, ++k) {
        REQUIRE(k < p->layers.size());
        const auto& m = *it;
        const auto& l = p->layers[k];
        CHECK(m[1].str() == l.ident);
        CHECK(std::stod(m[2]) * scale(m[3]) == doctest::Approx(l.fwd_time.mean_s).epsilon(5e-6));
        CHECK(std::stod(m[4]) == doctest::Approx(l.fwd_time.std_s / l.fwd_time.mean_s).epsilon(5e-6));
        CHECK(std::stod(m[5]) * scale(m[6]) == doctest::Approx(l.bwd_time.mean_s).epsilon(5e-6));
        CHECK(std::stod(m[8]) == l.bytes);
    }
    CHECK(k == p->layers.size());
    const std::regex let_re(R"(let mlp_(compute|update|step) = lognormal\(mean = ([0-9.e+-]+) (ms|us),)");
    std::set<std::string> lets;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), let_re); it != std::sregex_iterator();
         ++it) {
        const auto& m = *it;
        lets.insert(m[1]);
        double want = m[1] == "compute" ? p->compute_time.mean_s
                      : m[1] == "update" ? p->optimizer.mean_s
                                         : p->step.mean_s;
        CHECK(std::stod(m[2]) * scale(m[3]) == doctest::Approx(want).epsilon(5e-6));
    }
    CHECK(lets == std::set<std::string>{"compute", "update", "step"});
    CHECK(text.find("net_0: ") < text.find("net_6: "));
    CHECK(text.find("  // net.0\n") != std::string::npos);

    // Another gradient-ready order is written as an `order` column; a zero std as det.
    Profile q = *p;
    std::swap(q.layers[0].bwd_order, q.layers[1].bwd_order);
    q.layers[2].fwd_time.std_s = 0;
    std::string t2 = profile::to_sgdnet(q, "m");
    CHECK(t2.find("order = 2;") != std::string::npos);
    CHECK(t2.find("order = 3;") != std::string::npos);
    CHECK(t2.find("net_4: fwd = det(") != std::string::npos);
}

TEST_CASE("to_sgdnet: trace without layer ranges gives the coarse lets only") {
    json j = json::array();
    const json trace = read_json("tiny_trace.json");
    for (const auto& ev : trace["traceEvents"])
        if (ev.value("name", "").rfind("layer_fwd:", 0) != 0) j.push_back(ev);
    Diagnostics d;
    auto p = profile::parse_profile(j.dump(), "coarse.json", d);
    REQUIRE(p);
    CHECK(p->layers.empty());
    CHECK_FALSE(d.has_errors());
    std::string text = profile::to_sgdnet(*p, "c");
    CHECK(text.find("layers c") == std::string::npos);
    CHECK(text.find("let c_compute = lognormal(mean = 970 us") != std::string::npos);
}

TEST_CASE("comm_probe: its three numbers are read, its other members ignored") {
    Diagnostics d;
    auto p = profile::load_profile(data_path("mlp_comm_layers.json"), d);
    REQUIRE_MESSAGE(p, d.render());
    CHECK_FALSE(d.has_errors());
    REQUIRE(p->comm_probe);
    CHECK(*p->comm_probe == profile::CommProbe{1.2e-4, 6e-10, 2, std::nullopt, std::nullopt});
    // The same profile without the object has none, and the rest of the profile is the same.
    Diagnostics d2;
    auto plain = profile::load_profile(data_path("mlp_layers.json"), d2);
    REQUIRE(plain);
    CHECK_FALSE(plain->comm_probe);
    CHECK(plain->layers.size() == p->layers.size());
    CHECK(plain->compute_time == p->compute_time);
}

TEST_CASE("comm_probe.interference: read when measured, a let of its own, >= 0") {
    json j = read_json("mlp_comm_layers.json");
    j["comm_probe"]["interference"] = 0.065;
    Diagnostics d;
    auto p = profile::parse_profile(j.dump(), "p.json", d);
    REQUIRE_MESSAGE(p, d.render());
    REQUIRE(p->comm_probe);
    CHECK(*p->comm_probe == profile::CommProbe{1.2e-4, 6e-10, 2, 0.065, std::nullopt});
    const std::string text = profile::to_sgdnet(*p, "m");
    CAPTURE(text);
    CHECK(text.find("let m_interference = 0.065;") != std::string::npos);
    // Without it (profiles taken before the probe, or on one CPU), no let.
    Diagnostics d2;
    auto old = profile::load_profile(data_path("mlp_comm_layers.json"), d2);
    REQUIRE(old);
    CHECK_FALSE(old->comm_probe->interference);
    CHECK(profile::to_sgdnet(*old, "m").find("m_interference") == std::string::npos);
    j["comm_probe"]["interference"] = -0.1;
    CHECK(any_contains(parse_errors(j), "p.json: /comm_probe/interference: expected a finite "
                                        "number >= 0, got -0.1"));
}

TEST_CASE("comm_probe.oversubscription: read when measured, a let of its own, >= 0") {
    json j = read_json("mlp_comm_layers.json");
    j["comm_probe"]["oversubscription"] = 0.21;
    Diagnostics d;
    auto p = profile::parse_profile(j.dump(), "p.json", d);
    REQUIRE_MESSAGE(p, d.render());
    REQUIRE(p->comm_probe);
    CHECK(*p->comm_probe == profile::CommProbe{1.2e-4, 6e-10, 2, std::nullopt, 0.21});
    const std::string text = profile::to_sgdnet(*p, "m");
    CAPTURE(text);
    CHECK(text.find("let m_oversubscription = 0.21;") != std::string::npos);
    CHECK(text.find("m_interference") == std::string::npos);
    Diagnostics d2;
    auto old = profile::load_profile(data_path("mlp_comm_layers.json"), d2);
    REQUIRE(old);
    CHECK_FALSE(old->comm_probe->oversubscription);
    CHECK(profile::to_sgdnet(*old, "m").find("m_oversubscription") == std::string::npos);
    j["comm_probe"]["oversubscription"] = "high";
    CHECK(any_contains(parse_errors(j), "p.json: /comm_probe/oversubscription: expected"));
    j["comm_probe"]["oversubscription"] = -0.2;
    CHECK(any_contains(parse_errors(j), "p.json: /comm_probe/oversubscription: expected a "
                                        "finite number >= 0, got -0.2"));
}

namespace {

// An optional number of format 1 at FIELD (MEMBER of the profile): absent from the profile and
// its text when not recorded; read as VALUE and written as the let LET when recorded; NEGATIVE
// an error naming FIELD's path and quoting NEGATIVE as the JSON text GOT.
void check_optional_number(const std::string& field, std::optional<double> Profile::*member,
                           double value, const std::string& let, const json& negative,
                           const std::string& got) {
    const std::string name = let.substr(4, let.find(" =") - 4);
    json j = read_json("mlp_comm_layers.json");
    j.erase(field);
    Diagnostics d0;
    auto absent = profile::parse_profile(j.dump(), "p.json", d0);
    REQUIRE_MESSAGE(absent, d0.render());
    CHECK_FALSE((*absent).*member);
    CHECK(profile::to_sgdnet(*absent, "m").find(name) == std::string::npos);
    j[field] = value;
    Diagnostics d;
    auto p = profile::parse_profile(j.dump(), "p.json", d);
    REQUIRE_MESSAGE(p, d.render());
    REQUIRE((*p).*member);
    CHECK(*((*p).*member) == value);
    CHECK(profile::to_sgdnet(*p, "m").find(let) != std::string::npos);
    j[field] = negative;
    CHECK(any_contains(parse_errors(j), "p.json: /" + field +
                                            ": expected a finite number >= 0, got " + got));
}

}  // namespace

TEST_CASE("buffer_bytes: read when recorded, absent otherwise, a negative value an error") {
    Diagnostics d;
    auto p = profile::load_profile(data_path("mlp_comm_layers.json"), d);
    REQUIRE_MESSAGE(p, d.render());
    REQUIRE(p->buffer_bytes);
    CHECK(*p->buffer_bytes == 136864);
    Diagnostics d2;
    auto plain = profile::load_profile(data_path("mlp_layers.json"), d2);
    REQUIRE(plain);
    CHECK_FALSE(plain->buffer_bytes);
    check_optional_number("buffer_bytes", &Profile::buffer_bytes, 136864,
                          "let m_buffers = 136864 B;", -5, "-5");
}

TEST_CASE("ddp_overhead_s: read when recorded, a let in ms, absent otherwise, >= 0") {
    check_optional_number("ddp_overhead_s", &Profile::ddp_overhead_s, 0.00311,
                          "let m_ddp_overhead = 3.11 ms;", -0.001, "-0.001");
}

TEST_CASE("ps_worker_overhead_s: read when recorded, a let in ms, absent otherwise, >= 0") {
    check_optional_number("ps_worker_overhead_s", &Profile::ps_worker_overhead_s, 0.0125,
                          "let m_ps_worker_overhead = 12.5 ms;", -0.002, "-0.002");
}

TEST_CASE("server_update_s, aggregate_s: read when recorded, lets, absent otherwise") {
    json j = read_json("mlp_comm_layers.json");
    j["server_update_s"] = {{"mean", 0.0055}, {"std", 0.00011}, {"n", 30}};
    j["aggregate_s"] = {{"mean", 0.0012}, {"std", 0.0001}, {"n", 30}};
    Diagnostics d;
    auto p = profile::parse_profile(j.dump(), "p.json", d);
    REQUIRE_MESSAGE(p, d.render());
    REQUIRE(p->server_update);
    CHECK(p->server_update->mean_s == 0.0055);
    REQUIRE(p->aggregate);
    CHECK(p->aggregate->mean_s == 0.0012);
    const std::string text = profile::to_sgdnet(*p, "m");
    CHECK(text.find("let m_server_update = lognormal(mean = 5.5 ms, cv = 0.02);") !=
          std::string::npos);
    CHECK(text.find("let m_aggregate = 1.2 ms;") != std::string::npos);
    Diagnostics d2;
    auto old = profile::load_profile(data_path("mlp_comm_layers.json"), d2);
    REQUIRE(old);
    CHECK_FALSE(old->server_update);
    CHECK_FALSE(old->aggregate);
    CHECK(profile::to_sgdnet(*old, "m").find("m_server_update") == std::string::npos);
    j["aggregate_s"] = {{"mean", -0.001}, {"std", 0.0}, {"n", 30}};
    CHECK(any_contains(parse_errors(j), "p.json: /aggregate_s/mean"));
}

TEST_CASE("steady_step_s: the step's times scale to it, shares and cvs kept; > 0") {
    Diagnostics d0;
    auto base = profile::load_profile(data_path("mlp_comm_layers.json"), d0);
    REQUIRE(base);
    CHECK_FALSE(base->steady_step_s);
    CHECK(base->step_scale == 1.0);
    json j = read_json("mlp_comm_layers.json");
    const double f = 1.25;  // the steady step a quarter longer than the timed one
    j["steady_step_s"] = f * base->step.mean_s;
    Diagnostics d;
    auto p = profile::parse_profile(j.dump(), "p.json", d);
    REQUIRE_MESSAGE(p, d.render());
    CHECK(p->step_scale == doctest::Approx(f).epsilon(1e-12));
    CHECK(p->step.mean_s == doctest::Approx(f * base->step.mean_s).epsilon(1e-12));
    REQUIRE(p->layers.size() == base->layers.size());
    for (std::size_t i = 0; i < p->layers.size(); ++i) {
        const auto& a = p->layers[i];
        const auto& b = base->layers[i];
        CHECK(a.fwd_time.mean_s == doctest::Approx(f * b.fwd_time.mean_s).epsilon(1e-12));
        CHECK(a.bwd_time.mean_s == doctest::Approx(f * b.bwd_time.mean_s).epsilon(1e-12));
        CHECK(a.bwd_time.std_s == doctest::Approx(f * b.bwd_time.std_s).epsilon(1e-12));
    }
    CHECK(p->compute_time.mean_s == doctest::Approx(f * base->compute_time.mean_s).epsilon(1e-12));
    CHECK(p->optimizer.mean_s == doctest::Approx(f * base->optimizer.mean_s).epsilon(1e-12));
    // What is not the step's stays as measured.
    CHECK(p->comm_probe == base->comm_probe);
    CHECK(profile::to_sgdnet(*p, "m").find("// The step's times are scaled by 1.25 to the steady "
                                           "step (") != std::string::npos);
    CHECK(profile::to_sgdnet(*base, "m").find("steady step") == std::string::npos);
    j["steady_step_s"] = 0;
    CHECK(any_contains(parse_errors(j), "p.json: /steady_step_s: expected a number > 0, got 0"));
    j["steady_step_s"] = "1 s";
    CHECK(any_contains(parse_errors(j), "p.json: /steady_step_s: expected a number"));
}

TEST_CASE("comm_probe: a malformed object gives diagnostics naming the JSON path") {
    json good = read_json("mlp_comm_layers.json");
    {
        json j = good;
        j["comm_probe"].erase("cores");
        CHECK(any_contains(parse_errors(j), "p.json: /comm_probe/cores: missing required field"));
    }
    {
        json j = good;
        j["comm_probe"]["message_overhead_s"] = "120 us";
        CHECK(any_contains(parse_errors(j),
                           "/comm_probe/message_overhead_s: expected a number, got string"));
    }
    {
        json j = good;
        j["comm_probe"]["comm_cpu_s_per_byte"] = -1e-9;
        CHECK(any_contains(parse_errors(j), "/comm_probe/comm_cpu_s_per_byte: expected a finite "
                                            "number >= 0, got -1e-09"));
    }
    {
        json j = good;
        j["comm_probe"]["cores"] = 0;
        CHECK(any_contains(parse_errors(j), "/comm_probe/cores: expected a number > 0, got 0"));
    }
    {
        json j = good;
        j["comm_probe"] = json::array();
        CHECK(any_contains(parse_errors(j), "/comm_probe: expected an object, got array"));
    }
}

TEST_CASE("to_sgdnet: a comm_probe gives the lets of message_overhead, comm_cpu and cores") {
    Diagnostics d;
    auto p = profile::load_profile(data_path("mlp_comm_layers.json"), d);
    REQUIRE(p);
    const std::string text = profile::to_sgdnet(*p, "mlp");
    CAPTURE(text);
    CHECK(text.find("let mlp_message_overhead = 120 us;") != std::string::npos);
    CHECK(text.find("let mlp_comm_cpu = 0.6 ns / 1 B;") != std::string::npos);
    CHECK(text.find("let mlp_cores = 2;") != std::string::npos);
    // Without the object, none of them.
    Diagnostics d2;
    auto plain = profile::load_profile(data_path("mlp_layers.json"), d2);
    REQUIRE(plain);
    const std::string plain_text = profile::to_sgdnet(*plain, "mlp");
    CHECK(plain_text.find("mlp_message_overhead") == std::string::npos);
    CHECK(plain_text.find("mlp_comm_cpu") == std::string::npos);
    CHECK(plain_text.find("mlp_cores") == std::string::npos);
}
