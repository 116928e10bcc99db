// Unit tests of rank 0's bookkeeping (mpi/coordinator.hpp): points handed out in order to
// whichever rank asks, rows delivered in point order whatever rank finishes first, skipped
// points left out, a stop, and a rank returning a point it was not given.
#include "mpi/coordinator.hpp"

#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "sweep/sweep_spec.hpp"

using namespace sgdnet;

namespace {

/// A compiled sweep of `points` points of one param, without nets (the coordinator never
/// touches them).
sweep::CompiledSweep sweep_of(std::size_t points) {
    sweep::CompiledSweep s;
    sweep::SweepParam p;
    p.name = "N";
    for (std::size_t k = 0; k < points; ++k) {
        p.values.push_back({std::to_string(k + 1), static_cast<double>(k + 1)});
        s.plan.points.push_back({k});
    }
    s.plan.params.push_back(p);
    return s;
}

sweep::SweepRow solved(std::size_t k) {
    sweep::SweepRow row;
    row.index = k;
    row.result = solver::SolveResult{};
    return row;
}

}  // namespace

TEST_CASE("coordinator: points out in order, rows back in order whatever finishes first") {
    const auto s = sweep_of(5);
    sweep::SweepOptions options;
    std::vector<std::size_t> delivered, progress;
    options.on_progress = [&](const sweep::SweepProgress& p) { progress.push_back(p.point); };
    const sweep::RowCallback on_row = [&](sweep::SweepRow&& row) {
        CHECK(row.params.size() == 1);
        CHECK(row.params[0].value.canonical == static_cast<double>(row.index + 1));
        delivered.push_back(row.index);
    };
    mpi::Coordinator c(s, options, on_row);
    CHECK(c.hand_out(0) == 0u);
    CHECK(c.hand_out(1) == 1u);
    CHECK(c.hand_out(2) == 2u);
    c.finish(2, solved(2));  // finishes first: held back
    CHECK(delivered.empty());
    CHECK(c.hand_out(2) == 3u);
    c.finish(1, solved(1));
    CHECK(delivered.empty());
    c.finish(0, solved(0));
    CHECK(delivered == std::vector<std::size_t>{0, 1, 2});
    CHECK(c.hand_out(0) == 4u);
    CHECK_FALSE(c.hand_out(1));
    CHECK_FALSE(c.done());
    CHECK(c.in_flight().size() == 2);
    c.finish(0, solved(4));
    c.finish(2, solved(3));
    CHECK(c.done());
    CHECK(delivered == std::vector<std::size_t>{0, 1, 2, 3, 4});
    CHECK(progress == std::vector<std::size_t>{2, 1, 0, 4, 3});
    const auto summary = c.summary();
    CHECK(summary.solved == 5);
    CHECK(summary.not_run == 0);
    CHECK_FALSE(summary.cancelled());
}

TEST_CASE("coordinator: skipped points are never handed out; errors are rows") {
    const auto s = sweep_of(4);
    sweep::SweepOptions options;
    options.skip = {true, false, true, false};
    std::vector<std::size_t> delivered;
    const sweep::RowCallback on_row = [&](sweep::SweepRow&& row) {
        delivered.push_back(row.index);
    };
    mpi::Coordinator c(s, options, on_row);
    CHECK(c.hand_out(3) == 1u);
    CHECK(c.hand_out(0) == 3u);
    sweep::SweepRow failed;
    failed.index = 1;
    failed.error = solver::SolveError(solver::SolveError::Kind::Deadlock, "dead");
    c.finish(3, std::move(failed));
    c.finish(0, solved(3));
    CHECK(c.done());
    CHECK(delivered == std::vector<std::size_t>{1, 3});
    const auto summary = c.summary();
    CHECK(summary.skipped == 2);
    CHECK(summary.failed == 1);
    CHECK(summary.solved == 1);
}

TEST_CASE("coordinator: stop hands out nothing more; deliver_rest delivers past the gap") {
    const auto s = sweep_of(6);
    sweep::SweepOptions options;
    std::vector<std::size_t> delivered;
    const sweep::RowCallback on_row = [&](sweep::SweepRow&& row) {
        delivered.push_back(row.index);
    };
    mpi::Coordinator c(s, options, on_row);
    c.hand_out(0);
    c.hand_out(1);
    c.hand_out(2);
    c.finish(1, solved(1));
    c.finish(2, solved(2));
    c.stop();
    CHECK_FALSE(c.hand_out(1));
    CHECK_FALSE(c.done());  // point 0 is in flight at rank 0
    REQUIRE(c.in_flight().size() == 1);
    CHECK(c.in_flight()[0].rank == 0);
    CHECK(c.in_flight()[0].point == 0);
    c.deliver_rest();
    CHECK(delivered == std::vector<std::size_t>{1, 2});
    CHECK(c.summary().not_run == 4);
    CHECK(c.summary().cancelled());
}

TEST_CASE("coordinator: a rank returning a point it was not given is refused") {
    const auto s = sweep_of(3);
    sweep::SweepOptions options;
    const sweep::RowCallback on_row = [](sweep::SweepRow&&) {};
    mpi::Coordinator c(s, options, on_row);
    c.hand_out(1);
    CHECK_THROWS_AS(c.finish(1, solved(2)), std::invalid_argument);
    CHECK_THROWS_AS(c.finish(2, solved(0)), std::invalid_argument);
    options.skip = {true};
    CHECK_THROWS_AS(mpi::Coordinator(s, options, on_row), std::invalid_argument);
}
