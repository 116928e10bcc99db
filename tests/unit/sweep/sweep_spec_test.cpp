// Unit tests of sweep ranges (`--set NAME=RANGE`, docs/language.md §7) and of grid / zip points.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sweep/sweep_spec.hpp"

using sgdnet::sweep::kMaxSweepValues;
using sgdnet::sweep::parse_sweep_set;
using sgdnet::sweep::SweepParam;
using sgdnet::sweep::sweep_points;

namespace {

/// Parses a range that must be valid.
SweepParam parse(const std::string& arg) {
    std::string error;
    const auto p = parse_sweep_set(arg, error);
    INFO("arg: " << arg << ", error: " << error);
    REQUIRE(p.has_value());
    CHECK(error.empty());
    return *p;
}

/// The canonical values of a range.
std::vector<double> values(const std::string& arg) {
    std::vector<double> out;
    for (const auto& v : parse(arg).values) out.push_back(v.canonical);
    return out;
}

/// The error of a range that must be rejected.
std::string error_of(const std::string& arg) {
    std::string error;
    const auto p = parse_sweep_set(arg, error);
    INFO("arg: " << arg);
    CHECK_FALSE(p.has_value());
    return error;
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("A..B steps by 1 up to and including B") {
    const auto p = parse("N=1..16");
    CHECK(p.name == "N");
    CHECK(p.unit.empty());
    REQUIRE(p.values.size() == 16);
    for (std::size_t k = 0; k < 16; ++k) {
        CHECK(p.values[k].canonical == static_cast<double>(k + 1));
        CHECK(p.values[k].text == std::to_string(k + 1));  // integers go to the compiler as such
    }
    CHECK(values("N=3..3") == std::vector<double>{3});
    // B need not be on the grid: 2, 3, 4 (4.5 is not reached by a step of 1).
    CHECK(values("N=2..4.5") == std::vector<double>{2, 3, 4});
    CHECK(values("x=-3..-1") == std::vector<double>{-3, -2, -1});  // a negative B is included
    CHECK(values(" N = 1 .. 3 ") == std::vector<double>{1, 2, 3});  // spaces around the parts
}

TEST_CASE("A..B with a unit steps by 1 of the unit written on A") {
    // 1ms..5ms is 1, 2, …, 5 ms = 0.001 … 0.005 s, handed to the compiler in canonical seconds.
    const auto p = parse("S=1ms..5ms");
    CHECK(p.unit == "s");
    REQUIRE(p.values.size() == 5);
    CHECK(p.values[0].canonical == doctest::Approx(0.001).epsilon(1e-15));
    CHECK(p.values[4].canonical == doctest::Approx(0.005).epsilon(1e-15));
    CHECK(p.values[2].text == "0.003 s");
    // Bounds in different units of one dimension: A is written in s, so the step is 1 s and
    // the values are 0.5, 1.5, 2.5 s (3.5 s > 3000 ms).
    CHECK(values("S=0.5s..3000ms") == std::vector<double>{0.5, 1.5, 2.5});
    // Rates: 1 Gbps steps of 1 Gbps = 1.25e8 B/s.
    const auto r = parse("bw=1Gbps..3Gbps");
    CHECK(r.unit == "B/s");
    CHECK(values("bw=1Gbps..3Gbps") == std::vector<double>{1.25e8, 2.5e8, 3.75e8});
    CHECK(r.values[1].text == "250000000 B/s");
    CHECK_FALSE(r.values[1].as_written);  // made from the range: shown readably (`2 Gbps`)
    // Frequencies go to the compiler as Hz.
    CHECK(parse("f=1Hz..2Hz").values[1].text == "2 Hz");
}

TEST_CASE("A..B:xK multiplies by K") {
    CHECK(values("N=1..64:x2") == std::vector<double>{1, 2, 4, 8, 16, 32, 64});
    CHECK(values("N=1..64:*2") == values("N=1..64:x2"));
    CHECK(values("N=1..100:x2") == std::vector<double>{1, 2, 4, 8, 16, 32, 64});  // stops below B
    CHECK(values("N=1..81:x3") == std::vector<double>{1, 3, 9, 27, 81});
    // 1, 1.5, 2.25, 3.375 (×1.5); 5.0625 > 4.
    CHECK(values("x=1..4:x1.5") == std::vector<double>{1, 1.5, 2.25, 3.375});
    // 0.1 × 10^k lands on 1, 10, 100 exactly after rounding to 15 digits.
    CHECK(values("x=0.1..100:x10") == std::vector<double>{0.1, 1, 10, 100});
    // With a unit: 1 KB, 4 KB, 16 KB, 64 KB in bytes.
    const auto b = parse("bucket=1KB..64KB:x4");
    CHECK(b.unit == "B");
    CHECK(values("bucket=1KB..64KB:x4") == std::vector<double>{1e3, 4e3, 16e3, 64e3});
    CHECK(b.values[3].text == "64000 B");
}

TEST_CASE("A..B:+S adds S") {
    CHECK(values("N=2..10:+4") == std::vector<double>{2, 6, 10});
    CHECK(values("N=2..10:4") == values("N=2..10:+4"));  // the + is optional
    // 100 ms, 200 ms, …, 1 s: ten values, B included.
    const auto s = values("S=100ms..1s:+100ms");
    REQUIRE(s.size() == 10);
    CHECK(s.front() == 0.1);
    CHECK(s.back() == 1.0);
    // 0.1 + 2 × 0.1 is 0.30000000000000004 in binary; rounded to 15 digits it is 0.3, and 0.3
    // is included as the upper bound.
    CHECK(values("x=0.1..0.3:+0.1") == std::vector<double>{0.1, 0.2, 0.3});
    // A step in another unit of the same dimension: 1 Gbps + k × 500 Mbps = 1.25e8 + k × 6.25e7.
    CHECK(values("bw=1Gbps..2Gbps:+500Mbps") == std::vector<double>{1.25e8, 1.875e8, 2.5e8});
}

TEST_CASE("Lists keep the values as written and give canonical values") {
    // docs/language.md §7: a swept bw=10Gbps is written 1.25e9 (10 × 1e9 / 8 B/s).
    const auto p = parse("bw=1Gbps,10Gbps,25Gbps");
    CHECK(p.name == "bw");
    CHECK(p.unit == "B/s");
    REQUIRE(p.values.size() == 3);
    CHECK(p.values[0].canonical == 1.25e8);
    CHECK(p.values[1].canonical == 1.25e9);
    CHECK(p.values[2].canonical == 3.125e9);
    CHECK(p.values[1].text == "10Gbps");
    CHECK(p.values[1].as_written);
    // Units of one dimension may be mixed; spaces are allowed.
    const auto m = parse("model_bytes=100 MB, 1GiB ,512KiB");
    CHECK(m.unit == "B");
    CHECK(m.values[0].canonical == 1e8);
    CHECK(m.values[1].canonical == 1073741824.0);
    CHECK(m.values[2].canonical == 524288.0);
    CHECK(m.values[1].text == "1GiB");
    // Order is kept, duplicates are not removed.
    CHECK(values("N=8,2,8") == std::vector<double>{8, 2, 8});
    // One value.
    const auto one = parse("bw=10Gbps");
    REQUIRE(one.values.size() == 1);
    CHECK(one.values[0].canonical == 1.25e9);
    CHECK(values("lat=25us") == std::vector<double>{25e-6});
    CHECK(parse("r=5/s").unit == "1/s");
}

TEST_CASE("Bad ranges are rejected with a message naming the problem") {
    CHECK(contains(error_of("N=5..1"), "upper bound is below the lower bound"));
    CHECK(contains(error_of("N=1..4:x1"), "factor must be a number > 1"));
    CHECK(contains(error_of("N=1..4:x0.5"), "factor must be a number > 1"));
    CHECK(contains(error_of("N=1..4:x2s"), "factor must be a number > 1"));
    CHECK(contains(error_of("N=1..4:x"), "expected a number"));
    CHECK(contains(error_of("N=0..64:x2"), "lower bound > 0"));
    CHECK(contains(error_of("N=-1..64:x2"), "lower bound > 0"));
    CHECK(contains(error_of("N=1..4:+0"), "step must be positive"));
    CHECK(contains(error_of("N=1..4:-1"), "step must be positive"));
    CHECK(contains(error_of("S=1ms..5ms:+1"), "the bounds' dimension"));
    CHECK(contains(error_of("N=1s..4MB"), "different dimensions"));
    CHECK(contains(error_of("N=1,2kg"), "unknown unit 'kg'"));
    CHECK(contains(error_of("N=1,2s"), "different dimensions"));
    CHECK(contains(error_of("N=a..b"), "expected a number, got 'a'"));
    CHECK(contains(error_of("N=1,,2"), "expected a number, got ''"));
    CHECK(contains(error_of("N=1..inf"), "finite"));
    CHECK(contains(error_of("N=nan"), "finite"));
    CHECK(contains(error_of("N=1..3,5"), "cannot be part of a list"));
    CHECK(contains(error_of("N="), "expects NAME=RANGE"));
    CHECK(contains(error_of("=1..3"), "expects NAME=RANGE"));
    CHECK(contains(error_of("N"), "expects NAME=RANGE"));
    // A near-miss unit gets a suggestion.
    CHECK(contains(error_of("bw=10Gbs"), "unknown unit 'Gbs'"));
    // Every message names the offending argument.
    CHECK(contains(error_of("N=5..1"), "--set N=5..1: "));
    // More values than a sweep may have: 1..200000 has 200000 > 100000 values.
    CHECK(contains(error_of("N=1..200000"), "more than " + std::to_string(kMaxSweepValues)));
    CHECK(parse("N=1..100000").values.size() == kMaxSweepValues);
}

TEST_CASE("Grid points: every combination, the last param fastest") {
    const std::vector<SweepParam> params = {parse("N=1..64:x2"), parse("bw=10Gbps,25Gbps"),
                                            parse("K=1..3")};
    std::string error;
    const auto points = sweep_points(params, false, error);
    REQUIRE(points.has_value());
    // 7 × 2 × 3 = 42 points.
    REQUIRE(points->size() == 42);
    CHECK((*points)[0] == std::vector<std::size_t>{0, 0, 0});
    CHECK((*points)[1] == std::vector<std::size_t>{0, 0, 1});
    CHECK((*points)[3] == std::vector<std::size_t>{0, 1, 0});
    CHECK((*points)[6] == std::vector<std::size_t>{1, 0, 0});
    CHECK(points->back() == std::vector<std::size_t>{6, 1, 2});
    // Every combination exactly once: point k has index k in mixed radix (7, 2, 3).
    for (std::size_t k = 0; k < points->size(); ++k) {
        const auto& p = (*points)[k];
        CHECK(p[0] * 6 + p[1] * 3 + p[2] == k);
    }
    // One param: its values in order.
    const auto single = sweep_points({parse("N=1..5")}, false, error);
    REQUIRE(single.has_value());
    CHECK(single->size() == 5);
    // No params: no points.
    CHECK(sweep_points({}, false, error)->empty());
}

TEST_CASE("Zip points pair the k-th values; unequal lengths are an error") {
    const std::vector<SweepParam> params = {parse("N=1..64:x2"), parse("S=1ms..7ms")};
    std::string error;
    const auto points = sweep_points(params, true, error);
    REQUIRE(points.has_value());
    REQUIRE(points->size() == 7);  // zip of 7 and 7 values (the grid would have 49)
    for (std::size_t k = 0; k < 7; ++k) CHECK((*points)[k] == std::vector<std::size_t>{k, k});
    CHECK(sweep_points(params, false, error)->size() == 49);

    const auto bad = sweep_points({parse("N=1..3"), parse("bw=10Gbps,25Gbps")}, true, error);
    CHECK_FALSE(bad.has_value());
    CHECK(contains(error, "--zip needs ranges of equal length"));
    CHECK(contains(error, "N has 3 values, bw has 2"));
}

TEST_CASE("A grid over the point limit is an error") {
    // 1000 × 1000 = 1e6 points > 100000.
    std::string error;
    const auto points = sweep_points({parse("a=1..1000"), parse("b=1..1000")}, false, error);
    CHECK_FALSE(points.has_value());
    CHECK(contains(error, "the grid has 1000000 points"));
    // The same ranges zipped are 1000 points.
    CHECK(sweep_points({parse("a=1..1000"), parse("b=1..1000")}, true, error)->size() == 1000);
}

TEST_CASE("Measure columns: the union over points, widest point first") {
    using sgdnet::sweep::sweep_measure_names;
    using Names = std::vector<std::string>;
    std::string error;
    // A worker array swept over N = 2, 3: util.w[2] exists only at N = 3. The widest point's
    // order comes first, so util.w[2] sits with its siblings, not at the end.
    const auto cols = sweep_measure_names(
        {Names{"steps_per_s", "util.w[0]", "util.w[1]", "util.w[0].up", "util.w[1].up"},
         Names{"steps_per_s", "util.w[0]", "util.w[1]", "util.w[2]", "util.w[0].up",
               "util.w[1].up", "util.w[2].up"}},
        error);
    REQUIRE(cols.has_value());
    CHECK(*cols == Names{"steps_per_s", "util.w[0]", "util.w[1]", "util.w[2]", "util.w[0].up",
                         "util.w[1].up", "util.w[2].up"});
    // A name only a narrower point has is appended in the order first seen.
    const auto extra =
        sweep_measure_names({Names{"thr", "a"}, Names{"thr", "b", "c"}, Names{"thr", "d"}}, error);
    REQUIRE(extra.has_value());
    CHECK(*extra == Names{"thr", "b", "c", "a", "d"});
    // Identical points: their names as they are.
    CHECK(*sweep_measure_names({Names{"x", "y"}, Names{"x", "y"}}, error) == Names{"x", "y"});
    // The first measure drives precision, plot and resume: it must be the same everywhere.
    CHECK_FALSE(sweep_measure_names({Names{"thr", "a"}, Names{"a", "thr"}}, error).has_value());
    CHECK(contains(error, "point 1 has 'thr', point 2 has 'a'"));
    CHECK_FALSE(sweep_measure_names({Names{"thr"}, Names{}}, error).has_value());
}
