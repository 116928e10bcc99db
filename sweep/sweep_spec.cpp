// Sweep ranges of `sgdnet sweep --set NAME=RANGE` (docs/language.md §7) and the points they make.
#include "sweep/sweep_spec.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "compiler/units.hpp"

namespace sgdnet::sweep {
namespace {

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

/// `12`, `1.5 ms`, `10Gbps` → canonical quantity.
std::optional<compiler::Quantity> quantity(const std::string& text, std::string& error) {
    const std::string t = trim(text);
    double v = 0;
    const auto res = std::from_chars(t.data(), t.data() + t.size(), v);
    if (res.ec != std::errc{} || t.empty()) {
        error = "expected a number, got '" + t + "'";
        return std::nullopt;
    }
    if (!std::isfinite(v)) {
        error = "expected a finite number, got '" + t + "'";
        return std::nullopt;
    }
    const std::string unit = trim(std::string(res.ptr, t.data() + t.size()));
    auto q = compiler::quantity_of(v, unit);
    if (!q) {
        error = "unknown unit '" + unit + "'" + compiler::did_you_mean(unit, [] {
                    std::vector<std::string> names;
                    for (auto n : compiler::unit_names()) names.emplace_back(n);
                    return names;
                }());
        return std::nullopt;
    }
    return q;
}

/// `v` rounded to 15 significant digits, so that accumulated steps land on the values a person
/// would write (`0.1..0.3:+0.1` is 0.1, 0.2, 0.3, not 0.30000000000000004).
double round15(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return std::strtod(buf, nullptr);
}

/// Text the compiler reads back as exactly `v` in the canonical unit of `dim`.
std::string canonical_text(double v, compiler::Dim dim) {
    std::string num = compiler::format_number(v);
    std::string out;
    for (std::size_t k = 0; k < num.size(); ++k) {
        if (num[k] == '+' && k > 0 && (num[k - 1] == 'e' || num[k - 1] == 'E')) continue;
        out += num[k];
    }
    std::string unit = compiler::canonical_unit(dim);
    if (unit == "1/s") unit = "Hz";
    return unit.empty() ? out : out + " " + unit;
}

}  // namespace

std::optional<SweepParam> parse_sweep_set(const std::string& arg, std::string& error) {
    const auto eq = arg.find('=');
    SweepParam p;
    p.name = eq == std::string::npos ? "" : trim(arg.substr(0, eq));
    if (p.name.empty() || eq + 1 >= arg.size()) {
        error = "--set expects NAME=RANGE, got '" + arg + "'";
        return std::nullopt;
    }
    const std::string range = trim(arg.substr(eq + 1));
    auto fail = [&](const std::string& why) {
        error = "--set " + arg + ": " + why;
        return std::nullopt;
    };
    std::string why;

    const auto dots = range.find("..");
    if (dots == std::string::npos) {  // a list or a single value
        std::size_t start = 0;
        std::optional<compiler::Dim> dim;
        while (true) {
            const auto comma = range.find(',', start);
            const std::string item =
                trim(range.substr(start, comma == std::string::npos ? std::string::npos
                                                                    : comma - start));
            const auto q = quantity(item, why);
            if (!q) return fail(why);
            if (dim && !(*dim == q->dim)) return fail("values of different dimensions");
            dim = q->dim;
            p.unit = compiler::canonical_unit(q->dim);
            p.values.push_back({item, round15(q->value), true});  // 25us: 2.5e-05, not 2.4999…e-05
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        return p;
    }

    if (range.find(',') != std::string::npos) {
        return fail("a range A..B cannot be part of a list; use one form or the other");
    }
    const std::string first = range.substr(0, dots);
    std::string rest = range.substr(dots + 2), step;
    if (const auto colon = rest.find(':'); colon != std::string::npos) {
        step = trim(rest.substr(colon + 1));
        rest = rest.substr(0, colon);
    }
    const auto a = quantity(first, why);
    if (!a) return fail(why);
    const auto b = quantity(rest, why);
    if (!b) return fail(why);
    if (!(a->dim == b->dim)) return fail("the bounds have different dimensions");
    if (b->value < a->value) return fail("the upper bound is below the lower bound");
    p.unit = compiler::canonical_unit(a->dim);

    // Default step: 1 in the unit written on A (`1ms..5ms` steps by 1 ms).
    double factor = 0, add = 0;
    if (step.empty()) {
        const std::string ta = trim(first);
        double v = 0;
        const auto res = std::from_chars(ta.data(), ta.data() + ta.size(), v);
        const auto one =
            compiler::quantity_of(1, trim(std::string(res.ptr, ta.data() + ta.size())));
        add = one ? one->value : 1;
    } else if (step[0] == 'x' || step[0] == '*') {
        const auto k = quantity(step.substr(1), why);
        if (!k) return fail(why);
        if (!k->dim.dimensionless() || !(k->value > 1)) {
            return fail("the factor must be a number > 1");
        }
        if (!(a->value > 0)) return fail("a range with a factor needs a lower bound > 0");
        factor = k->value;
    } else {
        const auto s = quantity(step[0] == '+' ? step.substr(1) : step, why);
        if (!s) return fail(why);
        if (!(s->dim == a->dim) || !(s->value > 0)) {
            return fail("the step must be positive, with the bounds' dimension");
        }
        add = s->value;
    }
    // The upper bound is included up to rounding (1e-12 of the larger bound's magnitude).
    const double limit =
        b->value + 1e-12 * std::max(std::abs(a->value), std::abs(b->value)) + 1e-300;
    for (std::size_t k = 0;; ++k) {
        const double v = round15(factor > 0 ? a->value * std::pow(factor, static_cast<double>(k))
                                            : a->value + add * static_cast<double>(k));
        if (v > limit) break;
        if (p.values.size() >= kMaxSweepValues) {
            return fail("more than " + std::to_string(kMaxSweepValues) + " values");
        }
        p.values.push_back({canonical_text(v, a->dim), v});
        if (factor == 0 && add == 0) break;
    }
    if (p.values.empty()) return fail("empty range");
    return p;
}

std::optional<std::vector<std::vector<std::size_t>>> sweep_points(
    const std::vector<SweepParam>& params, bool zip, std::string& error) {
    std::vector<std::vector<std::size_t>> points;
    if (params.empty()) return points;
    if (zip) {
        const std::size_t n = params.front().values.size();
        for (const auto& p : params) {
            if (p.values.size() != n) {
                error = "--zip needs ranges of equal length: " + params.front().name + " has " +
                        std::to_string(n) + " values, " + p.name + " has " +
                        std::to_string(p.values.size());
                return std::nullopt;
            }
        }
        for (std::size_t k = 0; k < n; ++k) points.emplace_back(params.size(), k);
        return points;
    }
    double total = 1;
    for (const auto& p : params) total *= static_cast<double>(p.values.size());
    if (total > static_cast<double>(kMaxSweepValues)) {
        error = "the grid has " + compiler::format_number(total) + " points, more than " +
                std::to_string(kMaxSweepValues);
        return std::nullopt;
    }
    std::vector<std::size_t> idx(params.size(), 0);
    while (true) {
        points.push_back(idx);
        std::size_t d = params.size();
        while (d > 0) {
            --d;
            if (++idx[d] < params[d].values.size()) break;
            idx[d] = 0;
            if (d == 0) return points;
        }
    }
}

std::optional<std::vector<std::string>> sweep_measure_names(
    const std::vector<std::vector<std::string>>& per_point, std::string& error) {
    std::vector<std::string> names;
    if (per_point.empty()) return names;
    std::size_t widest = 0;
    for (std::size_t k = 0; k < per_point.size(); ++k) {
        if (per_point[k].empty() || per_point[k].front() != per_point.front().front()) {
            error = "the points do not share their first measure: point 1 has '" +
                    (per_point.front().empty() ? "" : per_point.front().front()) +
                    "', point " + std::to_string(k + 1) + " has '" +
                    (per_point[k].empty() ? "" : per_point[k].front()) + "'";
            return std::nullopt;
        }
        if (per_point[k].size() > per_point[widest].size()) widest = k;
    }
    std::set<std::string> seen;
    auto add = [&](const std::vector<std::string>& list) {
        for (const auto& n : list) {
            if (seen.insert(n).second) names.push_back(n);
        }
    };
    add(per_point[widest]);
    for (const auto& list : per_point) add(list);
    return names;
}

}  // namespace sgdnet::sweep
