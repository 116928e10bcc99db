// Tests of the public C++ API (include/sgdnet/): compile, run, errors as data, emit, determinism.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "sgdnet/sgdnet.hpp"

namespace {

// M/M/1/K with K as a top-level param: arrivals λ = 1/s blocked at K jobs, service mean 0.8 s.
// Kleinrock, Queueing Systems I, §3.6: with ρ = 0.8, p_n = ρ^n (1-ρ) / (1-ρ^(K+1)),
// throughput = λ (1 - p_K), E[N] = ρ/(1-ρ) - (K+1) ρ^(K+1) / (1-ρ^(K+1)).
const char* const kMm1k = R"(model mm1k;
param K = 5;
net q {
  place queue = 0;
  transition arrive ~ exp(rate = 1 /s)   { out queue; inhibit queue*K; }
  transition serve  ~ exp(mean = 800 ms) { in queue; }
}
measure thr  = throughput(q.serve);
measure qlen = tokens(q.queue);
)";

double mm1k_throughput(int k) {
    const double rho = 0.8;
    const double p_k = std::pow(rho, k) * (1 - rho) / (1 - std::pow(rho, k + 1));
    return 1.0 * (1 - p_k);
}

double mm1k_mean_jobs(int k) {
    const double rho = 0.8;
    return rho / (1 - rho) - (k + 1) * std::pow(rho, k + 1) / (1 - std::pow(rho, k + 1));
}

sgdnet::RunOptions exact() {
    sgdnet::RunOptions o;
    o.solver = sgdnet::Solver::Exact;
    return o;
}

}  // namespace

TEST_CASE("compile a string and solve it exactly: the M/M/1/K closed form") {
    const sgdnet::Model model = sgdnet::Model::compile(kMm1k, "mm1k.sgdnet");
    CHECK(model.name() == "mm1k");
    CHECK(model.measure_names() == std::vector<std::string>{"thr", "qlen"});
    const sgdnet::Result r = model.run(exact());
    CHECK(r.solver == "exact");
    CHECK(r.precision_reached);
    CHECK(r.measure("thr").mean == doctest::Approx(mm1k_throughput(5)).epsilon(1e-9));
    CHECK(r.measure("qlen").mean == doctest::Approx(mm1k_mean_jobs(5)).epsilon(1e-9));
    CHECK(r.measure("thr").unit == "1/s");
    CHECK(r.stats.states.value_or(0) == 6);  // 0..K jobs
}

TEST_CASE("--set values change the model: K = 10 gives the K = 10 closed form") {
    sgdnet::CompileOptions options;
    options.set = {{"K", "10"}};
    const sgdnet::Model model = sgdnet::Model::compile(kMm1k, "mm1k.sgdnet", options);
    CHECK(model.params() == std::vector<std::pair<std::string, double>>{{"K", 10}});
    const sgdnet::Result r = model.run(exact());
    CHECK(r.measure("thr").mean == doctest::Approx(mm1k_throughput(10)).epsilon(1e-9));
    CHECK(r.measure("qlen").mean == doctest::Approx(mm1k_mean_jobs(10)).epsilon(1e-9));
}

TEST_CASE("simulation: the closed form lies in the 95% interval, and the seed fixes the numbers") {
    const sgdnet::Model model = sgdnet::Model::compile(kMm1k, "mm1k.sgdnet");
    sgdnet::RunOptions options;
    options.seed = 3;
    options.threads = 1;
    const sgdnet::Result one = model.run(options);
    options.threads = 2;
    const sgdnet::Result two = model.run(options);
    const sgdnet::Measure& thr = one.measure("thr");
    CHECK(thr.ci_low <= mm1k_throughput(5));
    CHECK(mm1k_throughput(5) <= thr.ci_high);
    CHECK((thr.ci_high - thr.ci_low) / 2 <= 0.01 * thr.mean * 1.0000001);  // 1% precision met
    REQUIRE(one.measures.size() == two.measures.size());
    for (std::size_t i = 0; i < one.measures.size(); ++i) {
        CHECK(one.measures[i].mean == two.measures[i].mean);
        CHECK(one.measures[i].ci_low == two.measures[i].ci_low);
    }
    CHECK(one.stats.events == two.stats.events);
}

TEST_CASE("compile errors are an exception carrying every diagnostic with its position") {
    const std::string text =
        "model m;\nnet n {\n  place p = 0\n  transition t ~ exp(rate = 1/s) { in p; }\n}\n";
    try {
        sgdnet::Model::compile(text, "bad.sgdnet");
        FAIL("no CompileError");
    } catch (const sgdnet::CompileError& e) {
        REQUIRE(!e.diagnostics().empty());
        const sgdnet::Diagnostic& d = e.diagnostics().front();
        CHECK(d.severity == sgdnet::Diagnostic::Severity::Error);
        CHECK(d.file == "bad.sgdnet");
        CHECK(d.line == 3);  // the missing ';' is reported at the end of `place p = 0`
        CHECK(d.column > 0);
        CHECK(e.rendered().find("bad.sgdnet:3:") != std::string::npos);
    }
}

TEST_CASE("an unknown --set name and an unreadable file are compile errors") {
    sgdnet::CompileOptions options;
    options.set = {{"Q", "3"}};
    CHECK_THROWS_AS(sgdnet::Model::compile(kMm1k, "mm1k.sgdnet", options), sgdnet::CompileError);
    try {
        sgdnet::Model::compile_file("/nonexistent/model.sgdnet");
        FAIL("no CompileError");
    } catch (const sgdnet::CompileError& e) {
        REQUIRE(e.diagnostics().size() == 1);
        CHECK(e.diagnostics()[0].line == 0);
        CHECK(e.diagnostics()[0].message.find("cannot read") != std::string::npos);
    }
}

TEST_CASE("a net that cannot be solved throws SolveError naming the element") {
    // One token consumed and never returned: the net is dead after the first firing.
    const char* const dead = R"(model dead;
net n {
  place p = 1;
  transition t ~ exp(rate = 1/s) { in p; }
}
measure thr = throughput(n.t);
)";
    const sgdnet::Model model = sgdnet::Model::compile(dead, "dead.sgdnet");
    try {
        model.run(exact());
        FAIL("no SolveError");
    } catch (const sgdnet::SolveError& e) {
        CHECK(e.kind() == sgdnet::SolveError::Kind::Deadlock);
    }
}

TEST_CASE("invalid run options and unknown measures are std exceptions") {
    const sgdnet::Model model = sgdnet::Model::compile(kMm1k, "mm1k.sgdnet");
    sgdnet::RunOptions bad;
    bad.precision = 0;
    CHECK_THROWS_AS(model.run(bad), std::invalid_argument);
    bad = {};
    bad.confidence = 1.5;
    CHECK_THROWS_AS(model.run(bad), std::invalid_argument);
    const sgdnet::Result r = model.run(exact());
    CHECK_THROWS_AS(r.measure("nope"), std::out_of_range);
}

TEST_CASE("emit: every format, and stats that agree with the net text's count line") {
    const sgdnet::Model model = sgdnet::Model::compile(kMm1k, "mm1k.sgdnet");
    const sgdnet::ModelStats s = model.stats();
    CHECK(s.places == 1);
    CHECK(s.timed == 2);
    CHECK(s.immediate == 0);
    CHECK(s.arcs == 3);
    CHECK(s.measures == 2);
    const std::string text = model.emit(sgdnet::EmitFormat::Net);
    CHECK(text.rfind("net mm1k\n  places 1, timed 2, immediate 0, arcs 3, measures 2\n", 0) == 0);
    CHECK(model.emit(sgdnet::EmitFormat::Dot).rfind("digraph", 0) == 0);
    CHECK(model.emit(sgdnet::EmitFormat::Pnml).find("<pnml") != std::string::npos);
    CHECK(model.emit(sgdnet::EmitFormat::Json).find("\"transitions\"") != std::string::npos);
}

TEST_CASE("version is the project's") { CHECK(sgdnet::version() == SGDNET_EXPECTED_VERSION); }

TEST_CASE("import_profile: the layer table of a profile, or every problem as a CompileError") {
    const std::string dir = std::string(SGDNET_TEST_DATA_DIR) + "/profiles/";
    const std::string text = sgdnet::import_profile(dir + "mlp_layers.json");
    CHECK(text.find("layers mlp_layers {") != std::string::npos);
    CHECK(text.find("let mlp_layers_compute = ") != std::string::npos);
    // `name` names the table (--name).
    CHECK(sgdnet::import_profile(dir + "mlp_layers.json", "m").find("layers m {") !=
          std::string::npos);
    CHECK_THROWS_AS(sgdnet::import_profile(dir + "does_not_exist.json"), sgdnet::CompileError);
}
