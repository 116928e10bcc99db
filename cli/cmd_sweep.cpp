// `sgdnet sweep FILE --set NAME=RANGE…`: options → a sweep plan for the engine in sweep/ (every
// point compiled, every bad one named, before any is solved), then the CLI's side: CSV or
// JSON-lines rows streamed to a file, --resume, SIGINT, progress, --plot and --plot-measure.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/set_origin.hpp"
#include "compiler/units.hpp"
#ifdef SGDNET_WITH_MPI
#include "mpi/mpi_sweep.hpp"
#endif
#include "solver/threads.hpp"
#include "sweep/sweep_run.hpp"
#include "sweep/sweep_shard.hpp"
#include "sweep/sweep_spec.hpp"

namespace sgdnet::cli {
namespace {

using sweep::CompiledSweep;
using sweep::SweepParam;
using sweep::SweepRow;

// The first SIGINT stops starting new points and lets the points in progress finish; a second
// one leaves at once with the rows already written (_Exit is async-signal-safe, and so are
// stores to lock-free atomics).
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);
std::atomic<int> g_sigints{0};
std::atomic<bool> g_cancel{false};
extern "C" void on_sigint(int) {
    g_cancel.store(true);
    if (g_sigints.fetch_add(1) >= 1) std::_Exit(130);
}
bool interrupted() { return g_cancel.load(); }

using Clock = std::chrono::steady_clock;

// ---- Options → plan → compiled sweep ----------------------------------------------------------

/// The swept params of --set, each parsed and given once; prints the error and returns nullopt.
std::optional<std::vector<SweepParam>> parse_ranges(const std::vector<std::string>& ranges) {
    std::vector<SweepParam> params;
    for (const auto& s : ranges) {
        std::string error;
        auto p = sweep::parse_sweep_set(s, error);
        if (!p) {
            std::cerr << "error: " << error << "\n";
            return std::nullopt;
        }
        for (const auto& q : params) {
            if (q.name == p->name) {
                std::cerr << "error: --set " << p->name << " is given twice\n";
                return std::nullopt;
            }
        }
        params.push_back(std::move(*p));
    }
    if (params.empty()) {
        std::cerr << "error: sweep needs at least one --set NAME=RANGE\n";
        return std::nullopt;
    }
    return params;
}

/// The plan of `args`; prints the error and returns nullopt on bad options.
std::optional<sweep::SweepPlan> make_plan(const SweepArgs& args) {
    sweep::SweepPlan plan;
    plan.model_path = args.run.file;
    auto params = parse_ranges(args.ranges);
    if (!params) return std::nullopt;
    plan.params = std::move(*params);
    std::string error;
    auto points = sweep::sweep_points(plan.params, args.zip, error);
    if (!points) {
        std::cerr << "error: " << error << "\n";
        return std::nullopt;
    }
    plan.points = std::move(*points);
    if (args.resume && args.output.empty()) {
        std::cerr << "error: --resume needs -o FILE\n";
        return std::nullopt;
    }
    auto solve = make_solve_options(args.run);
    if (!solve) return std::nullopt;
    plan.solve = *solve;
    auto compile = make_compile_options(args.run.sets, args.run.granularity);
    if (!compile) return std::nullopt;
    plan.compile = std::move(*compile);
    return plan;
}

/// The overrides of point `k`: the fixed ones (--fix), then the swept values (--set).
std::vector<SetOrigin> point_origins(const sweep::SweepPlan& plan, std::size_t k) {
    std::vector<SetOrigin> origins = origins_of("--fix", plan.compile.overrides);
    for (const auto& p : sweep::point_params(plan, k)) {
        const std::string shown = shown_value(plan, p);
        origins.push_back({"--set", p.name, p.value.text, shown == p.value.text ? "" : shown});
    }
    return origins;
}

/// Points whose diagnostics are printed in full; the summary line names every bad point.
constexpr std::size_t kMaxPointsShown = 20;

/// Compiles every point, even after one fails, printing each diagnostic once (an error a swept
/// value causes names its point); when some fail, prints a summary naming every bad point and
/// returns nullopt. With `explain`, adds the explain columns (bounds, breakdown) to every point.
std::optional<CompiledSweep> compile_plan(sweep::SweepPlan plan, bool explain = false) {
    const sweep::SweepPlan kept = plan;  // for messages; `plan` moves into the sweep
    OriginRenderer renderer(
        [&kept](const compiler::CompileOptions& options, frontend::Diagnostics& diags) {
            if (kept.model_text) {
                compiler::compile(*kept.model_text, kept.model_path, options, diags);
            } else {
                compiler::compile_file(kept.model_path, options, diags);
            }
        },
        kept.compile);
    std::set<std::string> printed;
    std::size_t bad = 0;
    auto on_diagnostics = [&](std::size_t k, const frontend::Diagnostics& diags) {
        const bool failed = diags.has_errors();
        if (failed && ++bad > kMaxPointsShown) return;
        const auto blocks = renderer.blocks(diags, point_origins(kept, k),
                                            failed ? point_label(kept, k) : "");
        for (const auto& block : blocks) {
            if (printed.insert(block).second) std::cerr << block;
        }
    };
    try {
        auto compiled = sweep::compile_sweep(std::move(plan), on_diagnostics,
                                             sweep::CompileErrors::Collect);
        if (explain && !add_explain_measures(compiled)) return std::nullopt;
        return compiled;
    } catch (const sweep::SweepError& e) {
        if (e.kind() != sweep::SweepError::Kind::Diagnostics) {
            std::cerr << "error: " << e.what() << "\n";
            return std::nullopt;
        }
        std::string list;
        for (std::size_t k : e.points()) list += (list.empty() ? "" : "; ") + point_label(kept, k);
        std::cerr << "error: " << e.points().size() << " of " << kept.points.size()
                  << " sweep points do not compile, so none was solved"
                  << (e.points().size() > kMaxPointsShown
                          ? " (the diagnostics above are those of the first " +
                                std::to_string(kMaxPointsShown) + ")"
                          : "")
                  << ": " << list << "\n";
        return std::nullopt;
    }
}

// ---- Rows: CSV and JSON lines -----------------------------------------------------------------

/// The CSV header: the swept params, then `NAME,NAME_ci_low,NAME_ci_high` for each measure.
std::vector<std::string> csv_header(const CompiledSweep& sweep) {
    std::vector<std::string> header;
    for (const auto& p : sweep.plan.params) header.push_back(p.name);
    for (const auto& name : sweep.measure_names) {
        header.push_back(name);
        header.push_back(name + "_ci_low");
        header.push_back(name + "_ci_high");
    }
    return header;
}

/// A solved row as a CSV line: the swept values, then every measure of the header (empty cells
/// for one this point lacks).
std::string csv_row(const CompiledSweep& sweep, const SweepRow& row) {
    std::vector<std::string> cells;
    for (const auto& p : row.params) cells.push_back(number(p.value.canonical));
    std::map<std::string, const solver::MeasureEstimate*> by_name;
    for (const auto& m : row.result->measures) by_name[m.name] = &m;
    for (const auto& name : sweep.measure_names) {
        const auto it = by_name.find(name);
        if (it == by_name.end()) {
            cells.insert(cells.end(), 3, "");
            continue;
        }
        cells.push_back(number(it->second->mean));
        cells.push_back(number(it->second->ci_low));
        cells.push_back(number(it->second->ci_high));
    }
    return csv_line(cells);
}

/// A solved row as one JSON line: `run --format json`'s object, `params` the swept values.
std::string jsonl_row(const CompiledSweep& sweep, const SweepRow& row) {
    auto json = nlohmann::ordered_json::parse(format_json(sweep.nets[row.index], *row.result));
    nlohmann::ordered_json swept = nlohmann::ordered_json::object();
    for (const auto& p : row.params) swept[p.name] = p.value.canonical;
    json["params"] = swept;
    return json.dump() + "\n";
}

// ---- --resume: the rows already in OUT --------------------------------------------------------

/// One row of the output: its text once done, and the mean, ci_low and ci_high of each plotted
/// measure (NaN for one the point lacks).
struct Row {
    bool done = false;
    bool written = false;
    std::string text;  // the row's line, ending in '\n'
    std::vector<double> plotted;
};

/// A row read back from OUT: its key and plotted measures; nullopt for a torn or foreign line.
struct ReadRow {
    std::string key;
    std::vector<double> plotted;
};

/// The measures --plot draws (--plot-measure, by default the first measure): indexes into
/// sweep.measure_names.
using Plotted = std::vector<std::size_t>;

/// The mean, ci_low and ci_high of every plotted measure of a solved row.
std::vector<double> plotted_values(const CompiledSweep& sweep, const Plotted& plotted,
                                   const solver::SolveResult& result) {
    std::vector<double> out;
    for (std::size_t m : plotted) {
        const auto it = std::find_if(result.measures.begin(), result.measures.end(),
                                     [&](const auto& e) { return e.name == sweep.measure_names[m]; });
        if (it == result.measures.end()) {
            out.insert(out.end(), 3, std::numeric_limits<double>::quiet_NaN());
        } else {
            out.insert(out.end(), {it->mean, it->ci_low, it->ci_high});
        }
    }
    return out;
}

std::optional<ReadRow> read_jsonl_row(const CompiledSweep& sweep, const Plotted& plotted,
                                      const std::string& line) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(line);
    } catch (const std::exception&) {
        return std::nullopt;  // a torn last line
    }
    ReadRow row;
    const auto& params = sweep.plan.params;
    for (std::size_t d = 0; d < params.size(); ++d) {
        if (!j["params"].contains(params[d].name)) break;
        row.key += (d ? "," : "") + number(j["params"][params[d].name].get<double>());
    }
    for (std::size_t m : plotted) {
        const auto& e = j["measures"][sweep.measure_names[m]];
        if (e.is_object() && e["mean"].is_number()) {
            row.plotted.insert(row.plotted.end(), {e["mean"], e["ci_low"], e["ci_high"]});
        } else {
            row.plotted.insert(row.plotted.end(), 3, std::numeric_limits<double>::quiet_NaN());
        }
    }
    return row;
}

/// A CSV row read back: `params` swept columns, then three per measure of the header.
std::optional<ReadRow> read_csv_row(std::size_t params, std::size_t columns,
                                    const Plotted& plotted, const std::string& line) {
    const auto cells = split_csv(line);
    if (cells.size() != columns) return std::nullopt;  // a torn last line
    ReadRow row;
    for (std::size_t d = 0; d < params; ++d) row.key += (d ? "," : "") + cells[d];
    try {
        std::stod(cells[params]);  // every row has the first measure
    } catch (const std::exception&) {
        return std::nullopt;
    }
    for (std::size_t m : plotted) {
        for (std::size_t c = 0; c < 3; ++c) {
            const std::string& cell = cells[params + 3 * m + c];
            row.plotted.push_back(cell.empty() ? std::numeric_limits<double>::quiet_NaN()
                                               : std::strtod(cell.c_str(), nullptr));
        }
    }
    return row;
}

/// Reads the first lines of `in` (empty lines skipped) and compares them with `preamble` (the
/// lines a sweep writes before its rows); true when they match or the file is empty.
bool read_preamble(std::istream& in, const std::string& preamble) {
    const auto lines = static_cast<std::size_t>(std::count(preamble.begin(), preamble.end(), '\n'));
    std::string read, line;
    std::size_t got = 0;
    while (got < lines && std::getline(in, line)) {
        if (line.empty()) continue;
        read += line + "\n";
        ++got;
    }
    return got == 0 || read == preamble;
}

/// Marks done every row of `path` whose swept values match a point not yet done (the first such
/// line per point wins). Returns how many, or nullopt (error printed) when the lines before the
/// rows (`preamble`: a part's tag, the CSV header) do not match.
std::optional<std::size_t> read_resumed_rows(const std::string& path, const CompiledSweep& sweep,
                                             const Plotted& plotted, bool jsonl,
                                             const std::string& preamble,
                                             std::vector<Row>& rows) {
    const std::size_t columns = csv_header(sweep).size();
    std::map<std::string, std::size_t> index_of_key;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        index_of_key[point_key(sweep::point_params(sweep.plan, k))] = k;
    }
    std::ifstream in(path);
    if (!read_preamble(in, preamble)) {
        std::cerr << "error: " << path << ": its "
                  << (preamble.starts_with("#") ? "part tag or header" : "header")
                  << " does not match this sweep; cannot resume\n";
        return std::nullopt;
    }
    std::string line;
    std::size_t resumed = 0;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const auto read = jsonl ? read_jsonl_row(sweep, plotted, line)
                                : read_csv_row(sweep.plan.params.size(), columns, plotted, line);
        if (!read) continue;
        const auto it = index_of_key.find(read->key);
        if (it == index_of_key.end() || rows[it->second].done) continue;
        rows[it->second] = Row{true, false, line + "\n", read->plotted};
        ++resumed;
    }
    return resumed;
}

// ---- Writing rows and progress ----------------------------------------------------------------

/// Rows are written in point order as soon as every earlier point is done.
class RowWriter {
public:
    RowWriter(std::vector<Row>& rows, std::ostream& out) : rows_(rows), out_(out) {}

    void write_prefix() {
        while (next_ < rows_.size() && rows_[next_].done) {
            if (!rows_[next_].written) out_ << rows_[next_].text;
            rows_[next_].written = true;
            ++next_;
        }
        out_.flush();
    }

    /// After an interrupt: every finished row, past the in-order prefix too.
    void write_rest() {
        for (auto& row : rows_) {
            if (row.done && !row.written) {
                out_ << row.text;
                row.written = true;
            }
        }
        out_.flush();
    }

private:
    std::vector<Row>& rows_;
    std::ostream& out_;
    std::size_t next_ = 0;
};

/// Progress on stderr: a bar on a terminal, one line per point otherwise; nothing with -q.
class ProgressDisplay {
public:
    ProgressDisplay(bool quiet, std::size_t total, std::size_t resumed)
        : quiet_(quiet), tty_(isatty(STDERR_FILENO) != 0), total_(total), resumed_(resumed) {}

    /// `finished` points (resumed ones included) after point `key` finished.
    void point_done(std::size_t finished, const std::string& key) const {
        if (quiet_) return;
        const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
        const std::size_t done_now = finished - resumed_, todo = total_ - resumed_;
        const double eta = done_now ? elapsed / done_now * (todo - done_now) : 0;
        if (tty_) {
            const int width = 30;
            const int fill = static_cast<int>(width * finished / std::max<std::size_t>(total_, 1));
            std::cerr << "\r[" << std::string(fill, '#') << std::string(width - fill, ' ') << "] "
                      << finished << "/" << total_ << " points, " << hms(elapsed)
                      << " elapsed, ETA " << hms(eta) << (finished == total_ ? "\n" : "")
                      << std::flush;
        } else {
            std::cerr << "point " << finished << "/" << total_ << " (" << key << ") done, "
                      << hms(elapsed) << " elapsed, ETA " << hms(eta) << "\n";
        }
    }

private:
    bool quiet_;
    bool tty_;
    std::size_t total_;
    std::size_t resumed_;
    Clock::time_point start_ = Clock::now();
};

/// Runs the sweep on a worker thread with SIGINT setting the cancel flag; the first Ctrl-C
/// is announced here while the points in progress finish. Rethrows what run_sweep threw.
sweep::SweepSummary run_with_sigint(const CompiledSweep& compiled,
                                    const sweep::SweepOptions& options,
                                    const sweep::RowCallback& on_row, std::mutex& io_mu) {
    std::mutex mu;
    std::condition_variable cv;
    bool all_done = false;
    sweep::SweepSummary summary;
    std::exception_ptr thrown;
    g_sigints.store(0);
    g_cancel.store(false);
    const auto old_handler = std::signal(SIGINT, on_sigint);
    std::thread worker([&] {
        try {
            summary = sweep::run_sweep(compiled, options, on_row, &g_cancel);
        } catch (...) {
            thrown = std::current_exception();
        }
        std::lock_guard lock(mu);
        all_done = true;
        cv.notify_all();
    });
    {
        std::unique_lock lock(mu);
        while (!all_done && !interrupted()) cv.wait_for(lock, std::chrono::milliseconds(100));
        if (!all_done) {
            {
                std::lock_guard io(io_mu);
                std::cerr << "\ninterrupted: finishing the points in progress (Ctrl-C again to "
                             "stop now)\n";
            }
            cv.wait(lock, [&] { return all_done; });
        }
    }
    worker.join();
    std::signal(SIGINT, old_handler);
    if (thrown) std::rethrow_exception(thrown);
    return summary;
}

// ---- --plot -----------------------------------------------------------------------------------

/// `name [unit]` with quotes blanked, for gnuplot labels.
std::string plot_label(std::string name, const std::string& unit) {
    for (auto& c : name) if (c == '\'' || c == '"') c = ' ';
    return unit.empty() ? name : name + " [" + unit + "]";
}

/// One panel of a plot: a measure against the first swept param, in readable units.
struct Panel {
    std::string ylabel;
    std::string plots;  // gnuplot's plot clauses
};

/// The readable unit of the largest |value| of `values` in canonical unit `unit`.
compiler::ReadableUnit axis_unit(const std::vector<double>& values, const std::string& unit) {
    double top = 0;
    for (double v : values) {
        if (std::isfinite(v)) top = std::max(top, std::abs(v));
    }
    const std::string shown = readable(top, unit);  // "25 Gbps", "0.5", "3 tokens"
    const auto space = shown.find(' ');
    if (space == std::string::npos) return {1, ""};
    const std::string name = shown.substr(space + 1);
    const double factor = top / std::strtod(shown.c_str(), nullptr);
    return {std::isfinite(factor) && factor > 0 ? factor : 1, name};
}

/// Writes one data block per combination of the params after the first (points sorted by the
/// first param; the m-th plotted measure, `name` in canonical `unit`, with its CI, in readable
/// units) to `data_path`; returns the panel that draws them.
Panel write_plot_data(const std::filesystem::path& data_path, const CompiledSweep& sweep,
                      std::size_t m, const std::string& name, const std::string& unit,
                      const std::vector<Row>& rows) {
    const auto& params = sweep.plan.params;
    const auto& points = sweep.plan.points;
    std::map<std::vector<std::size_t>, std::vector<std::size_t>> groups;
    std::vector<double> xs, ys;
    for (std::size_t k = 0; k < points.size(); ++k) {
        if (rows[k].plotted.size() <= 3 * m || std::isnan(rows[k].plotted[3 * m])) continue;
        groups[std::vector<std::size_t>(points[k].begin() + 1, points[k].end())].push_back(k);
        xs.push_back(params[0].values[points[k][0]].canonical);
        ys.push_back(rows[k].plotted[3 * m]);
    }
    const compiler::ReadableUnit xu = axis_unit(xs, params[0].unit), yu = axis_unit(ys, unit);
    std::ofstream data(data_path);
    Panel panel{plot_label(name, yu.name), ""};
    std::size_t block = 0;
    for (const auto& [rest, ks] : groups) {
        std::vector<std::size_t> sorted = ks;
        std::sort(sorted.begin(), sorted.end(), [&](std::size_t a, std::size_t b) {
            return params[0].values[points[a][0]].canonical <
                   params[0].values[points[b][0]].canonical;
        });
        for (std::size_t k : sorted) {
            const double* v = rows[k].plotted.data() + 3 * m;
            data << number(params[0].values[points[k][0]].canonical / xu.factor) << " "
                 << number(v[0] / yu.factor) << " " << number(v[1] / yu.factor) << " "
                 << number(v[2] / yu.factor) << "\n";
        }
        data << "\n\n";
        std::string title;
        for (std::size_t d = 1; d < params.size(); ++d) {
            // The value as written on the command line (`bw=10Gbps`, not 1250000000 B/s).
            title += (d > 1 ? ", " : "") + params[d].name + "=" +
                     params[d].values[rest[d - 1]].text;
        }
        if (title.empty()) title = name;
        for (auto& c : title) if (c == '\'' || c == '"') c = ' ';
        panel.plots += std::string(panel.plots.empty() ? "" : ", ") + "'" + data_path.string() +
                       "' index " + std::to_string(block++) +
                       " using 1:2:3:4 with yerrorlines title \"" + title + "\"";
    }
    return panel;
}

/// Writes the gnuplot script drawing `panels` (one above the other) to `out_path`: `.png` →
/// pngcairo, else svg; the x axis logarithmic when the first param's values span a factor ≥ 32.
void write_plot_script(const std::filesystem::path& script_path, const std::string& out_path,
                       const SweepParam& x, const std::string& xunit,
                       const std::vector<Panel>& panels) {
    const bool png = out_path.size() >= 4 && out_path.substr(out_path.size() - 4) == ".png";
    double lo = 0, hi = 0;
    for (const auto& v : x.values) {
        lo = lo == 0 ? v.canonical : std::min(lo, v.canonical);
        hi = std::max(hi, v.canonical);
    }
    const std::string size =
        "900," + std::to_string(panels.size() == 1 ? 560 : 380 * panels.size());
    std::ofstream script(script_path);
    script << "set terminal " << (png ? "pngcairo size " + size : "svg size " + size + " dynamic")
           << " font 'Helvetica,12'\n"
           << "set termoption noenhanced\n"  // names like steps_per_s and w[0] print as written
           << "set output '" << out_path << "'\n"
           << "set xlabel \"" << plot_label(x.name, xunit) << "\"\n"
           << "set grid\nset key outside right top\nset bars small\n"
           << (lo > 0 && hi / lo >= 32 ? "set logscale x 2\n" : "");
    if (panels.size() > 1) script << "set multiplot layout " << panels.size() << ",1\n";
    for (const auto& panel : panels) {
        script << "set ylabel \"" << panel.ylabel << "\"\n"
               << "plot " << (panel.plots.empty() ? "NaN notitle" : panel.plots) << "\n";
    }
    if (panels.size() > 1) script << "unset multiplot\n";
}

/// The canonical unit of measure `name` (from the first point's net that has it).
std::string measure_unit(const CompiledSweep& sweep, const std::string& name) {
    for (const auto& net : sweep.nets) {
        for (const auto& m : net.measures) {
            if (m.name == name) return m.unit;
        }
    }
    return "";
}

/// Plots each plotted measure against the first swept param with gnuplot (one panel per
/// measure), one line per combination of the other params, CI error bars.
Status plot_sweep(const std::string& path, const CompiledSweep& sweep, const Plotted& plotted,
                  const std::vector<Row>& rows) {
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
        std::cerr << "error: --plot needs gnuplot; install it "
                     "(Debian: apt-get install gnuplot-nox)\n";
        return Status::InputError;
    }
    const auto dir = std::filesystem::temp_directory_path() /
                     ("sgdnet-plot-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::vector<Panel> panels;
    for (std::size_t j = 0; j < plotted.size(); ++j) {
        const std::string& name = sweep.measure_names[plotted[j]];
        panels.push_back(write_plot_data(dir / ("data" + std::to_string(j) + ".txt"), sweep, j,
                                         name, measure_unit(sweep, name), rows));
    }
    std::vector<double> xs;
    for (const auto& v : sweep.plan.params[0].values) xs.push_back(v.canonical);
    write_plot_script(dir / "plot.gp", path, sweep.plan.params[0],
                      axis_unit(xs, sweep.plan.params[0].unit).name, panels);
    const std::string cmd = "gnuplot '" + (dir / "plot.gp").string() + "'";
    const int rc = std::system(cmd.c_str());
    std::filesystem::remove_all(dir);
    if (rc != 0) {
        std::cerr << "error: gnuplot failed to write '" << path << "'\n";
        return Status::InputError;
    }
    return Status::Ok;
}

/// The measures to plot: each --plot-measure NAME (every one a measure of the sweep), or the
/// first measure. Prints the error, listing the measures, and returns nullopt on an unknown name.
std::optional<Plotted> plotted_measures(const SweepArgs& args, const CompiledSweep& sweep) {
    if (args.plot_measures.empty()) return Plotted{0};
    if (args.plot.empty()) {
        std::cerr << "error: --plot-measure chooses what --plot draws; add --plot OUT.svg\n";
        return std::nullopt;
    }
    Plotted out;
    for (const auto& name : args.plot_measures) {
        const auto it = std::find(sweep.measure_names.begin(), sweep.measure_names.end(), name);
        if (it == sweep.measure_names.end()) {
            std::string list;
            for (const auto& m : sweep.measure_names) list += (list.empty() ? "" : ", ") + m;
            std::cerr << "error: --plot-measure " << name << ": the model has no measure '"
                      << name << "'"
                      << compiler::did_you_mean(name, sweep.measure_names)
                      << " (its measures: " << list << ")\n";
            return std::nullopt;
        }
        out.push_back(static_cast<std::size_t>(it - sweep.measure_names.begin()));
    }
    return out;
}

// ---- The command ------------------------------------------------------------------------------

/// What solving the points left to the CLI: the first error in point order, the counters.
struct SolveOutcome {
    sweep::SweepSummary summary;
    std::optional<solver::SolveError> first_error;
    std::size_t finished = 0;  // rows done, resumed ones included
};

/// The rows of this run: one per point (those outside --shard done from the start, with no
/// text), how many this run writes, how many were resumed, and the lines before the rows.
struct RunRows {
    std::vector<Row> rows;
    std::size_t total = 0;
    std::size_t resumed = 0;
    std::string preamble;
    Plotted plotted;  // the measures --plot draws
};

/// Solves the points a SweepOptions does not skip, handing rows to the callback in point order:
/// in this process (run_with_sigint) or over the ranks of an MPI job. Callbacks run under io_mu.
using Driver = std::function<sweep::SweepSummary(const CompiledSweep&, const sweep::SweepOptions&,
                                                 const sweep::RowCallback&, std::mutex& io_mu)>;

/// Solves the points not done yet, writing each row as its turn comes and drawing progress.
SolveOutcome solve_points(const SweepArgs& args, const CompiledSweep& compiled, RunRows& run,
                          RowWriter& writer, const Driver& driver) {
    const bool jsonl = args.run.format == "jsonl";
    auto& rows = run.rows;
    SolveOutcome outcome;
    outcome.finished = run.resumed;
    const ProgressDisplay progress(args.quiet, run.total, run.resumed);
    std::mutex io_mu;
    sweep::SweepOptions options;
    options.threads = args.run.threads;
    for (const auto& row : rows) options.skip.push_back(row.done);
    options.on_progress = [&](const sweep::SweepProgress& p) {
        if (p.point_failed) return;
        std::lock_guard io(io_mu);
        progress.point_done(run.resumed + p.solved, point_label(compiled.plan, p.point));
    };
    auto on_row = [&](SweepRow&& row) {
        std::lock_guard io(io_mu);
        const std::string key = point_label(compiled.plan, row.index);
        if (row.error) {
            // The row stays missing: later rows are not written in order past it.
            std::cerr << "error: point " << key << ": " << row.error->what() << "\n";
            if (!outcome.first_error) outcome.first_error = row.error;
            return;
        }
        for (const auto& w : row.result->warnings) {
            std::cerr << "warning: point " << key << ": " << w << "\n";
        }
        rows[row.index] = Row{true, false,
                              jsonl ? jsonl_row(compiled, row) : csv_row(compiled, row),
                              plotted_values(compiled, run.plotted, *row.result)};
        ++outcome.finished;
        writer.write_prefix();
    };
    outcome.summary = driver(compiled, options, on_row, io_mu);
    return outcome;
}

// ---- --shard: parts of a sweep ----------------------------------------------------------------

/// The text of `path`, "" when unreadable.
std::string file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The tag of part `shard`: the grid, the seed, and a fingerprint of the model file and of every
/// other option that changes a row (--fix, granularity, solver and its options, format).
sweep::PartTag part_tag(const SweepArgs& args, const sweep::Shard& shard, std::size_t points) {
    const RunArgs& r = args.run;
    std::string config = file_text(r.file) + "\n--fix";
    for (const auto& s : r.sets) config += " " + s;
    config += "\n" + r.granularity + "|" + r.solver + "|" + number(r.precision) + "|" +
              number(r.confidence) + "|" + r.max_time + "|" + std::to_string(r.max_states) + "|" +
              (r.phase_type ? "phase-type" : "") + "|" + r.arith + "|" + r.format;
    sweep::PartTag tag;
    tag.shard = shard;
    tag.points = points;
    tag.seed = r.seed;
    tag.config = sweep::fingerprint(config);
    tag.ranges = args.ranges;
    tag.zip = args.zip;
    return tag;
}

/// The rows at the start of a run: outside --shard done with no text, then those --resume
/// finds in OUT. Prints the error and returns nullopt on a bad --shard or a mismatching OUT.
std::optional<RunRows> initial_rows(const SweepArgs& args, const CompiledSweep& compiled) {
    const bool jsonl = args.run.format == "jsonl";
    RunRows run;
    auto plotted = plotted_measures(args, compiled);
    if (!plotted) return std::nullopt;
    run.plotted = std::move(*plotted);
    run.rows.resize(compiled.plan.points.size());
    run.total = run.rows.size();
    if (!args.shard.empty()) {
        std::string error;
        const auto shard = sweep::parse_shard(args.shard, error);
        if (!shard || jsonl) {
            std::cerr << "error: "
                      << (shard ? "--shard writes CSV parts; drop --format jsonl" : error) << "\n";
            return std::nullopt;
        }
        for (std::size_t k = 0; k < run.rows.size(); ++k) {
            run.rows[k].done = !sweep::in_shard(k, *shard);
        }
        run.total = sweep::shard_size(run.rows.size(), *shard);
        run.preamble = sweep::format_part_tag(part_tag(args, *shard, run.rows.size()));
    }
    if (!jsonl) run.preamble += csv_line(csv_header(compiled));
    if (args.resume && std::filesystem::exists(args.output)) {
        const auto kept =
            read_resumed_rows(args.output, compiled, run.plotted, jsonl, run.preamble, run.rows);
        if (!kept) return std::nullopt;
        run.resumed = *kept;
    }
    return run;
}

/// Writes the rows of `compiled` to -o OUT or stdout as `driver` solves them: --shard, --resume,
/// progress, interrupt, --plot; the status of the run.
Status write_sweep(const SweepArgs& args, const CompiledSweep& compiled, const Driver& driver) {
    auto run = initial_rows(args, compiled);
    if (!run) return Status::InputError;

    std::ofstream file;
    std::ostream* out = &std::cout;
    if (!args.output.empty()) {
        file.open(args.output, std::ios::binary | std::ios::trunc);
        if (!file) {
            std::cerr << "error: cannot write '" << args.output << "'\n";
            return Status::InputError;
        }
        out = &file;
    }
    *out << run->preamble;
    RowWriter writer(run->rows, *out);
    writer.write_prefix();

    const SolveOutcome outcome = solve_points(args, compiled, *run, writer, driver);
    if (interrupted()) {
        writer.write_rest();
        if (file.is_open()) file.close();
        std::cerr << "interrupted: " << outcome.finished << " of " << run->total
                  << " points finished and kept"
                  << (args.output.empty() ? "" : "; rerun with --resume to finish") << "\n";
        return Status::Interrupted;
    }
    if (file.is_open()) file.close();
    if (!file && !args.output.empty()) {
        std::cerr << "error: cannot write '" << args.output << "'\n";
        return Status::InputError;
    }
    if (!args.plot.empty()) {
        const Status s = plot_sweep(args.plot, compiled, run->plotted, run->rows);
        if (s != Status::Ok) return s;
    }
    if (outcome.first_error) throw *outcome.first_error;
    return outcome.summary.precision_reached ? Status::Ok : Status::PrecisionNotReached;
}

// ---- MPI: mpirun -n K sgdnet sweep … ---------------------------------------------------------

/// The number of ranks of the MPI job that started this process (Open MPI, PMI or PMIx
/// launchers set these), 0 when no MPI launcher did.
int mpi_world_size() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
        if (const char* v = std::getenv(name)) return std::max(1, std::atoi(v));
    }
    return std::getenv("PMIX_RANK") ? 1 : 0;
}

#ifndef SGDNET_WITH_MPI
/// The same command with MPI linked in, built beside `sgdnet` when MPI is found. `sgdnet` itself
/// does not load MPI, whose libraries would add several milliseconds to the start of every
/// command; a sweep started by an MPI launcher becomes the twin instead.
constexpr const char* kMpiTwin = "sgdnet-mpi";

/// Replaces this process by the twin beside the executable, with the same arguments (read back
/// from /proc/self/cmdline) and environment, which carries the MPI launcher's. Returns only
/// when there is no twin or it cannot be started.
void exec_mpi_twin() {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return;
    const std::string twin = (self.parent_path() / kMpiTwin).string();
    if (::access(twin.c_str(), X_OK) != 0) return;
    std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
    std::vector<std::string> args;
    for (std::string arg; std::getline(cmdline, arg, '\0');) args.push_back(arg);
    if (args.empty()) return;
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::cout.flush();
    ::execv(twin.c_str(), argv.data());
    std::cerr << "warning: cannot start " << twin << ": " << std::strerror(errno) << "\n";
}
#else
/// Under mpirun, SIGINT or SIGTERM (mpirun turns Ctrl-C into SIGTERM to every rank, then kills
/// them a second later) stops handing out points at once: rank 0 writes what it holds.
extern "C" void on_mpi_stop(int) { g_cancel.store(true); }

/// Rank 0's driver: the points over every rank; on an interrupt, names the points dropped.
Driver mpi_driver(mpi::MpiJob& job, Context& ctx) {
    return [&job, &ctx](const CompiledSweep& compiled, const sweep::SweepOptions& options,
                        const sweep::RowCallback& on_row, std::mutex& io_mu) {
        g_cancel.store(false);
        const auto old_int = std::signal(SIGINT, on_mpi_stop);
        const auto old_term = std::signal(SIGTERM, on_mpi_stop);
        const auto outcome = mpi::coordinate_sweep(job, compiled, options, on_row, &g_cancel);
        std::signal(SIGINT, old_int);
        std::signal(SIGTERM, old_term);
        std::lock_guard io(io_mu);
        for (const auto& dropped : outcome.dropped) {
            std::cerr << "interrupted: point "
                      << point_label(compiled.plan, dropped.point)
                      << " was in progress on rank " << dropped.rank << "; dropped\n";
        }
        ctx.end_at_once = !outcome.dropped.empty();
        return outcome.summary;
    };
}

/// `sgdnet sweep` as one rank of an MPI job: every rank compiles the sweep (diagnostics from
/// rank 0 only); rank 0 coordinates and writes, the others solve what it hands out.
Status cmd_sweep_mpi(const SweepArgs& args, Context& ctx) {
    mpi::MpiJob job;
    if (job.rank() != 0) std::cerr.rdbuf(nullptr);  // one copy of every message: rank 0's
    auto plan = make_plan(args);
    std::optional<CompiledSweep> compiled;
    if (plan) compiled = compile_plan(std::move(*plan), args.explain);
    if (!job.all(compiled.has_value())) {
        if (compiled) {
            std::cerr << "error: the sweep does not compile on every rank (is " << args.run.file
                      << " readable on every node?)\n";
        }
        return Status::InputError;
    }
    if (job.rank() != 0) {
        // mpirun turns Ctrl-C into SIGTERM to every rank: a worker lives on until rank 0 has
        // written its rows and ended the job (mpirun then kills the workers).
        std::signal(SIGINT, SIG_IGN);
        std::signal(SIGTERM, SIG_IGN);
        mpi::serve_sweep(job, *compiled);
        return Status::Ok;
    }
    ctx.net = compiled->nets.front();
    return write_sweep(args, *compiled, mpi_driver(job, ctx));
}
#endif

}  // namespace

Status cmd_sweep(const SweepArgs& args, Context& ctx) {
#ifdef SGDNET_WITH_MPI
    if (mpi_world_size() > 0) return cmd_sweep_mpi(args, ctx);
#else
    if (mpi_world_size() > 0) exec_mpi_twin();  // returns only when there is no twin
    if (mpi_world_size() > 1) {
        std::cerr << "error: this sgdnet was built without MPI (no " << kMpiTwin
                  << " beside it), so each of the " << mpi_world_size()
                  << " ranks would solve the whole sweep; rebuild it with "
                  << "MPI (libopenmpi-dev) or split the sweep with --shard I/K\n";
        return Status::InputError;
    }
#endif
    const solver::ThreadsWarmUp warm_up;  // beside the compile below
    auto plan = make_plan(args);
    if (!plan) return Status::InputError;
    // Compile every point up front: input errors surface before any solving.
    const auto compiled = compile_plan(std::move(*plan), args.explain);
    if (!compiled) return Status::InputError;
    ctx.net = compiled->nets.front();
    return write_sweep(args, *compiled, run_with_sigint);
}

}  // namespace sgdnet::cli
