// Unit tests of net size statistics: counts as `--emit net` prints them, and the fine net's size
// reported beside a coarse reduction.
#include <doctest/doctest.h>

#include <string>

#include "compiler/compile.hpp"
#include "compiler/net_statistics.hpp"
#include "emit/emit.hpp"
#include "net/petri_net.hpp"

using namespace sgdnet;
using namespace sgdnet::compiler;

namespace {

const char* kModel = R"(
param N = 3;
layers net {
  a: fwd = det(1 ms), bwd = det(2 ms), bytes = 3 MB;
  b: fwd = det(1 ms), bwd = det(2 ms), bytes = 3 MB;
}
worker w[N] { layers = net; bandwidth = 10 Gbps; }
training { sync = allreduce_ring; bucket = 5 MB; GRANULARITY }
)";

std::string model(const std::string& granularity) {
    std::string s = kModel;
    return s.replace(s.find("GRANULARITY"), 11, granularity);
}

net::PetriNet compiled(const std::string& text, CompileOptions o = {}) {
    Diagnostics d;
    auto n = compile(text, "stats.sgdnet", o, d);
    REQUIRE_MESSAGE(n, d.render());
    return *n;
}

}  // namespace

TEST_CASE("net_size counts what the printer prints on its second line") {
    // M/M/1: 1 place; 2 timed; arcs: arrive → queue, queue → serve = 2; 1 measure.
    const auto n = compiled("net m { place q; transition a ~ exp(rate = 1 /s) { out q; }\n"
                            "transition s ~ exp(rate = 2 /s) { in q; } }\n"
                            "measure t = throughput(m.s);");
    const NetSize s = net_size(n);
    CHECK(s == NetSize{1, 2, 0, 2, 1});
    const std::string printed = emit::to_net_text(n);
    const auto line2 = printed.substr(printed.find('\n') + 1,
                                      printed.find('\n', printed.find('\n') + 1) - printed.find('\n') - 1);
    CHECK(line2 == "  " + to_string(s));
    CHECK(net_statistics(n, "", "x", {}).lines().empty());
}

TEST_CASE("a coarse model with layers reports the fine net it reduces") {
    const auto fine = compiled(model(""));  // with layers the default is fine
    CompileOptions coarse_opt;
    coarse_opt.granularity = Granularity::Coarse;
    const auto coarse = compiled(model(""), coarse_opt);
    REQUIRE(net_size(coarse).timed < net_size(fine).timed);

    SUBCASE("--granularity coarse") {
        auto st = net_statistics(coarse, model(""), "stats.sgdnet", coarse_opt);
        CHECK(st.net == net_size(coarse));
        REQUIRE(st.fine);
        CHECK(*st.fine == net_size(fine));
        REQUIRE(st.lines().size() == 1);
        CHECK(st.lines()[0] == "  coarse (reduced) net; the fine net it reduces: " +
                                   to_string(net_size(fine)));
    }
    SUBCASE("granularity = coarse in the training block") {
        const std::string text = model("granularity = coarse;");
        auto st = net_statistics(compiled(text), text, "stats.sgdnet", {});
        REQUIRE(st.fine);
        CHECK(*st.fine == net_size(fine));
    }
    SUBCASE("a fine net, or a coarse one without layers, has nothing to add") {
        CHECK_FALSE(net_statistics(fine, model(""), "stats.sgdnet", {}).fine);
        CompileOptions fine_opt;
        fine_opt.granularity = Granularity::Fine;
        CHECK_FALSE(net_statistics(coarse, model("granularity = coarse;"), "s.sgdnet", fine_opt).fine);
        const std::string plain = "worker w[2] { compute = det(1 ms); bandwidth = 1 Gbps; }\n"
                                  "training { sync = allreduce_ring; model_bytes = 1 MB; }\n";
        CHECK_FALSE(net_statistics(compiled(plain), plain, "p.sgdnet", coarse_opt).fine);
    }
}

TEST_CASE("net_statistics_file reads the model again") {
    const std::string path = std::string(SGDNET_SOURCE_DIR) + "/models/allreduce_ring_fine.sgdnet";
    CompileOptions o;
    o.granularity = Granularity::Coarse;
    Diagnostics d;
    auto coarse = compile_file(path, o, d);
    REQUIRE_MESSAGE(coarse, d.render());
    auto st = net_statistics_file(*coarse, path, o);
    REQUIRE(st.fine);
    // docs/training.md's table (N = 8): fine 2824 places, 1800 timed + 944 immediate; coarse
    // 64 places, 32 timed + 16 immediate.
    CHECK(st.fine->places == 2824);
    CHECK(st.fine->timed + st.fine->immediate == 2744);
    CHECK(st.net.places == 64);
    CHECK(st.net.timed + st.net.immediate == 48);
    CHECK_FALSE(net_statistics_file(*coarse, path + ".missing", o).fine);
}
