// `sgdnet sweep FILE --set NAME=RANGE…`: solves the model at every point of a grid (or zip) of
// params, in parallel, streaming one CSV or JSON-lines row per point; --resume, SIGINT, --plot.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <exception>
#include <functional>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "sweep/sweep_spec.hpp"
#include "solver/solve.hpp"

namespace sgdnet::cli {
namespace {

// The first SIGINT stops starting new points and lets the points in progress finish; a second
// one leaves at once with the rows already written (_Exit is async-signal-safe).
std::atomic<int> g_sigints{0};
extern "C" void on_sigint(int) {
    if (g_sigints.fetch_add(1) >= 1) std::_Exit(130);
}
bool interrupted() { return g_sigints.load() > 0; }

using Clock = std::chrono::steady_clock;

std::string hms(double s) {
    const long t = static_cast<long>(s + 0.5);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    return buf;
}

/// Splits one CSV line written by csv_line (fields here never need quotes but handle them).
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

struct Row {
    bool done = false;
    bool written = false;
    std::string text;  // the row's line(s), ending in '\n'
    std::vector<double> first_measure;  // mean, ci_low, ci_high of the first measure
};

/// Plots the first measure against the first swept param with gnuplot, one line per combination
/// of the other params, CI error bars. `.png` → pngcairo, anything else → svg.
Status plot_sweep(const std::string& path, const std::vector<SweepParam>& params,
                  const std::vector<std::vector<std::size_t>>& points, const net::Measure& measure,
                  const std::function<std::vector<double>(std::size_t)>& first_measure) {
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
        std::cerr << "error: --plot needs gnuplot; install it "
                     "(Debian: apt-get install gnuplot-nox)\n";
        return Status::InputError;
    }
    // Group points by the values of the params after the first.
    std::map<std::vector<std::size_t>, std::vector<std::size_t>> groups;
    for (std::size_t k = 0; k < points.size(); ++k) {
        if (first_measure(k).size() != 3) continue;
        groups[std::vector<std::size_t>(points[k].begin() + 1, points[k].end())].push_back(k);
    }
    const auto dir = std::filesystem::temp_directory_path() /
                     ("sgdnet-plot-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream data(dir / "data.txt");
    std::string plots;
    std::size_t block = 0;
    for (const auto& [rest, ks] : groups) {
        std::vector<std::size_t> sorted = ks;
        std::sort(sorted.begin(), sorted.end(), [&](std::size_t a, std::size_t b) {
            return params[0].values[points[a][0]].canonical <
                   params[0].values[points[b][0]].canonical;
        });
        for (std::size_t k : sorted) {
            const auto m = first_measure(k);
            data << number(params[0].values[points[k][0]].canonical) << " " << number(m[0]) << " "
                 << number(m[1]) << " " << number(m[2]) << "\n";
        }
        data << "\n\n";
        std::string title;
        for (std::size_t d = 1; d < params.size(); ++d) {
            // The value as written on the command line (`bw=10Gbps`, not 1250000000 B/s).
            title += (d > 1 ? ", " : "") + params[d].name + "=" +
                     params[d].values[rest[d - 1]].text;
        }
        if (title.empty()) title = measure.name;
        for (auto& c : title) if (c == '\'' || c == '"') c = ' ';
        plots += std::string(plots.empty() ? "" : ", ") + "'" + (dir / "data.txt").string() +
                 "' index " + std::to_string(block++) +
                 " using 1:2:3:4 with yerrorlines title \"" + title + "\"";
    }
    data.close();
    const bool png = path.size() >= 4 && path.substr(path.size() - 4) == ".png";
    auto label = [](std::string name, const std::string& unit) {
        for (auto& c : name) if (c == '\'' || c == '"') c = ' ';
        return unit.empty() ? name : name + " [" + unit + "]";
    };
    double lo = 0, hi = 0;
    for (const auto& v : params[0].values) {
        lo = lo == 0 ? v.canonical : std::min(lo, v.canonical);
        hi = std::max(hi, v.canonical);
    }
    std::ofstream script(dir / "plot.gp");
    script << "set terminal " << (png ? "pngcairo size 900,560" : "svg size 900,560 dynamic")
           << " font 'Helvetica,12'\n"
           << "set termoption noenhanced\n"  // names like steps_per_s and w[0] print as written
           << "set output '" << path << "'\n"
           << "set xlabel \"" << label(params[0].name, params[0].unit) << "\"\n"
           << "set ylabel \"" << label(measure.name, measure.unit) << "\"\n"
           << "set grid\nset key outside right top\nset bars small\n"
           << (lo > 0 && hi / lo >= 32 ? "set logscale x 2\n" : "")
           << "plot " << plots << "\n";
    script.close();
    const std::string cmd = "gnuplot '" + (dir / "plot.gp").string() + "'";
    const int rc = std::system(cmd.c_str());
    std::filesystem::remove_all(dir);
    if (rc != 0) {
        std::cerr << "error: gnuplot failed to write '" << path << "'\n";
        return Status::InputError;
    }
    return Status::Ok;
}

}  // namespace

Status cmd_sweep(const SweepArgs& args, Context& ctx) {
    // Ranges and points.
    std::vector<SweepParam> params;
    for (const auto& s : args.ranges) {
        std::string error;
        auto p = parse_sweep_set(s, error);
        if (!p) {
            std::cerr << "error: " << error << "\n";
            return Status::InputError;
        }
        for (const auto& q : params) {
            if (q.name == p->name) {
                std::cerr << "error: --set " << p->name << " is given twice\n";
                return Status::InputError;
            }
        }
        params.push_back(std::move(*p));
    }
    if (params.empty()) {
        std::cerr << "error: sweep needs at least one --set NAME=RANGE\n";
        return Status::InputError;
    }
    std::string error;
    const auto points = sweep_points(params, args.zip, error);
    if (!points) {
        std::cerr << "error: " << error << "\n";
        return Status::InputError;
    }
    if (args.resume && args.output.empty()) {
        std::cerr << "error: --resume needs -o FILE\n";
        return Status::InputError;
    }
    const auto solve_options = make_solve_options(args.run);
    if (!solve_options) return Status::InputError;
    const bool jsonl = args.run.format == "jsonl";

    // Compile every point up front: input errors surface before any solving.
    std::vector<net::PetriNet> nets;
    nets.reserve(points->size());
    for (const auto& point : *points) {
        auto options = make_compile_options(args.run.sets, args.run.granularity);
        if (!options) return Status::InputError;
        for (std::size_t d = 0; d < params.size(); ++d) {
            options->overrides.emplace_back(params[d].name, params[d].values[point[d]].text);
        }
        auto net = compile_and_report(args.run.file, *options);
        if (!net) return Status::InputError;
        if (net->measures.empty()) {
            std::cerr << "error: " << args.run.file << ": the model defines no measure\n";
            return Status::InputError;
        }
        nets.push_back(std::move(*net));
    }
    ctx.net = nets.front();

    // Row keys (swept values as written) and the CSV header.
    auto key_of = [&](const std::vector<std::size_t>& point) {
        std::string k;
        for (std::size_t d = 0; d < params.size(); ++d) {
            k += (d ? "," : "") + number(params[d].values[point[d]].canonical);
        }
        return k;
    };
    // Points may define different measures (util.w[k] for k < N): the columns are their union,
    // and a point leaves the cells of a measure it does not have empty.
    std::vector<std::vector<std::string>> measures_per_point;
    for (const auto& n : nets) {
        auto& names = measures_per_point.emplace_back();
        for (const auto& m : n.measures) names.push_back(m.name);
    }
    const auto measure_names = sweep_measure_names(measures_per_point, error);
    if (!measure_names) {
        std::cerr << "error: " << args.run.file << ": " << error << "\n";
        return Status::InputError;
    }
    std::vector<std::string> header;
    for (const auto& p : params) header.push_back(p.name);
    for (const auto& name : *measure_names) {
        header.push_back(name);
        header.push_back(name + "_ci_low");
        header.push_back(name + "_ci_high");
    }
    const std::string header_line = csv_line(header);

    std::vector<Row> rows(points->size());
    std::map<std::string, std::size_t> index_of_key;
    for (std::size_t k = 0; k < points->size(); ++k) index_of_key[key_of((*points)[k])] = k;

    // --resume: keep the rows already in OUT.
    std::size_t resumed = 0;
    if (args.resume && std::filesystem::exists(args.output)) {
        std::ifstream in(args.output);
        std::string line;
        bool first = true;
        while (std::getline(in, line)) {
            if (line.empty()) continue;
            std::string key;
            std::vector<double> fm;
            if (jsonl) {
                nlohmann::json j;
                try {
                    j = nlohmann::json::parse(line);
                } catch (const std::exception&) {
                    continue;  // a torn last line
                }
                for (std::size_t d = 0; d < params.size(); ++d) {
                    if (!j["params"].contains(params[d].name)) break;
                    key += (d ? "," : "") + number(j["params"][params[d].name].get<double>());
                }
                const auto& m0 = j["measures"][nets.front().measures.front().name];
                if (m0.is_object()) fm = {m0["mean"], m0["ci_low"], m0["ci_high"]};
            } else {
                if (first) {
                    first = false;
                    if (line + "\n" != header_line) {
                        std::cerr << "error: " << args.output
                                  << ": its header does not match this sweep; cannot resume\n";
                        return Status::InputError;
                    }
                    continue;
                }
                const auto cells = split_csv(line);
                if (cells.size() != header.size()) continue;  // a torn last line
                for (std::size_t d = 0; d < params.size(); ++d) key += (d ? "," : "") + cells[d];
                try {
                    fm = {std::stod(cells[params.size()]), std::stod(cells[params.size() + 1]),
                          std::stod(cells[params.size() + 2])};
                } catch (const std::exception&) {
                    continue;
                }
            }
            const auto it = index_of_key.find(key);
            if (it == index_of_key.end() || rows[it->second].done) continue;
            rows[it->second] = Row{true, false, line + "\n", fm};
            ++resumed;
        }
    }

    // Output: rows are written in point order as soon as every earlier point is done.
    std::ofstream file;
    std::ostream* out = &std::cout;
    std::string tmp_path;
    if (!args.output.empty()) {
        file.open(args.output, std::ios::binary | std::ios::trunc);
        if (!file) {
            std::cerr << "error: cannot write '" << args.output << "'\n";
            return Status::InputError;
        }
        out = &file;
    }
    std::mutex mu;
    std::condition_variable cv;
    std::size_t next_to_write = 0, finished = resumed;
    if (!jsonl) *out << header_line;
    auto write_prefix = [&] {  // caller holds mu
        while (next_to_write < rows.size() && rows[next_to_write].done) {
            if (!rows[next_to_write].written) *out << rows[next_to_write].text;
            rows[next_to_write].written = true;
            ++next_to_write;
        }
        out->flush();
    };
    {
        std::lock_guard lock(mu);
        write_prefix();
    }

    // Progress on stderr.
    const bool tty = isatty(STDERR_FILENO) != 0;
    const auto start = Clock::now();
    auto progress = [&](std::size_t point) {  // caller holds mu
        if (args.quiet) return;
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        const std::size_t total = rows.size(), done_now = finished - resumed,
                          todo = total - resumed;
        const double eta = done_now ? elapsed / done_now * (todo - done_now) : 0;
        if (tty) {
            const int width = 30;
            const int fill = static_cast<int>(width * finished / std::max<std::size_t>(total, 1));
            std::cerr << "\r[" << std::string(fill, '#') << std::string(width - fill, ' ') << "] "
                      << finished << "/" << total << " points, " << hms(elapsed) << " elapsed, ETA "
                      << hms(eta) << (finished == total ? "\n" : "") << std::flush;
        } else {
            std::cerr << "point " << finished << "/" << total << " (" << key_of((*points)[point])
                      << ") done, " << hms(elapsed) << " elapsed, ETA " << hms(eta) << "\n";
        }
    };

    // Solve the remaining points in parallel; each point's replications run inside it (TBB
    // nests them in the same arena, no oversubscription). Every point uses the same seed.
    std::vector<std::size_t> todo;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        if (!rows[k].done) todo.push_back(k);
    }
    std::exception_ptr first_error;
    bool precision_missed = false;
    bool all_done = todo.empty();
    g_sigints.store(0);
    const auto old_handler = std::signal(SIGINT, on_sigint);
    std::thread worker([&] {
        tbb::task_arena arena(args.run.threads > 0 ? static_cast<int>(args.run.threads)
                                                   : tbb::task_arena::automatic);
        arena.execute([&] {
            tbb::parallel_for(tbb::blocked_range<std::size_t>(0, todo.size(), 1), [&](auto r) {
                for (std::size_t j = r.begin(); j < r.end(); ++j) {
                    if (interrupted()) return;
                    const std::size_t k = todo[j];
                    Row row;
                    try {
                        const auto result = solver::solve(nets[k], *solve_options);
                        std::vector<std::string> cells;
                        for (std::size_t d = 0; d < params.size(); ++d) {
                            cells.push_back(number(params[d].values[(*points)[k][d]].canonical));
                        }
                        if (jsonl) {
                            nlohmann::ordered_json row_json = nlohmann::ordered_json::parse(
                                format_json(nets[k], result));
                            nlohmann::ordered_json swept = nlohmann::ordered_json::object();
                            for (std::size_t d = 0; d < params.size(); ++d) {
                                swept[params[d].name] =
                                    params[d].values[(*points)[k][d]].canonical;
                            }
                            row_json["params"] = swept;
                            row.text = row_json.dump() + "\n";
                        } else {
                            std::map<std::string, const solver::MeasureEstimate*> by_name;
                            for (const auto& m : result.measures) by_name[m.name] = &m;
                            for (const auto& name : *measure_names) {
                                const auto it = by_name.find(name);
                                if (it == by_name.end()) {
                                    cells.insert(cells.end(), 3, "");
                                    continue;
                                }
                                cells.push_back(number(it->second->mean));
                                cells.push_back(number(it->second->ci_low));
                                cells.push_back(number(it->second->ci_high));
                            }
                            row.text = csv_line(cells);
                        }
                        const auto& m0 = result.measures.front();
                        row.first_measure = {m0.mean, m0.ci_low, m0.ci_high};
                        row.done = true;
                        std::lock_guard lock(mu);
                        for (const auto& w : result.warnings) {
                            std::cerr << "warning: point " << key_of((*points)[k]) << ": " << w
                                      << "\n";
                        }
                        if (!result.precision_reached) precision_missed = true;
                        rows[k] = std::move(row);
                        ++finished;
                        write_prefix();
                        progress(k);
                    } catch (const solver::SolveError& e) {
                        std::lock_guard lock(mu);
                        std::cerr << "error: point " << key_of((*points)[k]) << ": " << e.what()
                                  << "\n";
                        if (!first_error) first_error = std::current_exception();
                    }
                }
            });
        });
        std::lock_guard lock(mu);
        all_done = true;
        cv.notify_all();
    });

    {
        std::unique_lock lock(mu);
        while (!all_done && !interrupted()) {
            cv.wait_for(lock, std::chrono::milliseconds(100));
        }
        if (!all_done) {
            std::cerr << "\ninterrupted: finishing the points in progress (Ctrl-C again to stop "
                         "now)\n";
            cv.wait(lock, [&] { return all_done; });
        }
    }
    worker.join();
    std::signal(SIGINT, old_handler);
    if (interrupted()) {
        // Keep every finished row (out of order past the written prefix), then stop.
        for (auto& row : rows) {
            if (row.done && !row.written) {
                *out << row.text;
                row.written = true;
            }
        }
        out->flush();
        if (file.is_open()) file.close();
        std::cerr << "interrupted: " << finished << " of " << rows.size()
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
        const Status s = plot_sweep(args.plot, params, *points, nets.front().measures.front(),
                                    [&](std::size_t k) { return rows[k].first_measure; });
        if (s != Status::Ok) return s;
    }
    if (first_error) std::rethrow_exception(first_error);
    return precision_missed ? Status::PrecisionNotReached : Status::Ok;
}

}  // namespace sgdnet::cli
