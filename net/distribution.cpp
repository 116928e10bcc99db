// Moments, exponential detection and canonical and readable text of delay distributions
// (docs/language.md §4).
#include "net/distribution.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <numbers>
#include <string>
#include <utility>

#include "net/overloaded.hpp"

namespace sgdnet::net {
namespace {


// φ(x) / (1 − Φ(x)), the inverse Mills ratio, stable for large x.
double inverse_mills(double x) {
    const double tail = 0.5 * std::erfc(x / std::numbers::sqrt2);
    const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2 * std::numbers::pi);
    if (tail > 1e-300) return pdf / tail;
    return x;  // asymptotic: φ(x)/(1−Φ(x)) → x
}

}  // namespace

std::string format_number(double v) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    (void)ec;
    return std::string(buf, end);
}

double mean(const Distribution& d) {
    return std::visit(
        Overloaded{
            [](const Det& x) { return x.value_s; },
            [](const Exp& x) { return 1.0 / x.rate_per_s; },
            [](const Uniform& x) { return 0.5 * (x.low_s + x.high_s); },
            [](const Normal& x) {
                if (x.sd_s <= 0) return x.mean_s;
                const double alpha = -x.mean_s / x.sd_s;
                return x.mean_s + x.sd_s * inverse_mills(alpha);
            },
            [](const Lognormal& x) { return x.mean_s; },
            [](const Gamma& x) { return x.mean_s; },
            [](const Erlang& x) { return x.mean_s; },
            [](const Weibull& x) { return x.scale_s * std::tgamma(1.0 + 1.0 / x.shape); },
            [](const Empirical& x) {
                double s = 0;
                for (double v : x.values_s) s += v;
                return x.values_s.empty() ? 0.0 : s / static_cast<double>(x.values_s.size());
            },
            [](const Mixture& x) {
                double s = 0;
                for (std::size_t j = 0; j < x.parts.size(); ++j) s += x.probs[j] * mean(x.parts[j]);
                return s;
            },
            [](const Scaled& x) { return x.factor * mean(x.base.front()); },
            [](const Shifted& x) { return mean(x.base.front()) + x.offset_s; },
            [](const Sum& x) {
                double s = 0;
                for (const auto& p : x.parts) s += mean(p);
                return s;
            },
        },
        d.v);
}

double variance(const Distribution& d) {
    return std::visit(
        Overloaded{
            [](const Det&) { return 0.0; },
            [](const Exp& x) { return 1.0 / (x.rate_per_s * x.rate_per_s); },
            [](const Uniform& x) {
                const double w = x.high_s - x.low_s;
                return w * w / 12.0;
            },
            [](const Normal& x) {
                if (x.sd_s <= 0) return 0.0;
                const double alpha = -x.mean_s / x.sd_s;
                const double lambda = inverse_mills(alpha);
                return x.sd_s * x.sd_s * (1.0 + alpha * lambda - lambda * lambda);
            },
            [](const Lognormal& x) { return x.cv * x.cv * x.mean_s * x.mean_s; },
            [](const Gamma& x) { return x.cv * x.cv * x.mean_s * x.mean_s; },
            [](const Erlang& x) { return x.mean_s * x.mean_s / x.k; },
            [](const Weibull& x) {
                const double g1 = std::tgamma(1.0 + 1.0 / x.shape);
                const double g2 = std::tgamma(1.0 + 2.0 / x.shape);
                return x.scale_s * x.scale_s * (g2 - g1 * g1);
            },
            [](const Empirical& x) {
                if (x.values_s.empty()) return 0.0;
                const double n = static_cast<double>(x.values_s.size());
                double s = 0, s2 = 0;
                for (double v : x.values_s) s += v;
                const double m = s / n;
                for (double v : x.values_s) s2 += (v - m) * (v - m);
                return s2 / n;
            },
            [](const Mixture& x) {
                double m = 0, second = 0;
                for (std::size_t j = 0; j < x.parts.size(); ++j) {
                    const double mj = mean(x.parts[j]);
                    m += x.probs[j] * mj;
                    second += x.probs[j] * (variance(x.parts[j]) + mj * mj);
                }
                return second - m * m;
            },
            [](const Scaled& x) { return x.factor * x.factor * variance(x.base.front()); },
            [](const Shifted& x) { return variance(x.base.front()); },
            [](const Sum& x) {
                double s = 0;
                for (const auto& p : x.parts) s += variance(p);
                return s;
            },
        },
        d.v);
}

bool is_exponential(const Distribution& d) {
    if (std::holds_alternative<Exp>(d.v)) return true;
    if (const auto* e = std::get_if<Erlang>(&d.v)) return e->k == 1;
    if (const auto* s = std::get_if<Scaled>(&d.v)) return is_exponential(s->base.front());
    return false;
}

double exponential_rate(const Distribution& d) {
    if (const auto* e = std::get_if<Exp>(&d.v)) return e->rate_per_s;
    if (const auto* e = std::get_if<Erlang>(&d.v)) return 1.0 / e->mean_s;
    const auto& s = std::get<Scaled>(d.v);
    return exponential_rate(s.base.front()) / s.factor;
}

namespace {

bool is_compound(const Distribution& d) {
    return std::holds_alternative<Scaled>(d.v) || std::holds_alternative<Shifted>(d.v) ||
           std::holds_alternative<Sum>(d.v);
}

/// How the numbers of a distribution's text are written: times (s), rates (1/s), plain numbers.
struct NumberStyle {
    std::string (*time)(double);
    std::string (*rate)(double);
    std::string (*plain)(double);
};

std::string text(const Distribution& d, const NumberStyle& f);

std::string operand(const Distribution& d, const NumberStyle& f) {
    return is_compound(d) ? "(" + text(d, f) + ")" : text(d, f);
}

std::string text(const Distribution& d, const NumberStyle& f) {
    const auto t = f.time;
    const auto n = f.plain;
    return std::visit(
        Overloaded{
            [&](const Det& x) { return "det(" + t(x.value_s) + ")"; },
            [&](const Exp& x) { return "exp(rate=" + f.rate(x.rate_per_s) + ")"; },
            [&](const Uniform& x) { return "uniform(" + t(x.low_s) + ", " + t(x.high_s) + ")"; },
            [&](const Normal& x) {
                return "normal(mean=" + t(x.mean_s) + ", sd=" + t(x.sd_s) + ")";
            },
            [&](const Lognormal& x) {
                return "lognormal(mean=" + t(x.mean_s) + ", cv=" + n(x.cv) + ")";
            },
            [&](const Gamma& x) { return "gamma(mean=" + t(x.mean_s) + ", cv=" + n(x.cv) + ")"; },
            [&](const Erlang& x) {
                return "erlang(k=" + std::to_string(x.k) + ", mean=" + t(x.mean_s) + ")";
            },
            [&](const Weibull& x) {
                return "weibull(shape=" + n(x.shape) + ", scale=" + t(x.scale_s) + ")";
            },
            [&](const Empirical& x) {
                std::string s = "empirical([";
                for (std::size_t j = 0; j < x.values_s.size(); ++j) {
                    if (j) s += ", ";
                    s += t(x.values_s[j]);
                }
                return s + "])";
            },
            [&](const Mixture& x) {
                std::string s = "mixture(";
                for (std::size_t j = 0; j < x.parts.size(); ++j) {
                    if (j) s += ", ";
                    s += n(x.probs[j]) + ": " + text(x.parts[j], f);
                }
                return s + ")";
            },
            [&](const Scaled& x) { return operand(x.base.front(), f) + " * " + n(x.factor); },
            [&](const Shifted& x) { return operand(x.base.front(), f) + " + " + t(x.offset_s); },
            [&](const Sum& x) {
                std::string s;
                for (std::size_t j = 0; j < x.parts.size(); ++j) {
                    if (j) s += " + ";
                    s += operand(x.parts[j], f);
                }
                return s;
            },
        },
        d.v);
}

std::string six_digits(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

/// Seconds in ns, us, ms or s: the largest unit that keeps the number, to 6 digits, at least 1.
std::string readable_time(double s) {
    static constexpr std::pair<double, const char*> kUnits[] = {
        {1e-9, "ns"}, {1e-6, "us"}, {1e-3, "ms"}, {1, "s"}};
    std::size_t k = 3;
    if (s != 0 && std::isfinite(s)) {
        k = 0;
        while (k + 1 < std::size(kUnits) &&
               std::abs(std::strtod(six_digits(s / kUnits[k + 1].first).c_str(), nullptr)) >= 1) {
            ++k;
        }
    }
    return six_digits(s / kUnits[k].first) + " " + kUnits[k].second;
}

std::string readable_rate(double r) { return six_digits(r) + " /s"; }

}  // namespace

std::string to_string(const Distribution& d) {
    return text(d, {format_number, format_number, format_number});
}

std::string to_readable_string(const Distribution& d) {
    return text(d, {readable_time, readable_rate, six_digits});
}

}  // namespace sgdnet::net
