// Tests of the public sweep API: points in grid order, closed forms at every point, cancellation,
// errors.
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "sgdnet/sgdnet.hpp"

namespace {

// M/M/1/K, λ = 1/s, service mean 0.8 s (ρ = 0.8), K a top-level param; Kleinrock §3.6:
// throughput = λ (1 - p_K), p_K = ρ^K (1-ρ) / (1-ρ^(K+1)).
const char* const kMm1k = R"(model mm1k;
param K = 5;
param S = 800 ms;
net q {
  place queue = 0;
  transition arrive ~ exp(rate = 1 /s) { out queue; inhibit queue*K; }
  transition serve  ~ exp(mean = S)    { in queue; }
}
measure thr  = throughput(q.serve);
measure qlen = tokens(q.queue);
)";

double mm1k_throughput(double k, double service_s) {
    const double rho = service_s;  // λ = 1/s
    const double p_k = std::pow(rho, k) * (1 - rho) / (1 - std::pow(rho, k + 1));
    return 1 - p_k;
}

sgdnet::SweepOptions exact_options() {
    sgdnet::SweepOptions o;
    o.run.solver = sgdnet::Solver::Exact;
    return o;
}

}  // namespace

TEST_CASE("a grid sweep: rows in grid order, the last axis fastest, closed form at every point") {
    const std::vector<sgdnet::SweepAxis> axes = {sgdnet::SweepAxis::parse("K=2..4"),
                                                 {"S", {"500ms", "0.9 s"}}};
    const sgdnet::Sweep sweep = sgdnet::Sweep::compile(kMm1k, "mm1k.sgdnet", axes, exact_options());
    REQUIRE(sweep.size() == 6);
    CHECK(sweep.columns() == std::vector<std::string>{"K", "S", "thr", "thr_ci_low", "thr_ci_high",
                                                      "qlen", "qlen_ci_low", "qlen_ci_high"});
    std::vector<std::size_t> order;
    const sgdnet::SweepSummary summary = sweep.run([&](const sgdnet::SweepRow& row) {
        order.push_back(row.index);
        REQUIRE(row.result);
        const double k = row.params[0].value;
        const double s = row.params[1].value;
        CHECK(k == 2 + static_cast<double>(row.index / 2));
        CHECK(s == (row.index % 2 == 0 ? 0.5 : 0.9));
        CHECK(row.result->measure("thr").mean ==
              doctest::Approx(mm1k_throughput(k, s)).epsilon(1e-9));
    });
    CHECK(order == std::vector<std::size_t>{0, 1, 2, 3, 4, 5});
    CHECK(summary.solved == 6);
    CHECK(summary.failed == 0);
    CHECK(!summary.cancelled());
    CHECK(sweep.point(5)[1].text == "0.9 s");
}

TEST_CASE("zip pairs the axes; a sweep row equals a lone run of its point, whatever the threads") {
    sgdnet::SweepOptions options;
    options.zip = true;
    options.run.seed = 5;
    options.threads = 2;
    const sgdnet::Sweep sweep = sgdnet::Sweep::compile(
        kMm1k, "mm1k.sgdnet", {{"K", {"3", "6"}}, {"S", {"600ms", "700ms"}}}, options);
    REQUIRE(sweep.size() == 2);
    std::vector<sgdnet::Result> rows;
    sweep.run([&](const sgdnet::SweepRow& row) { rows.push_back(*row.result); });
    REQUIRE(rows.size() == 2);
    sgdnet::CompileOptions at_point;
    at_point.set = {{"K", "6"}, {"S", "700ms"}};
    sgdnet::RunOptions run;
    run.seed = 5;
    run.threads = 1;
    const sgdnet::Result lone = sgdnet::Model::compile(kMm1k, "mm1k.sgdnet", at_point).run(run);
    CHECK(rows[1].measure("thr").mean == lone.measure("thr").mean);
    CHECK(rows[1].measure("thr").ci_low == lone.measure("thr").ci_low);
    CHECK(rows[1].measure("thr").ci_low <= mm1k_throughput(6, 0.7));
    CHECK(mm1k_throughput(6, 0.7) <= rows[1].measure("thr").ci_high);
}

TEST_CASE("cancel: no point starts once the flag is set; the delivered rows are a prefix") {
    sgdnet::SweepOptions options = exact_options();
    options.threads = 1;
    const sgdnet::Sweep sweep = sgdnet::Sweep::compile(
        kMm1k, "mm1k.sgdnet", {sgdnet::SweepAxis::parse("K=1..20")}, options);
    std::atomic<bool> cancel{false};
    std::vector<std::size_t> order;
    const sgdnet::SweepSummary summary = sweep.run(
        [&](const sgdnet::SweepRow& row) {
            order.push_back(row.index);
            if (order.size() == 3) cancel = true;
        },
        &cancel);
    CHECK(summary.cancelled());
    CHECK(order == std::vector<std::size_t>{0, 1, 2});
    CHECK(summary.solved + summary.not_run == 20);

    // Resuming: skip what was done, the rest comes with the same numbers.
    std::vector<bool> skip(20, false);
    for (std::size_t k : order) skip[k] = true;
    std::size_t first = 99;
    sweep.run([&](const sgdnet::SweepRow& row) { first = std::min(first, row.index); }, nullptr,
              skip);
    CHECK(first == 3);
}

TEST_CASE(
    "sweep errors: malformed axes, a point that does not compile, a point that cannot be solved") {
    CHECK_THROWS_AS(sgdnet::SweepAxis::parse("K=5..1x"), std::invalid_argument);
    CHECK_THROWS_AS(sgdnet::Sweep::compile(kMm1k, "m.sgdnet", {{"K", {}}}), std::invalid_argument);
    CHECK_THROWS_AS(sgdnet::Sweep::compile(kMm1k, "m.sgdnet", {{"K", {"2"}}, {"K", {"3"}}}),
                    std::invalid_argument);
    sgdnet::SweepOptions zip;
    zip.zip = true;
    CHECK_THROWS_AS(
        sgdnet::Sweep::compile(kMm1k, "m.sgdnet", {{"K", {"2", "3"}}, {"S", {"1s"}}}, zip),
        std::invalid_argument);
    CHECK_THROWS_AS(sgdnet::Sweep::compile(kMm1k, "m.sgdnet", {{"K", {"2", "3 s"}}}),
                    std::invalid_argument);  // one dimension per axis
    // A negative mean does not compile: the error names the point and carries the diagnostic.
    try {
        sgdnet::Sweep::compile(kMm1k, "m.sgdnet", {{"S", {"1 s", "-2 s"}}});
        FAIL("no CompileError");
    } catch (const sgdnet::CompileError& e) {
        CHECK(std::string(e.what()).find("S=-2") != std::string::npos);
        REQUIRE(!e.diagnostics().empty());
        CHECK(e.diagnostics().front().line > 0);
    }
    // K = 2000 has 2001 states, over the limit of 100: that row carries the solver's error and
    // the other points are solved.
    sgdnet::SweepOptions small = exact_options();
    small.run.max_states = 100;
    const sgdnet::Sweep sweep =
        sgdnet::Sweep::compile(kMm1k, "m.sgdnet", {{"K", {"3", "2000", "4"}}}, small);
    std::vector<bool> failed;
    sweep.run([&](const sgdnet::SweepRow& row) {
        CHECK((row.result.has_value() != row.error.has_value()));
        failed.push_back(row.error.has_value());
        if (row.error) CHECK(row.error->kind() == sgdnet::SolveError::Kind::StateSpaceTooLarge);
    });
    CHECK(failed == std::vector<bool>{false, true, false});
}
