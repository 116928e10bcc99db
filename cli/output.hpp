// Writers of solver results: human table, JSON (docs/language.md §7) and CSV, plus number formats
// (canonical for files, readable units for people).
#pragma once

#include <string>
#include <vector>

#include "net/petri_net.hpp"
#include "solver/solve_options.hpp"
#include "solver/solve_result.hpp"

namespace sgdnet::cli {

/// Shortest text that reads back as the same double (`0.1`, `1.25e+09`); `nan`/`inf` as such.
std::string number(double v);

/// A canonical value for people, in a readable unit with at most 6 significant digits: `unit` is
/// the canonical unit ("s", "B", "B/s", "1/s", "" for a number) → `20 us`, `3.2 MB`, `25 Gbps`,
/// `9.5 /s`, `0.5`; another unit is kept (`3.5 tokens`).
std::string readable(double v, const std::string& unit);

/// Human table: one line per measure with mean, CI bounds, relative half-width and a readable
/// unit (`123.4 ms` rather than `0.1234 s`, `25 Gbps` rather than `3.125e+09 B/s`), under a line
/// of solver statistics and the params (`params: N=8, bw=10 Gbps`).
std::string format_table(const net::PetriNet& net, const solver::SolveResult& result,
                         const solver::SolveOptions& options);

/// One JSON object: model, solver, params, measures {mean, ci_low, ci_high}, stats
/// {replications, events, simulated_s, wall_s[, states]}; canonical units; one line.
std::string format_json(const net::PetriNet& net, const solver::SolveResult& result);

/// CSV column names of the measures: `NAME,NAME_ci_low,NAME_ci_high` for each.
std::vector<std::string> csv_measure_columns(const solver::SolveResult& result);
/// CSV cells of the measures, in csv_measure_columns order.
std::vector<std::string> csv_measure_cells(const solver::SolveResult& result);
/// A CSV line (fields quoted when they contain a comma, quote or newline), ending in '\n'.
std::string csv_line(const std::vector<std::string>& fields);
/// The fields of one CSV line as csv_line writes it (quoted fields unquoted), without its '\n'.
std::vector<std::string> split_csv(const std::string& line);
/// `run --format csv`: header line and one row.
std::string format_csv(const solver::SolveResult& result);

/// Relative half-width (ci_high - ci_low) / 2 / |mean| of an estimate; inf when mean is 0.
double relative_half_width(const solver::MeasureEstimate& m);

}  // namespace sgdnet::cli
