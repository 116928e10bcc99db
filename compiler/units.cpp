// Dimensions, the unit table and quantity literals of docs/language.md §3 (canonical s, B, B/s).
#include "compiler/units.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>

namespace sgdnet::compiler {

namespace {

constexpr Dim kTime = Dim::seconds();
constexpr Dim kSize = Dim::bytes();
constexpr Dim kRate = Dim::rate();
constexpr Dim kFreq = Dim::frequency();
constexpr Dim kTimePerSize = Dim::seconds() / Dim::bytes();  // CPU cost per byte (`comm_cpu`)

// docs/language.md §3. Sizes in 10^3 steps (KB…TB) and 2^10 steps (KiB…TiB); bits are 1/8 byte;
// `bps` rates are bits per second.
constexpr std::array kUnits{
    Unit{"ns", 1e-9, kTime},
    Unit{"us", 1e-6, kTime},
    Unit{"ms", 1e-3, kTime},
    Unit{"s", 1.0, kTime},
    Unit{"min", 60.0, kTime},
    Unit{"h", 3600.0, kTime},
    Unit{"B", 1.0, kSize},
    Unit{"KB", 1e3, kSize},
    Unit{"MB", 1e6, kSize},
    Unit{"GB", 1e9, kSize},
    Unit{"TB", 1e12, kSize},
    Unit{"KiB", 1024.0, kSize},
    Unit{"MiB", 1048576.0, kSize},
    Unit{"GiB", 1073741824.0, kSize},
    Unit{"TiB", 1099511627776.0, kSize},
    Unit{"b", 1.0 / 8, kSize},
    Unit{"Kb", 1e3 / 8, kSize},
    Unit{"Mb", 1e6 / 8, kSize},
    Unit{"Gb", 1e9 / 8, kSize},
    Unit{"bps", 1.0 / 8, kRate},
    Unit{"Kbps", 1e3 / 8, kRate},
    Unit{"Mbps", 1e6 / 8, kRate},
    Unit{"Gbps", 1e9 / 8, kRate},
    Unit{"Tbps", 1e12 / 8, kRate},
    Unit{"B/s", 1.0, kRate},
    Unit{"KB/s", 1e3, kRate},
    Unit{"MB/s", 1e6, kRate},
    Unit{"GB/s", 1e9, kRate},
    Unit{"KiB/s", 1024.0, kRate},
    Unit{"MiB/s", 1048576.0, kRate},
    Unit{"GiB/s", 1073741824.0, kRate},
    Unit{"Hz", 1.0, kFreq},
    Unit{"/s", 1.0, kFreq},
};

std::string exponent_form(Dim d, const char* t, const char* s) {
    std::string num, den;
    auto add = [](std::string& out, const char* base, int e) {
        if (e == 0) return;
        if (!out.empty()) out += "*";
        out += base;
        if (e != 1) out += "^" + std::to_string(e);
    };
    add(num, t, std::max(d.time, 0));
    add(num, s, std::max(d.size, 0));
    add(den, t, std::max(-d.time, 0));
    add(den, s, std::max(-d.size, 0));
    if (num.empty()) num = "1";
    return den.empty() ? num : num + "/" + den;
}

/// `v` rounded to `digits` significant digits.
double round_to(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return std::strtod(buf, nullptr);
}

}  // namespace

std::string to_string(Dim d) {
    if (d == Dim::none()) return "dimensionless";
    if (d == kTime) return "time";
    if (d == kSize) return "size";
    if (d == kRate) return "rate";
    if (d == kFreq) return "frequency";
    if (d == kTimePerSize) return "time per size";
    return exponent_form(d, "time", "size");
}

std::string with_article(Dim d) {
    if (d == Dim::none()) return "a dimensionless number";
    return "a " + to_string(d);
}

std::string canonical_unit(Dim d) {
    if (d == Dim::none()) return "";
    if (d == kTime) return "s";
    if (d == kSize) return "B";
    if (d == kRate) return "B/s";
    if (d == kFreq) return "1/s";
    return exponent_form(d, "s", "B");
}

std::string suggested_unit(Dim d) {
    if (d == kTime) return "ms";
    if (d == kSize) return "MB";
    if (d == kRate) return "Gbps";
    if (d == kFreq) return "Hz";
    if (d == kTimePerSize) return "ns / 1 B";  // no unit names it: a time over a size
    return "";
}

const Unit* find_unit(std::string_view spelling) {
    std::string compact;
    for (char c : spelling)
        if (c != ' ' && c != '\t') compact += c;
    for (const Unit& u : kUnits)
        if (u.name == compact) return &u;
    return nullptr;
}

std::vector<std::string_view> unit_names() {
    std::vector<std::string_view> out;
    for (const Unit& u : kUnits) out.push_back(u.name);
    return out;
}

std::optional<Quantity> quantity_of(double value, std::string_view unit) {
    if (unit.empty()) return Quantity{value, Dim::none()};
    const Unit* u = find_unit(unit);
    if (!u) return std::nullopt;
    return Quantity{value * u->factor, u->dim};
}

std::string format_number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[64];
    if (v == std::floor(v) && std::abs(v) < 1e15) {
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
        return buf;
    }
    for (int prec = 1; prec <= 17; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (std::strtod(buf, nullptr) == v) break;
    }
    return buf;
}

ReadableUnit readable_unit(double v, Dim d) {
    struct Prefixed {
        double factor;
        const char* name;
    };
    static constexpr Prefixed kTimes[] = {{1e-9, "ns"}, {1e-6, "us"}, {1e-3, "ms"}, {1, "s"}};
    static constexpr Prefixed kSizes[] = {{1, "B"}, {1e3, "KB"}, {1e6, "MB"}, {1e9, "GB"},
                                          {1e12, "TB"}};
    static constexpr Prefixed kRates[] = {{1.0 / 8, "bps"}, {1e3 / 8, "Kbps"}, {1e6 / 8, "Mbps"},
                                          {1e9 / 8, "Gbps"}, {1e12 / 8, "Tbps"}};
    auto pick = [&](const auto& table, std::size_t base) {
        const double a = std::abs(v);
        std::size_t k = base;
        if (a > 0 && std::isfinite(a)) {
            k = 0;
            // The largest prefix whose shown number, rounded to 6 digits, is at least 1.
            while (k + 1 < std::size(table) && round_to(a / table[k + 1].factor, 6) >= 1) ++k;
        }
        return ReadableUnit{table[k].factor, table[k].name};
    };
    if (d == kTime) return pick(kTimes, 3);
    if (d == kSize) return pick(kSizes, 0);
    if (d == kRate) return pick(kRates, 0);
    if (d == kFreq) return {1, "/s"};
    return {1, canonical_unit(d)};
}

std::string format_readable(double v, Dim d) {
    const ReadableUnit u = readable_unit(v, d);
    std::string num;
    if (!std::isfinite(v)) {
        num = format_number(v);
    } else {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.6g", v / u.factor);
        num = buf;
        if (num == "-0") num = "0";
    }
    return u.name.empty() ? num : num + " " + u.name;
}

std::string format_quantity(const Quantity& q) { return format_readable(q.value, q.dim); }

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::optional<std::string> closest_name(std::string_view name,
                                        const std::vector<std::string>& candidates) {
    std::size_t limit = std::max<std::size_t>(1, name.size() / 3);
    std::optional<std::string> best;
    std::size_t best_d = limit + 1;
    for (const std::string& c : candidates) {
        if (c == name) continue;
        std::size_t d = edit_distance(name, c);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    return best;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
    auto best = closest_name(name, candidates);
    return best ? "; did you mean `" + *best + "`?" : std::string();
}

}  // namespace sgdnet::compiler
