// Unit tests of the sweep engine (sweep/sweep_run.hpp): compiling every point, rows delivered in
// point order whatever finishes first, cancellation, skipping rows already done, errors as data.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "solver/solve.hpp"
#include "sweep/sweep_run.hpp"
#include "sweep/sweep_spec.hpp"

namespace sweep = sgdnet::sweep;
namespace solver = sgdnet::solver;

namespace {

// M/M/1 of examples/mm1.sgdnet with the service mean S as a param: arrivals at λ = 1/s,
// ρ = λS. Closed form (Kleinrock, Queueing Systems I, §3.2): throughput = λ,
// P(server busy) = ρ, E[N] = ρ/(1-ρ).
constexpr const char* kMm1 = R"(model mm1;
net mm1 {
  param S = 800 ms;
  place queue = 0;
  transition arrive ~ exp(rate = 1 /s) { out queue; }
  transition serve  ~ exp(mean = S)   { in queue; }
}
measure thr  = throughput(mm1.serve);
measure busy = prob(mm1.queue > 0);
measure qlen = tokens(mm1.queue);
)";

/// A plan over `ranges` (`NAME=RANGE`, grid) of the model text, solved by simulation.
sweep::SweepPlan plan_of(const std::vector<std::string>& ranges, const char* text = kMm1) {
    sweep::SweepPlan plan;
    plan.model_path = "mm1.sgdnet";
    plan.model_text = text;
    for (const auto& r : ranges) {
        std::string error;
        auto p = sweep::parse_sweep_set(r, error);
        INFO(r << ": " << error);
        REQUIRE(p.has_value());
        plan.params.push_back(std::move(*p));
    }
    std::string error;
    auto points = sweep::sweep_points(plan.params, /*zip=*/false, error);
    REQUIRE(points.has_value());
    plan.points = std::move(*points);
    plan.solve.precision = 0.05;
    plan.solve.seed = 7;
    plan.solve.threads = 1;
    return plan;
}

/// Six points, S = 100 ms … 600 ms (ρ = 0.1 … 0.6).
sweep::CompiledSweep six_points() {
    return sweep::compile_sweep(plan_of({"mm1.S=100ms..600ms:+100ms"}));
}

/// Runs `sweep` and returns its rows in the order the callback got them.
std::vector<sweep::SweepRow> rows_of(const sweep::CompiledSweep& sweep,
                                     const sweep::SweepOptions& options,
                                     const std::atomic<bool>* cancel = nullptr,
                                     sweep::SweepSummary* summary = nullptr) {
    std::vector<sweep::SweepRow> rows;
    const auto s = sweep::run_sweep(
        sweep, options, [&](sweep::SweepRow&& row) { rows.push_back(std::move(row)); }, cancel);
    if (summary) *summary = s;
    return rows;
}

/// A solve that takes `delay_ms(point's S in ms)` longer than solver::solve.
template <class Delay>
auto slowed(Delay delay_ms) {
    return [delay_ms](const sgdnet::net::PetriNet& net, const solver::SolveOptions& options) {
        double s = 0;
        for (const auto& p : net.params) {
            if (p.name == "mm1.S") s = p.value;
        }
        std::this_thread::sleep_for(
            std::chrono::milliseconds(static_cast<long>(delay_ms(s * 1000))));
        return solver::solve(net, options);
    };
}

std::vector<std::size_t> indices(const std::vector<sweep::SweepRow>& rows) {
    std::vector<std::size_t> out;
    for (const auto& r : rows) out.push_back(r.index);
    return out;
}

}  // namespace

TEST_CASE("compile_sweep compiles every point with its swept values") {
    std::vector<std::size_t> reported;
    const auto sweep = sweep::compile_sweep(
        plan_of({"mm1.S=100ms,200ms", "x=1..3"}, R"(model m;
net mm1 {
  param S = 800 ms;
  param x = 1;
  place queue = 0;
  transition arrive ~ exp(rate = 1 /s) { out queue; }
  transition serve  ~ exp(mean = S)   { in queue*x; }
}
measure thr = throughput(mm1.serve);
)"),
        [&](std::size_t k, const auto&) { reported.push_back(k); });
    CHECK(reported == std::vector<std::size_t>{0, 1, 2, 3, 4, 5});
    REQUIRE(sweep.nets.size() == 6);
    CHECK(sweep.measure_names == std::vector<std::string>{"thr"});
    // Point 4 is S = 200 ms, x = 2 (the last param varies fastest).
    const auto params = sweep::point_params(sweep.plan, 4);
    REQUIRE(params.size() == 2);
    CHECK(params[0].name == "mm1.S");
    CHECK(params[0].value.canonical == doctest::Approx(0.2));
    CHECK(params[1].value.text == "2");
}

TEST_CASE("compile_sweep: errors stop at the failing point") {
    SUBCASE("an unknown param is a diagnostic of point 0") {
        std::size_t calls = 0;
        try {
            sweep::compile_sweep(plan_of({"mm1.T=1..3"}),
                                 [&](std::size_t, const auto& diags) {
                                     ++calls;
                                     CHECK(diags.has_errors());
                                 });
            FAIL("no error");
        } catch (const sweep::SweepError& e) {
            CHECK(e.kind() == sweep::SweepError::Kind::Diagnostics);
            CHECK(e.point() == 0);
        }
        CHECK(calls == 1);
    }
    SUBCASE("a model without measures") {
        try {
            sweep::compile_sweep(plan_of({"q.x=1,2"}, "net q { param x = 1; place p = x; }"));
            FAIL("no error");
        } catch (const sweep::SweepError& e) {
            CHECK(e.kind() == sweep::SweepError::Kind::NoMeasure);
            CHECK(std::string(e.what()) == "mm1.sgdnet: the model defines no measure");
        }
    }
}

TEST_CASE("compile_sweep with CompileErrors::Collect: every point compiled, every bad one named") {
    // S = -100 ms, 100 ms, -200 ms, 200 ms: a negative mean does not compile (points 0 and 2).
    std::vector<std::size_t> seen, failed;
    try {
        sweep::compile_sweep(
            plan_of({"mm1.S=-100ms,100ms,-200ms,200ms"}),
            [&](std::size_t k, const auto& diags) {
                seen.push_back(k);
                if (diags.has_errors()) failed.push_back(k);
            },
            sweep::CompileErrors::Collect);
        FAIL("no error");
    } catch (const sweep::SweepError& e) {
        CHECK(e.kind() == sweep::SweepError::Kind::Diagnostics);
        CHECK(e.point() == 0);
        CHECK(e.points() == std::vector<std::size_t>{0, 2});
        CHECK(std::string(e.what()) == "mm1.sgdnet: 2 of 4 points do not compile");
    }
    CHECK(seen == std::vector<std::size_t>{0, 1, 2, 3});
    CHECK(failed == std::vector<std::size_t>{0, 2});
}

TEST_CASE("rows come in point order whatever finishes first") {
    const auto sweep = six_points();
    sweep::SweepOptions options;
    options.threads = 2;
    // Point 0 is by far the slowest and point 5 the fastest: later points finish first and are
    // held back until every earlier row is delivered.
    options.solve = slowed([](double s_ms) { return s_ms <= 100 ? 400 : (600 - s_ms) / 2; });
    std::vector<std::size_t> finished;
    options.on_progress = [&](const sweep::SweepProgress& p) {
        finished.push_back(p.point);
        CHECK(p.to_solve == 6);
        CHECK(p.solved == finished.size());
    };
    sweep::SweepSummary summary;
    const auto rows = rows_of(sweep, options, nullptr, &summary);
    CHECK(indices(rows) == std::vector<std::size_t>{0, 1, 2, 3, 4, 5});
    REQUIRE(finished.size() == 6);
    // With a second thread, a later point finishes first: the buffering was exercised.
    if (std::thread::hardware_concurrency() > 1) CHECK(finished.front() != 0);
    CHECK(summary.solved == 6);
    CHECK(summary.failed == 0);
    CHECK_FALSE(summary.cancelled());

    // The numbers are M/M/1's with ρ = S·1/s (within 3%: the run stops at a 5% half-width of
    // the throughput, and the seed is fixed), and the same whatever the thread count.
    sweep::SweepOptions one_thread;
    one_thread.threads = 1;
    const auto serial = rows_of(sweep, one_thread);
    REQUIRE(serial.size() == 6);
    for (std::size_t k = 0; k < 6; ++k) {
        REQUIRE(rows[k].result);
        const auto& m = rows[k].result->measures;
        const double rho = rows[k].params[0].value.canonical;
        INFO("rho = " << rho);
        REQUIRE(m.size() == 3);
        CHECK(m[0].mean == doctest::Approx(1.0).epsilon(0.03));
        CHECK((m[0].ci_high - m[0].ci_low) / 2 <= 0.05 * m[0].mean);
        CHECK(m[1].mean == doctest::Approx(rho).epsilon(0.03));
        CHECK(m[2].mean == doctest::Approx(rho / (1 - rho)).epsilon(0.03));
        CHECK(m[2].mean == serial[k].result->measures[2].mean);
    }
}

TEST_CASE("cancel: no new point starts, every finished row is kept") {
    const auto sweep = six_points();
    SUBCASE("one thread: a prefix") {
        std::atomic<bool> cancel{false};
        sweep::SweepOptions options;
        options.threads = 1;
        options.on_progress = [&](const sweep::SweepProgress& p) {
            if (p.solved == 3) cancel.store(true);
        };
        sweep::SweepSummary summary;
        const auto rows = rows_of(sweep, options, &cancel, &summary);
        CHECK(indices(rows) == std::vector<std::size_t>{0, 1, 2});
        CHECK(summary.solved == 3);
        CHECK(summary.not_run == 3);
        CHECK(summary.cancelled());
    }
    SUBCASE("several threads: increasing indices, rows finished past a gap too") {
        std::atomic<bool> cancel{false};
        sweep::SweepOptions options;
        options.threads = 2;
        // Point 0 is slow; the cancel comes once two other points are done.
        options.solve = slowed([](double s_ms) { return s_ms <= 100 ? 300 : 0; });
        options.on_progress = [&](const sweep::SweepProgress& p) {
            if (p.solved == 2) cancel.store(true);
        };
        sweep::SweepSummary summary;
        const auto rows = rows_of(sweep, options, &cancel, &summary);
        const auto got = indices(rows);
        CHECK(std::is_sorted(got.begin(), got.end()));
        CHECK(std::adjacent_find(got.begin(), got.end()) == got.end());
        CHECK(rows.size() == summary.solved);
        CHECK(summary.solved >= 2);
        CHECK(summary.solved + summary.not_run == 6);
        REQUIRE_FALSE(rows.empty());
        CHECK(rows.front().index == 0);  // the point in progress at the cancel finished
    }
    SUBCASE("cancelled before the start: nothing runs") {
        std::atomic<bool> cancel{true};
        sweep::SweepSummary summary;
        CHECK(rows_of(sweep, {}, &cancel, &summary).empty());
        CHECK(summary.not_run == 6);
    }
}

TEST_CASE("skipping the first K points resumes the sweep") {
    const auto sweep = six_points();
    sweep::SweepOptions all;
    all.threads = 2;
    const auto full = rows_of(sweep, all);
    REQUIRE(full.size() == 6);

    sweep::SweepOptions resume = all;
    resume.skip = {true, true, true, true, false, false};
    std::size_t progress_calls = 0;
    resume.on_progress = [&](const sweep::SweepProgress& p) {
        ++progress_calls;
        CHECK(p.to_solve == 2);
    };
    sweep::SweepSummary summary;
    const auto rest = rows_of(sweep, resume, nullptr, &summary);
    CHECK(indices(rest) == std::vector<std::size_t>{4, 5});
    CHECK(progress_calls == 2);
    CHECK(summary.skipped == 4);
    CHECK(summary.solved == 2);
    for (const auto& row : rest) {
        // Every point uses the same seed: the resumed rows equal the uninterrupted ones.
        for (std::size_t m = 0; m < 3; ++m) {
            CHECK(row.result->measures[m].mean == full[row.index].result->measures[m].mean);
            CHECK(row.result->measures[m].ci_low == full[row.index].result->measures[m].ci_low);
        }
    }

    resume.skip = {true, false};
    CHECK_THROWS_AS(rows_of(sweep, resume), std::invalid_argument);
}

TEST_CASE("a point's SolveError is a row carrying its params; the others go on") {
    auto plan = plan_of({"mm1.S=100ms..600ms:+100ms"});
    // The exact solver cannot hold M/M/1's infinite state space: StateSpaceTooLarge at every
    // point. Point 2 alone goes to the exact solver.
    const auto sweep = sweep::compile_sweep(plan);
    sweep::SweepOptions options;
    options.threads = 2;
    options.solve = [](const sgdnet::net::PetriNet& net, solver::SolveOptions o) {
        for (const auto& p : net.params) {
            if (p.name == "mm1.S" && p.value > 0.25 && p.value < 0.35) {
                o.solver = solver::SolverKind::Exact;
                o.max_states = 50;
            }
        }
        return solver::solve(net, o);
    };
    sweep::SweepSummary summary;
    const auto rows = rows_of(sweep, options, nullptr, &summary);
    CHECK(indices(rows) == std::vector<std::size_t>{0, 1, 2, 3, 4, 5});
    REQUIRE(rows[2].error);
    CHECK_FALSE(rows[2].result);
    CHECK(rows[2].error->kind() == solver::SolveError::Kind::StateSpaceTooLarge);
    REQUIRE(rows[2].params.size() == 1);
    CHECK(rows[2].params[0].name == "mm1.S");
    CHECK(rows[2].params[0].value.canonical == doctest::Approx(0.3));
    for (std::size_t k : {0, 1, 3, 4, 5}) CHECK(rows[k].result);
    CHECK(summary.solved == 5);
    CHECK(summary.failed == 1);
}

TEST_CASE("an exception from the row callback stops the sweep and propagates") {
    const auto sweep = six_points();
    sweep::SweepOptions options;
    options.threads = 1;
    std::size_t calls = 0;
    CHECK_THROWS_AS(sweep::run_sweep(sweep, options,
                                     [&](sweep::SweepRow&&) {
                                         ++calls;
                                         throw std::runtime_error("disk full");
                                     }),
                    std::runtime_error);
    CHECK(calls == 1);
}
