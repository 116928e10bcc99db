// Unit tests of `sum(…)`/`mean(…)` over `[*]` in measures: expansion, closed forms, errors.
#include <doctest/doctest.h>

#include <string>

#include "compiler/compile.hpp"
#include "solver/solve.hpp"

using namespace sgdnet::compiler;
namespace net = sgdnet::net;
namespace solver = sgdnet::solver;

namespace {

std::optional<net::PetriNet> compiled(const std::string& text, Diagnostics& diags,
                                      CompileOptions options = {}) {
    return compile(text, "agg.sgdnet", options, diags);
}

const net::Measure& measure(const net::PetriNet& n, const std::string& name) {
    for (const auto& m : n.measures)
        if (m.name == name) return m;
    FAIL("no measure " << name);
    return n.measures.front();
}

/// K independent machines: up for exp(mean 1 s), down for exp(mean 0.5 s). Each is up 2/3 of
/// the time and fails 2/3 times per second.
const char* kMachines = R"(
param K = 3;
net s {
    place up[K] = 1;
    place down[K];
    transition fail[K] ~ exp(mean = 1 s) { in up[i]; out down[i]; }
    transition fix[K] ~ exp(mean = 500 ms) { in down[i]; out up[i]; }
}
measure failures = sum(throughput(s.fail[*]));
measure per_machine = mean(throughput(s.fail[*]));
measure up_total = sum(tokens(s.up[*]));
measure up_mean = mean(tokens(s.up[*]));
measure up_fraction = mean(prob(s.up[*] > 0));
measure both = sum(tokens(s.up[*]) * tokens(s.down[*]));
)";

std::string errors_of(const std::string& text) {
    Diagnostics d;
    CHECK_FALSE(compiled(text, d));
    return d.render();
}

}  // namespace

TEST_CASE("sum and mean over [*] expand to one term per element, in index order") {
    Diagnostics d;
    auto n = compiled(kMachines, d);
    REQUIRE_MESSAGE(n, d.render());
    const auto& failures = measure(*n, "failures");
    CHECK(failures.kind == net::Measure::Kind::Throughput);
    REQUIRE(failures.terms.size() == 3);
    for (int k = 0; k < 3; ++k) {
        CHECK(failures.terms[k].transition ==
              *n->find_transition("s.fail[" + std::to_string(k) + "]"));
        CHECK(failures.terms[k].coef == 1);
    }
    const auto& per = measure(*n, "per_machine");
    REQUIRE(per.terms.size() == 3);
    CHECK(per.terms[2].coef == doctest::Approx(1.0 / 3));
    CHECK(measure(*n, "up_total").unit == "tokens");
    CHECK(measure(*n, "up_mean").unit == "tokens");
    CHECK(measure(*n, "up_fraction").fraction);
    CHECK_FALSE(measure(*n, "up_total").fraction);
}

TEST_CASE("sum and mean over [*] match the closed form (exact solution)") {
    Diagnostics d;
    auto n = compiled(kMachines, d);
    REQUIRE_MESSAGE(n, d.render());
    solver::SolveOptions options;
    options.solver = solver::SolverKind::Exact;
    const auto r = solver::solve_exact(*n, options);
    auto value = [&](const std::string& name) {
        for (const auto& m : r.measures)
            if (m.name == name) return m.mean;
        FAIL("no estimate " << name);
        return 0.0;
    };
    const double up = 2.0 / 3;  // 1 s up, 0.5 s down
    CHECK(value("failures") == doctest::Approx(3 * up));   // N × one machine's rate
    CHECK(value("per_machine") == doctest::Approx(up));
    CHECK(value("up_total") == doctest::Approx(3 * up));
    CHECK(value("up_mean") == doctest::Approx(up));
    CHECK(value("up_fraction") == doctest::Approx(up));
    CHECK(value("both") == doctest::Approx(0));  // a machine is never up and down at once
}

TEST_CASE("sum over the workers of a training system scales with N") {
    for (int workers : {2, 5}) {
        Diagnostics d;
        CompileOptions options;
        options.overrides.emplace_back("N", std::to_string(workers));
        auto n = compiled("param N = 2;\nworker w[N] { compute = det(10 ms); bandwidth = 1 Gbps; }\n"
                          "training { sync = allreduce_ring; model_bytes = 1 MB; }\n"
                          "measure c = sum(throughput(w[*].compute));\n"
                          "measure u = mean(prob(w[*].ready > 0));",
                          d, options);
        REQUIRE_MESSAGE(n, d.render());
        // steps_per_s is the mean of the workers' compute throughputs: c = N × steps_per_s.
        const auto& steps = measure(*n, "steps_per_s");
        const auto& c = measure(*n, "c");
        REQUIRE(c.terms.size() == static_cast<std::size_t>(workers));
        REQUIRE(steps.terms.size() == c.terms.size());
        for (std::size_t k = 0; k < c.terms.size(); ++k) {
            CHECK(c.terms[k].transition == steps.terms[k].transition);
            CHECK(c.terms[k].coef == doctest::Approx(workers * steps.terms[k].coef));
        }
        CHECK(measure(*n, "u").fraction);
    }
}

TEST_CASE("[*] errors: outside sum/mean, not an array, unknown, nested, without [*]") {
    const std::string net = "net s { place p = 1; place q[2]; transition t[2] ~ det(1 ms) { in p; out p; } }\n";
    CHECK(errors_of(net + "measure a = throughput(s.t[*]);")
              .find("agg.sgdnet:2:24: error: `s.t[*]`: `[*]` (every element of an array) is only "
                    "allowed inside `sum(…)` or `mean(…)` of a measure") != std::string::npos);
    CHECK(errors_of(net + "measure a = sum(tokens(s.p[*]));")
              .find("agg.sgdnet:2:24: error: `s.p` is not an array; `[*]` needs an array of "
                    "places, transitions, workers or servers") != std::string::npos);
    CHECK(errors_of(net + "measure a = sum(tokens(s.qq[*]));")
              .find("unknown array `s.qq` in `s.qq[*]`; did you mean `s.q`?") != std::string::npos);
    CHECK(errors_of(net + "measure a = sum(mean(tokens(s.q[*])));")
              .find("agg.sgdnet:2:13: error: `sum(…)` cannot contain another `sum(…)` or "
                    "`mean(…)`") != std::string::npos);
    CHECK(errors_of(net + "measure a = mean(tokens(s.q[0]));")
              .find("`mean(…)` needs an array element written with `[*]`") != std::string::npos);
    CHECK(errors_of(net + "measure a = sum(tokens(s.q[*]) + tokens(s.p[*]));")
              .find("`s.p` is not an array") != std::string::npos);
    CHECK(errors_of(net + "param x = sum(1);")
              .find("`sum(…)` over an array `[*]` is only allowed in measures") != std::string::npos);
    CHECK(errors_of("net s { place q[2]; transition t ~ det(1 ms) { in q[*]; out q[0]; } }")
              .find("an arc names one place: `[*]`") != std::string::npos);
    CHECK(errors_of("worker w { compute = det(1 ms); }\ntraining { sync = allreduce_ring; }\n"
                    "measure a = sum(throughput(w[*].compute));")
              .find("`w` is not an array") != std::string::npos);
}
