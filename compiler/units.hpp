// Dimensions, the unit table and quantity literals of docs/language.md §3 (canonical s, B, B/s).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sgdnet::compiler {

/// A physical dimension as an exponent vector over the base dimensions time and size.
/// The five dimensions named by docs/language.md §3 are dimensionless {0,0}, time {1,0},
/// size {0,1}, rate {-1,1} (size per time) and frequency {-1,0}; a sixth, time per size {1,-1},
/// is the CPU cost of a byte (`comm_cpu`) and has no unit of its own (`0.6 ns / 1 B`). Other
/// exponent vectors arise only in intermediate products (e.g. size², time·size) and are printed
/// as such.
struct Dim {
    int time = 0;
    int size = 0;

    static constexpr Dim none() { return {0, 0}; }
    static constexpr Dim seconds() { return {1, 0}; }
    static constexpr Dim bytes() { return {0, 1}; }
    static constexpr Dim rate() { return {-1, 1}; }
    static constexpr Dim frequency() { return {-1, 0}; }

    bool dimensionless() const { return time == 0 && size == 0; }
    constexpr Dim operator*(Dim o) const { return {time + o.time, size + o.size}; }
    constexpr Dim operator/(Dim o) const { return {time - o.time, size - o.size}; }
    /// The dimension raised to an integer power.
    constexpr Dim pow(int k) const { return {time * k, size * k}; }
    bool operator==(const Dim&) const = default;
};

/// Name of a dimension for messages: "dimensionless", "time", "size", "rate", "frequency",
/// "time per size", or an exponent form such as "size^2" or "time*size" for the others.
std::string to_string(Dim d);
/// The article form used in messages: "a time", "a size", "a rate", "a frequency",
/// "a dimensionless number", "a size^2".
std::string with_article(Dim d);
/// The canonical unit of a dimension as printed: "s", "B", "B/s", "1/s", "" (dimensionless);
/// exponent forms otherwise ("B^2", "s*B").
std::string canonical_unit(Dim d);
/// A unit a modeler would typically write for a dimension, used in "did you mean 5 ms?" hints:
/// time → "ms", size → "MB", rate → "Gbps", frequency → "Hz", time per size → "ns / 1 B" (an
/// expression: no unit names it); "" when there is none.
std::string suggested_unit(Dim d);

/// One entry of the unit table: `value_in_unit * factor` is the canonical value.
struct Unit {
    std::string_view name;
    double factor = 1;
    Dim dim;
};

/// Looks up a unit as written after a number (`ms`, `MB`, `Gbps`, `KiB/s`, `Hz`, `/s`).
/// Spaces inside the spelling are ignored (`KB / s` = `KB/s`). Returns null when unknown.
const Unit* find_unit(std::string_view spelling);
/// Every unit name of the table, in table order (for "did you mean" suggestions).
std::vector<std::string_view> unit_names();

/// A number with a dimension, in canonical units (s, B, B/s, 1/s).
struct Quantity {
    double value = 0;
    Dim dim;
    bool operator==(const Quantity&) const = default;
};

/// The canonical quantity of a literal `value unit` (unit "" = dimensionless), or nullopt when
/// the unit is unknown. Example: quantity_of(10, "Gbps") = {1.25e9, rate}.
std::optional<Quantity> quantity_of(double value, std::string_view unit);

/// A unit to show a canonical value of one dimension to people: shown = canonical / factor.
struct ReadableUnit {
    double factor = 1;
    std::string name;  // "" for a dimensionless number
};
/// The readable unit of `v` (canonical) of dimension `d`, every one a unit the language reads:
/// times in ns, us, ms or s; sizes in B, KB, MB, GB, TB (powers of 1000); rates in bits per
/// second, bps, Kbps, Mbps, Gbps, Tbps; frequencies in /s; other dimensions in their canonical
/// unit. The prefix is the largest that keeps the shown number at least 1 (0 takes the base).
ReadableUnit readable_unit(double v, Dim d);
/// `v` (canonical) of dimension `d` for people, at most 6 significant digits and a readable unit:
/// "25 Gbps", "3.2 MB", "20 us", "0.5", "9.52381 /s". Not for reading back exactly.
std::string format_readable(double v, Dim d);
/// Formats a quantity for messages, readably (format_readable): "4 ms", "5", "-25 Gbps".
std::string format_quantity(const Quantity& q);
/// Formats a double the shortest way that round-trips (%.17g trimmed), e.g. 0.1 → "0.1".
std::string format_number(double v);

/// Levenshtein distance, used for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);
/// The candidate closest to `name` by edit distance when it is close enough to be a plausible
/// typo (distance ≤ max(1, |name|/3)); nullopt otherwise.
std::optional<std::string> closest_name(std::string_view name,
                                        const std::vector<std::string>& candidates);
/// `"; did you mean `X`?"` for the closest candidate, or "" when there is none.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace sgdnet::compiler
