// Every ready-made model of models/ compiles, validates and is solved to 5% precision (label slow).
// The time each takes to reach 1% is a performance figure, measured by bench/training_bench and
// quoted in docs/training.md, not asserted here (the machine running the tests may be loaded).
#include <doctest/doctest.h>

#include <string>

#include "compiler/compile.hpp"
#include "solver/solve.hpp"
#include "tests/support/models.hpp"

using namespace sgdnet;

namespace {

void run_model(const std::string& name, int n) {
    CAPTURE(name);
    CAPTURE(n);
    compiler::Diagnostics diags;
    auto net = testing::compile_model(name, n, diags);
    INFO(diags.render());
    REQUIRE(net.has_value());
    solver::SolveOptions o;
    o.precision = 0.05;
    o.seed = 1;
    o.max_time_s = 120;
    auto r = solver::simulate(*net, o);
    REQUIRE(!r.measures.empty());
    CHECK(r.measures[0].name == "steps_per_s");
    CHECK(r.measures[0].mean > 0);
    CHECK(r.precision_reached);
    CHECK(r.measures[0].ci_low <= r.measures[0].mean);
    CHECK(r.measures[0].mean <= r.measures[0].ci_high);
    MESSAGE(name << " N=" << n << ": steps_per_s " << r.measures[0].mean << ", "
                 << r.stats.events << " events in " << r.stats.wall_s << " s");
}

const char* kSchemes[] = {"ps_sync", "ps_async", "ps_ssp", "allreduce_ring", "allreduce_tree",
                          "gossip"};

}  // namespace

TEST_CASE("fine models at N = 16") {
    for (const char* s : kSchemes) run_model(std::string(s) + "_fine", 16);
}

TEST_CASE("coarse models at N = 64") {
    for (const char* s : kSchemes) run_model(std::string(s) + "_coarse", 64);
}
