// Every ready-made model of models/ compiles and reaches 1% precision in under 10 s (label slow).
#include <doctest/doctest.h>

#include <string>

#include "compiler/compile.hpp"
#include "solver/solve.hpp"

using namespace sgdnet;

namespace {

void run_model(const std::string& file, const std::string& n) {
    CAPTURE(file);
    CAPTURE(n);
    compiler::CompileOptions opts;
    opts.overrides.push_back({"N", n});
    compiler::Diagnostics diags;
    auto net = compiler::compile_file(std::string(SGDNET_SOURCE_DIR) + "/models/" + file, opts, diags);
    INFO(diags.render());
    REQUIRE(net.has_value());
    solver::SolveOptions o;
    o.precision = 0.01;
    o.seed = 1;
    o.max_time_s = 10;
    auto r = solver::simulate(*net, o);
    REQUIRE(!r.measures.empty());
    CHECK(r.measures[0].name == "steps_per_s");
    CHECK(r.measures[0].mean > 0);
    CHECK(r.precision_reached);
    CHECK(r.stats.wall_s < 10);
    MESSAGE(file << " N=" << n << ": steps_per_s " << r.measures[0].mean << ", "
                 << r.stats.events << " events in " << r.stats.wall_s << " s");
}

const char* kSchemes[] = {"ps_sync", "ps_async", "ps_ssp", "allreduce_ring", "allreduce_tree",
                          "gossip"};

}  // namespace

TEST_CASE("fine models at N = 16") {
    for (const char* s : kSchemes) run_model(std::string(s) + "_fine.sgdnet", "16");
}

TEST_CASE("coarse models at N = 64") {
    for (const char* s : kSchemes) run_model(std::string(s) + "_coarse.sgdnet", "64");
}
