// Moments, exponential detection, canonical and readable text of net::Distribution against closed forms.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include "net/distribution.hpp"

using namespace sgdnet::net;

namespace {
Distribution d(auto x) { return Distribution{x}; }
}  // namespace

TEST_CASE("means and variances of the basic forms") {
    CHECK(mean(d(Det{0.004})) == 0.004);
    CHECK(variance(d(Det{0.004})) == 0);
    CHECK(mean(d(Exp{4.0})) == doctest::Approx(0.25));
    CHECK(variance(d(Exp{4.0})) == doctest::Approx(1.0 / 16));
    CHECK(mean(d(Uniform{1, 3})) == 2);
    CHECK(variance(d(Uniform{1, 3})) == doctest::Approx(4.0 / 12));
    CHECK(mean(d(Lognormal{0.12, 0.05})) == 0.12);
    CHECK(variance(d(Lognormal{0.12, 0.05})) == doctest::Approx(0.006 * 0.006));
    CHECK(variance(d(Gamma{2, 0.5})) == doctest::Approx(1.0));
    // Erlang(k, mean m): variance m²/k.
    CHECK(variance(d(Erlang{4, 2.0})) == doctest::Approx(1.0));
    // Weibull(shape 1, scale s) is exponential with mean s.
    CHECK(mean(d(Weibull{1, 3})) == doctest::Approx(3));
    CHECK(variance(d(Weibull{1, 3})) == doctest::Approx(9));
    // Weibull(shape 2, scale 1): mean Γ(1.5) = √π/2.
    CHECK(mean(d(Weibull{2, 1})) == doctest::Approx(std::sqrt(std::numbers::pi) / 2));
    CHECK(mean(d(Empirical{{1, 2, 3, 6}})) == 3);
    CHECK(variance(d(Empirical{{1, 2, 3, 6}})) == doctest::Approx((4 + 1 + 0 + 9) / 4.0));
}

TEST_CASE("truncated normal uses the moments of the truncated law") {
    // Far from 0 the truncation is invisible.
    CHECK(mean(d(Normal{10, 1})) == doctest::Approx(10));
    CHECK(variance(d(Normal{10, 1})) == doctest::Approx(1));
    // Mean 0: half-normal, mean σ√(2/π), variance σ²(1 − 2/π).
    CHECK(mean(d(Normal{0, 2})) == doctest::Approx(2 * std::sqrt(2 / std::numbers::pi)));
    CHECK(variance(d(Normal{0, 2})) == doctest::Approx(4 * (1 - 2 / std::numbers::pi)));
}

TEST_CASE("compound forms") {
    Distribution mix = d(Mixture{{0.25, 0.75}, {d(Det{1}), d(Det{3})}});
    CHECK(mean(mix) == doctest::Approx(2.5));
    CHECK(variance(mix) == doctest::Approx(0.25 * 1 + 0.75 * 9 - 6.25));
    Distribution scaled = d(Scaled{{d(Exp{1})}, 2});
    CHECK(mean(scaled) == doctest::Approx(2));
    CHECK(variance(scaled) == doctest::Approx(4));
    Distribution shifted = d(Shifted{{d(Exp{1})}, 0.5});
    CHECK(mean(shifted) == doctest::Approx(1.5));
    CHECK(variance(shifted) == doctest::Approx(1));
    Distribution sum = d(Sum{{d(Exp{1}), d(Uniform{0, 2})}});
    CHECK(mean(sum) == doctest::Approx(2));
    CHECK(variance(sum) == doctest::Approx(1 + 4.0 / 12));
}

TEST_CASE("exponential detection") {
    CHECK(is_exponential(d(Exp{2})));
    CHECK(exponential_rate(d(Exp{2})) == 2);
    CHECK(is_exponential(d(Erlang{1, 0.5})));
    CHECK(exponential_rate(d(Erlang{1, 0.5})) == 2);
    Distribution slow = d(Scaled{{d(Exp{2})}, 4});  // mean 0.5 s × 4 = 2 s
    CHECK(is_exponential(slow));
    CHECK(exponential_rate(slow) == doctest::Approx(0.5));
    CHECK_FALSE(is_exponential(d(Erlang{2, 1})));
    CHECK_FALSE(is_exponential(d(Det{1})));
    CHECK_FALSE(is_exponential(d(Shifted{{d(Exp{1})}, 1})));
}

TEST_CASE("canonical text is shortest-exact and parenthesised") {
    CHECK(to_string(d(Det{0.004})) == "det(0.004)");
    CHECK(to_string(d(Exp{1.25})) == "exp(rate=1.25)");
    CHECK(to_string(d(Lognormal{0.12, 0.05})) == "lognormal(mean=0.12, cv=0.05)");
    CHECK(to_string(d(Erlang{3, 1e-6})) == "erlang(k=3, mean=1e-06)");
    CHECK(to_string(d(Mixture{{0.3, 0.7}, {d(Det{1}), d(Exp{2})}})) ==
          "mixture(0.3: det(1), 0.7: exp(rate=2))");
    CHECK(to_string(d(Scaled{{d(Shifted{{d(Exp{1})}, 0.5})}, 2})) == "(exp(rate=1) + 0.5) * 2");
    CHECK(to_string(d(Sum{{d(Det{1}), d(Uniform{0, 2})}})) == "det(1) + uniform(0, 2)");
    CHECK(format_number(0.1 + 0.2) == "0.30000000000000004");
}

TEST_CASE("readable text: 6 significant digits, times with a unit, rates in /s") {
    CHECK(to_readable_string(d(Det{1.9999999999999998e-05})) == "det(20 us)");
    CHECK(to_readable_string(d(Det{0})) == "det(0 s)");
    CHECK(to_readable_string(d(Det{0.9999999})) == "det(1 s)");
    CHECK(to_readable_string(d(Exp{1.25})) == "exp(rate=1.25 /s)");
    CHECK(to_readable_string(d(Lognormal{0.12, 0.05})) == "lognormal(mean=120 ms, cv=0.05)");
    CHECK(to_readable_string(d(Erlang{3, 1e-6})) == "erlang(k=3, mean=1 us)");
    CHECK(to_readable_string(d(Mixture{{0.3, 0.7}, {d(Det{2.5e-10}), d(Exp{2})}})) ==
          "mixture(0.3: det(0.25 ns), 0.7: exp(rate=2 /s))");
    CHECK(to_readable_string(d(Scaled{{d(Shifted{{d(Exp{1})}, 0.5})}, 1.0 / 3})) ==
          "(exp(rate=1 /s) + 500 ms) * 0.333333");
    CHECK(to_readable_string(d(Sum{{d(Det{1}), d(Uniform{0, 2})}})) ==
          "det(1 s) + uniform(0 s, 2 s)");
}
