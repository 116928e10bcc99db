// Unit tests of the row codec: every field of a result or error survives the trip, doubles bit
// for bit (NaN payloads, -0, denormals), and malformed bytes are refused.
#include "mpi/row_codec.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

using namespace sgdnet;

namespace {

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

sweep::SweepRow row_with_result() {
    solver::SolveResult r;
    r.solver = "sim";
    r.measures.push_back({"thr", 0.1 + 0.2, std::nextafter(0.3, 0.0), -0.0, "1/s"});
    r.measures.push_back({"odd", std::numeric_limits<double>::quiet_NaN(),
                          std::numeric_limits<double>::denorm_min(),
                          std::numeric_limits<double>::infinity(), ""});
    r.stats.replications = 12;
    r.stats.events = (1ull << 40) + 3;
    r.stats.simulated_s = 1e300;
    r.stats.wall_s = 0.125;
    r.stats.residual = 1e-17;
    r.stats.method = "sparse-lu";
    r.precision_reached = false;
    r.warnings = {"first warning", ""};
    sweep::SweepRow row;
    row.index = 39;
    row.result = r;
    return row;
}

}  // namespace

TEST_CASE("row codec: a result survives bit for bit") {
    const auto row = row_with_result();
    const auto back = mpi::decode_row(mpi::encode_row(row));
    CHECK(back.index == 39);
    CHECK(back.params.empty());
    REQUIRE(back.result);
    CHECK_FALSE(back.error);
    const auto& a = *row.result;
    const auto& b = *back.result;
    CHECK(b.solver == a.solver);
    REQUIRE(b.measures.size() == a.measures.size());
    for (std::size_t m = 0; m < a.measures.size(); ++m) {
        CHECK(b.measures[m].name == a.measures[m].name);
        CHECK(bits(b.measures[m].mean) == bits(a.measures[m].mean));
        CHECK(bits(b.measures[m].ci_low) == bits(a.measures[m].ci_low));
        CHECK(bits(b.measures[m].ci_high) == bits(a.measures[m].ci_high));
        CHECK(b.measures[m].unit == a.measures[m].unit);
    }
    CHECK(b.stats.replications == a.stats.replications);
    CHECK(b.stats.events == a.stats.events);
    CHECK(bits(b.stats.simulated_s) == bits(a.stats.simulated_s));
    CHECK(bits(b.stats.wall_s) == bits(a.stats.wall_s));
    CHECK_FALSE(b.stats.states);
    CHECK(b.stats.residual == a.stats.residual);
    CHECK_FALSE(b.stats.iterations);
    CHECK(b.stats.method == a.stats.method);
    CHECK(b.precision_reached == a.precision_reached);
    CHECK(b.warnings == a.warnings);
}

TEST_CASE("row codec: an error survives with its kind and net element") {
    sweep::SweepRow row;
    row.index = 5;
    row.error = solver::SolveError(solver::SolveError::Kind::Unbounded, "place q is unbounded", 3u);
    const auto back = mpi::decode_row(mpi::encode_row(row));
    CHECK(back.index == 5);
    CHECK_FALSE(back.result);
    REQUIRE(back.error);
    CHECK(back.error->kind() == solver::SolveError::Kind::Unbounded);
    CHECK(std::string(back.error->what()) == "place q is unbounded");
    CHECK(back.error->place() == 3u);
    CHECK_FALSE(back.error->transition());
}

TEST_CASE("row codec: truncated or padded bytes are refused") {
    const std::string bytes = mpi::encode_row(row_with_result());
    for (std::size_t n : {std::size_t{0}, std::size_t{7}, bytes.size() / 2, bytes.size() - 1}) {
        CHECK_THROWS_AS(mpi::decode_row(bytes.substr(0, n)), mpi::CodecError);
    }
    CHECK_THROWS_AS(mpi::decode_row(bytes + "x"), mpi::CodecError);
}
