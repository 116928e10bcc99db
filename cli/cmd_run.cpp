// `sgdnet run FILE`: compiles, solves (simulation, exact or auto) and prints the measures; a
// simulation of more than a second shows its progress on a terminal.
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <thread>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "solver/solve.hpp"
#include "solver/threads.hpp"

namespace sgdnet::cli {
namespace {

/// One updating line on stderr while a simulation runs, only when stderr is a terminal and only
/// after the first second: the first measure's relative half-width against --precision,
/// events/s and the time elapsed. Redrawn every quarter second (the simulator reports after
/// each round, and rounds double in length), erased when the solve ends.
class RunProgress {
public:
    RunProgress() : shown_(isatty(STDERR_FILENO) != 0) {
        if (shown_) ticker_ = std::thread([this] { tick(); });
    }
    ~RunProgress() {
        if (!shown_) return;
        {
            std::lock_guard lock(mu_);
            done_ = true;
        }
        cv_.notify_all();
        ticker_.join();
        if (drawn_) std::cerr << "\r\033[K" << std::flush;
    }
    RunProgress(const RunProgress&) = delete;
    RunProgress& operator=(const RunProgress&) = delete;

    /// The simulator's report after a round (SolveOptions::on_progress).
    void update(const solver::SimProgress& p) {
        std::lock_guard lock(mu_);
        last_ = p;
        have_ = true;
    }

private:
    void tick() {
        std::unique_lock lock(mu_);
        while (!cv_.wait_for(lock, std::chrono::milliseconds(250), [this] { return done_; })) {
            const double elapsed =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
            if (elapsed < 1) continue;
            std::cerr << "\r" << progress_line(have_ ? &last_ : nullptr, elapsed) << "\033[K"
                      << std::flush;
            drawn_ = true;
        }
    }

    bool shown_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool done_ = false, drawn_ = false, have_ = false;
    solver::SimProgress last_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::thread ticker_;
};

}  // namespace

std::string progress_line(const solver::SimProgress* p, double elapsed_s) {
    if (!p) return "solving: " + hms(elapsed_s) + " elapsed";
    std::string line = "simulating: ";
    char rate[32];
    const double per_s = p->wall_s > 0 ? static_cast<double>(p->events) / p->wall_s : 0;
    if (per_s >= 1e6) {
        std::snprintf(rate, sizeof rate, "%.3g M ", per_s / 1e6);
    } else if (per_s >= 1e3) {
        std::snprintf(rate, sizeof rate, "%.3g k ", per_s / 1e3);
    } else {
        std::snprintf(rate, sizeof rate, "%.3g ", per_s);
    }
    char hw[64];
    std::snprintf(hw, sizeof hw, "half-width %.3g%% (target %.3g%%)",
                  p->relative_half_width * 100, p->precision * 100);
    return line + hw + ", " + rate + "events/s, " + hms(elapsed_s) + " elapsed";
}

Status cmd_run(const RunArgs& args, Context& ctx) {
    const auto compile_options = make_compile_options(args.sets, args.granularity);
    if (!compile_options) return Status::InputError;
    const auto solve_options = make_solve_options(args);
    if (!solve_options) return Status::InputError;
    const solver::ThreadsWarmUp warm_up;  // beside the compile below
    ctx.net = compile_and_report(args.file, *compile_options);
    if (!ctx.net) return Status::InputError;
    const net::PetriNet& net = *ctx.net;
    if (net.measures.empty()) {
        std::cerr << "error: " << args.file
                  << ": the model defines no measure; add `measure NAME = throughput(...)`, "
                     "`tokens(...)` or `prob(...)`\n";
        return Status::InputError;
    }

    solver::SolveResult result;
    {
        RunProgress progress;
        solver::SolveOptions options = *solve_options;
        options.on_progress = [&progress](const solver::SimProgress& p) { progress.update(p); };
        result = solver::solve(net, options);
    }

    for (const auto& w : result.warnings) std::cerr << "warning: " << w << "\n";
    if (args.format == "json") {
        std::cout << format_json(net, result);
    } else if (args.format == "csv") {
        std::cout << format_csv(result);
    } else {
        std::cout << format_table(net, result, *solve_options);
    }
    std::cout << std::flush;
    if (!result.precision_reached) {
        if (!result.warnings.empty()) return Status::PrecisionNotReached;  // solver said why
        const auto& first = result.measures.front();
        std::cerr << "warning: precision " << number(solve_options->precision)
                  << " not reached within --max-time " << args.max_time << ": '" << first.name
                  << "' has relative half-width " << number(relative_half_width(first))
                  << "; results above are less precise than requested\n";
        return Status::PrecisionNotReached;
    }
    return Status::Ok;
}

}  // namespace sgdnet::cli
