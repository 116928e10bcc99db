// Sweep ranges of `sgdnet sweep --set NAME=RANGE` (docs/language.md §7) and the points they make.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace sgdnet::sweep {

/// One value of a swept param: the text handed to the compiler as `--set NAME=TEXT`, and its
/// canonical value (s, B, B/s, 1/s) written to the CSV.
struct SweepValue {
    std::string text;
    double canonical = 0;
    /// `text` is the value as written on the command line (a list item), not made from a range.
    bool as_written = false;
};

/// A swept param: its name as given to `--set` and its values in sweep order.
struct SweepParam {
    std::string name;
    std::vector<SweepValue> values;
    std::string unit;  // canonical unit of the values ("s", "B/s", "" …), for plot labels
};

/// Largest number of values one range may expand to, and of points of a sweep.
inline constexpr std::size_t kMaxSweepValues = 100'000;

/// Parses `NAME=RANGE`. RANGE is one of
///   `A..B`       A, A+1, …, up to B (step 1 in A's unit: `1ms..5ms` is 1, 2, …, 5 ms)
///   `A..B:xK`    A, A·K, A·K², … up to B (K > 1, A > 0; `:*K` is the same)
///   `A..B:+S`    A, A+S, … up to B (S > 0, with a unit of A's dimension; `:S` is the same)
///   `V1,V2,…`    a list (`1Gbps,10Gbps,25Gbps`), values of one dimension, kept as written
///   `V`          a single value
/// where A, B, V are finite numbers with an optional unit (docs/language.md §3). B is included up to
/// rounding. Canonical values are rounded to 15 significant digits (`0.1..0.3:+0.1` ends at
/// 0.3, `25us` is 2.5e-05); a list value goes to the compiler as written, a range value as
/// its rounded canonical value.
/// Returns nullopt and sets `error` on a malformed range, unknown unit, mixed dimensions, empty
/// or oversized ranges.
std::optional<SweepParam> parse_sweep_set(const std::string& arg, std::string& error);

/// The points of a sweep as one value index per param. Grid: every combination, the last
/// param varying fastest. Zip: the k-th value of every param; all must have the same count.
/// Returns nullopt and sets `error` when zipped lengths differ or the grid is too large.
std::optional<std::vector<std::vector<std::size_t>>> sweep_points(
    const std::vector<SweepParam>& params, bool zip, std::string& error);

/// The measure columns of a sweep whose points may define different measures (a worker array
/// `w[N]` swept over N gives one `util.w[k]` per worker): the names of the point with the most
/// measures in its order, then every other name in the order first seen. Every point must have
/// the same first measure (it drives the precision, `--plot` and `--resume`); otherwise returns
/// nullopt and sets `error`.
std::optional<std::vector<std::string>> sweep_measure_names(
    const std::vector<std::vector<std::string>>& per_point, std::string& error);

}  // namespace sgdnet::sweep
