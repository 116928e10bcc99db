// Unit tests of warm-up truncation and Student-t intervals.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "solver/sim/rng.hpp"
#include "solver/sim/estimators.hpp"

using namespace sgdnet::solver;

TEST_CASE("student t quantiles match tables") {
    // Standard tables: t_{0.975, 1} = 12.7062, t_{0.975, 10} = 2.2281, t_{0.995, 15} = 2.9467.
    CHECK(student_t_quantile(0.975, 1) == doctest::Approx(12.7062).epsilon(1e-4));
    CHECK(student_t_quantile(0.975, 10) == doctest::Approx(2.2281).epsilon(1e-4));
    CHECK(student_t_quantile(0.995, 15) == doctest::Approx(2.9467).epsilon(1e-4));
    CHECK(student_t_quantile(0.975, 1e6) == doctest::Approx(1.95996).epsilon(1e-4));
}

TEST_CASE("student interval by hand") {
    // Samples 1, 2, 3, 4: mean 2.5, s = sqrt(5/3) = 1.29099, t_{0.975,3} = 3.18245,
    // half-width = 3.18245 · 1.29099 / 2 = 2.05426.
    const Interval ci = student_interval({1, 2, 3, 4}, 0.95);
    CHECK(ci.mean == doctest::Approx(2.5));
    CHECK(ci.half_width == doctest::Approx(2.05426).epsilon(1e-5));
    // Zero variance: the exact value and a zero-width interval.
    const Interval z = student_interval({0.1, 0.1, 0.1}, 0.95);
    CHECK(z.mean == 0.1);
    CHECK(z.half_width == 0);
    CHECK(std::isinf(student_interval({1.0}, 0.95).half_width));
}

TEST_CASE("MSER removes an initial transient and keeps a stationary series") {
    Rng rng(5, 0);
    std::vector<double> stationary;
    for (int i = 0; i < 200; ++i) stationary.push_back(rng.normal());
    // A stationary series: truncating buys little, MSER keeps most of it.
    CHECK(mser_truncation(stationary) < 50);
    // A series whose first 40 values carry a ramp from +10 down to 0: MSER cuts the part of the
    // ramp that stands out of the noise (sd 1), i.e. well past index 25.
    std::vector<double> warm = stationary;
    for (int i = 0; i < 40; ++i) warm[i] += 10 * (1 - i / 40.0);
    const std::size_t d = mser_truncation(warm);
    CHECK(d >= 25);
    CHECK(d <= 100);
    CHECK(mser_truncation({1, 2}) == 0);
}

TEST_CASE("MSER on averaged groups finds a long transient that is small next to the noise") {
    // 512 batches of noise (sd 1) with a linear excess decaying from 0.5 to 0 over the first
    // 160: per batch the excess is buried in the noise, over groups of 8 it is not.
    Rng rng(7, 0);
    std::vector<double> x;
    for (int i = 0; i < 512; ++i) x.push_back(rng.normal() + (i < 160 ? 0.5 * (1 - i / 160.0) : 0));
    const std::size_t plain = mser_truncation(x);
    const std::size_t grouped = mser_truncation(x, 64);
    INFO("plain cut " << plain << ", grouped cut " << grouped);
    // Per batch the excess never exceeds half a noise sd and MSER cuts at most a few batches,
    // less than one group; over groups (sd 0.35) its first part stands out and is cut.
    CHECK(plain < 8);
    CHECK(grouped % 8 == 0);  // groups of 512 / 64 = 8 batches
    CHECK(grouped >= 32);
    CHECK(grouped <= 256);
    // Grouping is a no-op when the series is already short enough.
    const std::vector<double> head(x.begin(), x.begin() + 64);
    CHECK(mser_truncation(head, 64) == mser_truncation(head));
    // The last group takes the remainder: 70 values in groups of 2 (35 groups).
    const std::vector<double> odd(x.begin(), x.begin() + 70);
    CHECK(mser_truncation(odd, 64) % 2 == 0);
}
