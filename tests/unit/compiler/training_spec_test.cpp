// Unit tests of the evaluation of a training system into a TrainingSpec: hosts, placements, the
// message costs, and the communication members of a profile (docs/language.md, "Hosts").
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "compiler/check.hpp"
#include "compiler/lower_training.hpp"
#include "frontend/parse.hpp"
#include "profile/profile_import.hpp"
#include "training/training_spec.hpp"

using namespace sgdnet::compiler;

namespace {

std::string profiles_dir() { return std::string(SGDNET_TEST_DATA_DIR) + "/profiles"; }

/// `text` through parse, resolve, check and evaluate_training_spec (relative files from `dir`).
struct Evaluated {
    Diagnostics diags;
    std::optional<TrainingSpec> spec;
    explicit Evaluated(const std::string& text, const std::string& dir = "") {
        Ast ast = parse(diags.add_source("m.sgdnet", text), diags);
        REQUIRE_MESSAGE(!diags.has_errors(), diags.render());
        Resolved r = resolve(ast, {}, dir, diags);
        check(ast, r, {}, diags);
        if (!diags.has_errors()) spec = evaluate_training_spec(ast, r.scope, {}, diags);
    }
    const TrainingSpec& get() const {
        REQUIRE_MESSAGE(spec, diags.render());
        return *spec;
    }
    bool says(const std::string& message) const {
        return diags.render().find(message) != std::string::npos;
    }
};

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("hosts: elements in declaration order, properties per element, placements with i / 2") {
    Evaluated e(
        "host h[2] { cores = 2; }\n"
        "host node { cores = 8; bandwidth = 25 Gbps; latency = 5 us; }\n"
        "host g[3] { cores = i + 0.5; }\n"
        "worker w[4] { compute = det(10 ms); host = h[i / 2]; }\n"
        "worker x[3] { compute = det(10 ms); host = i == 0 ? node : g[i - 1]; }\n"
        "server ps[1] { update = det(1 ms); host = g[2]; }\n"
        "training { sync = ps_sync; model_bytes = 10 MB; message_overhead = 150 us;\n"
        "  comm_cpu = 0.6 ns / 1 B; }\n");
    CHECK_MESSAGE(e.diags.render().empty(), e.diags.render());
    const TrainingSpec& s = e.get();
    REQUIRE(s.hosts.size() == 6);
    const char* names[] = {"h[0]", "h[1]", "node", "g[0]", "g[1]", "g[2]"};
    const double cores[] = {2, 2, 8, 0.5, 1.5, 2.5};
    for (std::size_t k = 0; k < 6; ++k) {
        CAPTURE(k);
        CHECK(s.hosts[k].name == names[k]);
        CHECK(s.hosts[k].cores == cores[k]);
        CHECK(s.hosts[k].latency_s == doctest::Approx(k == 2 ? 5e-6 : 0.0).epsilon(1e-12));
        CHECK(s.hosts[k].bandwidth_Bps == (k == 2 ? 25e9 / 8 : kInfinity));
        CHECK(s.hosts[k].where.valid());
    }
    REQUIRE(s.workers.size() == 7);
    const int placed[] = {0, 0, 1, 1, 2, 3, 4};  // w[0..3] on h[i / 2]; x[0] on node, x[1..2] on g
    for (std::size_t k = 0; k < 7; ++k) {
        CAPTURE(s.workers[k].name);
        CHECK(s.workers[k].host == placed[k]);
    }
    REQUIRE(s.servers.size() == 1);
    CHECK(s.servers[0].host == 5);
    CHECK(s.message_overhead_s == doctest::Approx(150e-6).epsilon(1e-12));
    CHECK(s.comm_cpu_s_per_byte == doctest::Approx(0.6e-9).epsilon(1e-12));
}

TEST_CASE("hosts: without them, nothing changes in the spec") {
    Evaluated e("worker w[2] { compute = det(10 ms); }\n"
                "training { sync = allreduce_ring; model_bytes = 10 MB; }\n");
    const TrainingSpec& s = e.get();
    CHECK(s.hosts.empty());
    for (const auto& w : s.workers) CHECK_FALSE(w.host.has_value());
    CHECK(s.message_overhead_s == 0);
    CHECK(s.comm_cpu_s_per_byte == 0);
    // A host without properties has infinite cores and no NIC of its own.
    Evaluated plain("host h { }\nworker w { compute = det(1 ms); host = h; }\n"
                    "training { sync = allreduce_ring; }\n");
    REQUIRE(plain.get().hosts.size() == 1);
    CHECK(plain.get().hosts[0].name == "h");
    CHECK(plain.get().hosts[0].cores == kInfinity);
    CHECK(plain.get().hosts[0].bandwidth_Bps == kInfinity);
    CHECK(plain.get().workers[0].host == 0);
}

TEST_CASE("hosts: a placement out of range names the element; other errors name the host") {
    Evaluated range("host h[2] { cores = 2; }\n"
                    "worker w[5] { compute = det(1 ms); host = h[i / 2]; }\n"
                    "training { sync = allreduce_ring; model_bytes = 1 MB; }\n");
    CHECK_FALSE(range.spec);
    CHECK(range.says("m.sgdnet:2:45: error: host index 2 is out of range for `w[4]`: `h` has 2 "
                     "hosts, h[0] to h[1]"));
    Evaluated kinds("host h[2] { }\nhost solo { }\nparam N = 2;\n"
                    "worker w[2] { compute = det(1 ms); host = hh[0]; }\n"
                    "worker x { compute = det(1 ms); host = w[0]; }\n"
                    "worker y { compute = det(1 ms); host = h; }\n"
                    "worker z { compute = det(1 ms); host = solo[0]; }\n"
                    "worker u { compute = det(1 ms); host = N; }\n"
                    "training { sync = allreduce_ring; model_bytes = 1 MB; }\n");
    CHECK(kinds.says("unknown host `hh`; did you mean `h`?"));
    CHECK(kinds.says("`w` is a worker, not a host"));
    CHECK(kinds.says("`h` is an array of 2 hosts: name one element, `h[INDEX]`"));
    CHECK(kinds.says("host `solo` is declared without a count: write `host = solo`, without an "
                     "index"));
    CHECK(kinds.says("`N` is a param, not a host"));
    Evaluated none("worker w { compute = det(1 ms); host = h; }\n"
                   "training { sync = allreduce_ring; }\n");
    CHECK(none.says("unknown host `h`: the file declares no `host`"));
    Evaluated cores("host h[2] { cores = 1 - i; }\nworker w { compute = det(1 ms); host = h[0]; }\n"
                    "training { sync = allreduce_ring; }\n");
    CHECK(cores.says("`cores` must be > 0, got 0"));
}

TEST_CASE("message costs: dimensions and bounds") {
    Evaluated e("worker w { compute = det(1 ms); }\n"
                "training { sync = allreduce_ring; message_overhead = 150; comm_cpu = 0.6 ns; }\n");
    CHECK(e.says("expected a time, got 150; did you mean 150 ms?"));
    CHECK(e.says("expected a time per size, got a time (0.6 ns); a time per byte is written as "
                 "a ratio, e.g. `0.6 ns / 1 B`"));
    Evaluated bare("worker w { compute = det(1 ms); }\n"
                   "training { sync = allreduce_ring; comm_cpu = 0.6;\n"
                   "  message_overhead = -1 us; }\n");
    CHECK(bare.says("expected a time per size, got 0.6; did you mean 0.6 ns / 1 B?"));
    CHECK(bare.says("`message_overhead` must be >= 0, got -1 us"));
    Evaluated zero("worker w { compute = det(1 ms); }\n"
                   "training { sync = allreduce_ring; comm_cpu = 0 ns / 1 B; "
                   "message_overhead = 0 s; }\n");
    CHECK(zero.get().comm_cpu_s_per_byte == 0);
    CHECK(zero.get().message_overhead_s == 0);
}

TEST_CASE("profile members: message_overhead, comm_cpu and cores from the comm_probe object") {
    Evaluated e("layers net = profile(\"mlp_comm_layers.json\");\n"
                "host h { cores = net.cores; }\n"
                "worker w[2] { compute = net.compute; update = net.update; host = h; }\n"
                "training { sync = allreduce_ring; model_bytes = 10 MB;\n"
                "  message_overhead = net.message_overhead; comm_cpu = net.comm_cpu; }\n",
                profiles_dir());
    const TrainingSpec& s = e.get();
    REQUIRE(s.hosts.size() == 1);
    CHECK(s.hosts[0].cores == 2);
    CHECK(s.message_overhead_s == 1.2e-4);
    CHECK(s.comm_cpu_s_per_byte == 6e-10);
    // A profile without the object: an error naming the file, for each member used.
    Evaluated plain("layers net = profile(\"mlp_layers.json\");\n"
                    "host h { cores = net.cores; }\n"
                    "worker w { compute = net.compute; host = h; }\n"
                    "training { sync = allreduce_ring; comm_cpu = net.comm_cpu; }\n",
                    profiles_dir());
    CHECK(plain.says("`net.cores` needs the `comm_probe` object of the profile, and " +
                     profiles_dir() + "/mlp_layers.json has none"));
    CHECK(plain.says("`net.comm_cpu` needs the `comm_probe` object"));
    // A written table has none of them; an unknown member gets a suggestion.
    Evaluated written("layers t { a: fwd = 1 ms, bwd = 1 ms, bytes = 1 MB; }\n"
                      "host h { cores = t.cores; }\n"
                      "worker w { layers = t; host = h; }\n"
                      "training { sync = allreduce_ring;\n"
                      "  message_overhead = t.message_overhed; }\n");
    CHECK(written.says("`t.cores` is only defined for a layer table loaded with profile(…)"));
    CHECK(written.says("not `message_overhed`; did you mean `message_overhead`?"));
}

TEST_CASE("import-profile text: its comm_probe lets give the profile's numbers back") {
    Diagnostics d;
    auto p = sgdnet::profile::load_profile(profiles_dir() + "/mlp_comm_layers.json", d);
    REQUIRE(p);
    const std::string imported = sgdnet::profile::to_sgdnet(*p, "mlp");
    Evaluated e(imported +
                "host h[2] { cores = mlp_cores; }\n"
                "worker w[2] { layers = mlp; host = h[i]; }\n"
                "training { sync = allreduce_ring; message_overhead = mlp_message_overhead;\n"
                "  comm_cpu = mlp_comm_cpu; }\n");
    const TrainingSpec& s = e.get();
    REQUIRE(s.hosts.size() == 2);
    CHECK(s.hosts[1].cores == 2);
    CHECK(s.message_overhead_s == doctest::Approx(1.2e-4).epsilon(5e-6));
    CHECK(s.comm_cpu_s_per_byte == doctest::Approx(6e-10).epsilon(5e-6));
}
