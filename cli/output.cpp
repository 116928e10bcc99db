// Writers of solver results: human table, JSON (docs/language.md §7) and CSV, plus number formats
// (canonical for files, readable units for people).
#include "cli/output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <nlohmann/json.hpp>

#include "compiler/units.hpp"

namespace sgdnet::cli {
namespace {

/// The dimension of a canonical unit as measures and params name it ("s", "B", "B/s", "1/s"); a
/// number (dimensionless) for any other unit ("tokens", "").
compiler::Dim dim_of_unit(const std::string& unit) {
    if (unit == "s") return compiler::Dim::seconds();
    if (unit == "B") return compiler::Dim::bytes();
    if (unit == "B/s") return compiler::Dim::rate();
    if (unit == "1/s") return compiler::Dim::frequency();
    return compiler::Dim::none();
}

/// A readable unit for a canonical value: s → ns/us/ms/s, B → KB…, B/s → bps…Tbps, 1/s → /s;
/// another unit ("tokens") is kept.
compiler::ReadableUnit human_scale(double v, const std::string& unit) {
    const compiler::Dim dim = dim_of_unit(unit);
    if (dim == compiler::Dim::none()) return {1, unit};
    return compiler::readable_unit(v, dim);
}

std::string sig(double v, int digits = 6) {
    if (!std::isfinite(v)) return number(v);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

std::string pad(std::string s, std::size_t width) {
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s;
}

}  // namespace

std::string readable(double v, const std::string& unit) {
    const compiler::Dim dim = dim_of_unit(unit);
    if (dim == compiler::Dim::none() && !unit.empty()) return sig(v) + " " + unit;
    return compiler::format_readable(v, dim);
}

std::string number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    return compiler::format_number(v);
}

double relative_half_width(const solver::MeasureEstimate& m) {
    if (m.mean == 0) {
        return m.ci_high == m.ci_low ? 0 : std::numeric_limits<double>::infinity();
    }
    return (m.ci_high - m.ci_low) / 2 / std::abs(m.mean);
}

std::string format_table(const net::PetriNet& net, const solver::SolveResult& r,
                         const solver::SolveOptions& options) {
    const bool exact = r.solver == "exact";
    std::string out = "model " + net.name + ", solver " + r.solver + ": ";
    if (exact) {
        out += (r.stats.states ? std::to_string(*r.stats.states) : std::string("?")) +
               " states";
        if (r.stats.method) out += " (" + *r.stats.method + ")";
    } else {
        out += std::to_string(r.stats.replications) + " replications, " +
               std::to_string(r.stats.events) + " events, " + sig(r.stats.simulated_s, 4) +
               " s simulated";
    }
    out += ", " + sig(r.stats.wall_s, 3) + " s wall\n";
    if (!net.params.empty()) {
        out += "params:";
        for (std::size_t k = 0; k < net.params.size(); ++k) {
            const auto& p = net.params[k];
            out += (k ? ", " : " ") + p.name + "=" + readable(p.value, p.unit);
        }
        out += "\n";
    }

    const std::string ci = sig(options.confidence * 100, 4) + "% CI";
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"measure", "mean", ci + " low", ci + " high", "+/-", "unit"});
    for (const auto& m : r.measures) {
        const compiler::ReadableUnit s = human_scale(m.mean, m.unit);
        const std::string rel = exact ? "exact" : sig(relative_half_width(m) * 100, 2) + "%";
        rows.push_back({m.name, sig(m.mean / s.factor), sig(m.ci_low / s.factor),
                        sig(m.ci_high / s.factor), rel, s.name});
    }
    std::vector<std::size_t> width(rows.front().size(), 0);
    for (const auto& row : rows) {
        for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    }
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t c = 0; c < row.size(); ++c) {
            line += c + 1 == row.size() ? row[c] : pad(row[c], width[c] + 2);
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    return out;
}

std::string format_json(const net::PetriNet& net, const solver::SolveResult& r) {
    using Json = nlohmann::ordered_json;
    Json j;
    j["model"] = net.name;
    j["solver"] = r.solver;
    Json params = Json::object();
    for (const auto& p : net.params) params[p.name] = p.value;
    j["params"] = params;
    Json measures = Json::object();
    for (const auto& m : r.measures) {
        measures[m.name] = Json{{"mean", m.mean}, {"ci_low", m.ci_low}, {"ci_high", m.ci_high}};
    }
    j["measures"] = measures;
    Json stats{{"replications", r.stats.replications},
               {"events", r.stats.events},
               {"simulated_s", r.stats.simulated_s},
               {"wall_s", r.stats.wall_s}};
    if (r.stats.states) stats["states"] = *r.stats.states;
    if (r.stats.residual) stats["residual"] = *r.stats.residual;
    if (r.stats.iterations) stats["iterations"] = *r.stats.iterations;
    if (r.stats.method) stats["method"] = *r.stats.method;
    j["stats"] = stats;
    return j.dump() + "\n";
}

std::vector<std::string> csv_measure_columns(const solver::SolveResult& r) {
    std::vector<std::string> cols;
    for (const auto& m : r.measures) {
        cols.push_back(m.name);
        cols.push_back(m.name + "_ci_low");
        cols.push_back(m.name + "_ci_high");
    }
    return cols;
}

std::vector<std::string> csv_measure_cells(const solver::SolveResult& r) {
    std::vector<std::string> cells;
    for (const auto& m : r.measures) {
        cells.push_back(number(m.mean));
        cells.push_back(number(m.ci_low));
        cells.push_back(number(m.ci_high));
    }
    return cells;
}

std::string csv_line(const std::vector<std::string>& fields) {
    std::string out;
    for (std::size_t k = 0; k < fields.size(); ++k) {
        if (k) out += ',';
        const auto& f = fields[k];
        if (f.find_first_of(",\"\n") == std::string::npos) {
            out += f;
            continue;
        }
        out += '"';
        for (char c : f) {
            if (c == '"') out += '"';
            out += c;
        }
        out += '"';
    }
    return out + "\n";
}

std::string format_csv(const solver::SolveResult& r) {
    return csv_line(csv_measure_columns(r)) + csv_line(csv_measure_cells(r));
}

std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t k = 0; k < line.size(); ++k) {
        const char c = line[k];
        if (quoted) {
            if (c == '"' && k + 1 < line.size() && line[k + 1] == '"') {
                out.back() += '"';
                ++k;
            } else if (c == '"') {
                quoted = false;
            } else {
                out.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

}  // namespace sgdnet::cli
