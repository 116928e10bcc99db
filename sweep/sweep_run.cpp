// The sweep engine: compiles a model at every point of a sweep and solves the points in
// parallel, handing each finished row to the caller in point order.
#include "sweep/sweep_run.hpp"

#include <mutex>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "solver/solve.hpp"

namespace sgdnet::sweep {
namespace {

/// Compiles point k of `plan`: the fixed overrides, then the point's swept values as written.
std::optional<net::PetriNet> compile_point(const SweepPlan& plan, std::size_t k,
                                           frontend::Diagnostics& diags) {
    compiler::CompileOptions options = plan.compile;
    for (const auto& p : point_params(plan, k)) {
        options.overrides.emplace_back(p.name, p.value.text);
    }
    if (plan.model_text) {
        return compiler::compile(*plan.model_text, plan.model_path, options, diags);
    }
    return compiler::compile_file(plan.model_path, options, diags);
}

/// Solves one point; a SolveError becomes the row's error.
SweepRow solve_point(const CompiledSweep& sweep, std::size_t k, const SweepOptions& options) {
    SweepRow row;
    row.index = k;
    row.params = point_params(sweep.plan, k);
    try {
        row.result = options.solve ? options.solve(sweep.nets[k], sweep.plan.solve)
                                   : solver::solve(sweep.nets[k], sweep.plan.solve);
    } catch (const solver::SolveError& e) {
        row.error = e;
    }
    return row;
}

}  // namespace

std::vector<std::size_t> points_to_solve(std::size_t points, const std::vector<bool>& skip) {
    if (!skip.empty() && skip.size() != points) {
        throw std::invalid_argument("options.skip has " + std::to_string(skip.size()) +
                                    " flags for " + std::to_string(points) + " points");
    }
    std::vector<std::size_t> todo;
    for (std::size_t k = 0; k < points; ++k) {
        if (skip.empty() || !skip[k]) todo.push_back(k);
    }
    return todo;
}

RowBuffer::RowBuffer(std::size_t to_solve, const RowCallback& on_row, const SweepOptions& options)
    : rows_(to_solve), on_row_(on_row), options_(options) {
    progress_.to_solve = to_solve;
}

void RowBuffer::finish(std::size_t slot, SweepRow&& row) {
    progress_.point = row.index;
    progress_.point_failed = row.error.has_value();
    if (row.error) {
        ++progress_.failed;
    } else {
        ++progress_.solved;
        if (!row.result->precision_reached) precision_reached_ = false;
    }
    rows_[slot] = std::move(row);
    while (next_ < rows_.size() && rows_[next_]) deliver(next_++);
    if (options_.on_progress) options_.on_progress(progress_);
}

void RowBuffer::deliver_rest() {
    for (std::size_t slot = next_; slot < rows_.size(); ++slot) {
        if (rows_[slot]) deliver(slot);
    }
    next_ = rows_.size();
}

void RowBuffer::summarize(SweepSummary& summary) const {
    summary.solved = progress_.solved;
    summary.failed = progress_.failed;
    summary.not_run = rows_.size() - progress_.solved - progress_.failed;
    summary.precision_reached = precision_reached_;
}

void RowBuffer::deliver(std::size_t slot) {
    SweepRow row = std::move(*rows_[slot]);
    rows_[slot].reset();
    on_row_(std::move(row));
}

std::vector<PointParam> point_params(const SweepPlan& plan, std::size_t k) {
    std::vector<PointParam> out;
    out.reserve(plan.params.size());
    for (std::size_t d = 0; d < plan.params.size(); ++d) {
        out.push_back({plan.params[d].name, plan.params[d].values[plan.points[k][d]]});
    }
    return out;
}

CompiledSweep compile_sweep(SweepPlan plan, const DiagnosticsCallback& on_diagnostics,
                           CompileErrors on_error) {
    CompiledSweep out;
    out.nets.reserve(plan.points.size());
    std::vector<std::vector<std::string>> measures_per_point;
    std::vector<std::size_t> bad;  // points that do not compile
    for (std::size_t k = 0; k < plan.points.size(); ++k) {
        frontend::Diagnostics diags;
        auto net = compile_point(plan, k, diags);
        if (on_diagnostics) on_diagnostics(k, diags);
        if (!net || diags.has_errors()) {
            bad.push_back(k);
            if (on_error == CompileErrors::Stop) break;
            continue;
        }
        if (!bad.empty()) continue;  // the sweep fails anyway: only the bad points matter now
        if (net->measures.empty()) {
            throw SweepError(SweepError::Kind::NoMeasure, k,
                             plan.model_path + ": the model defines no measure");
        }
        auto& names = measures_per_point.emplace_back();
        for (const auto& m : net->measures) names.push_back(m.name);
        out.nets.push_back(std::move(*net));
    }
    if (bad.size() == 1) {
        throw SweepError(SweepError::Kind::Diagnostics, bad,
                         plan.model_path + ": point " + std::to_string(bad.front()) +
                             " does not compile");
    }
    if (!bad.empty()) {
        throw SweepError(SweepError::Kind::Diagnostics, bad,
                         plan.model_path + ": " + std::to_string(bad.size()) + " of " +
                             std::to_string(plan.points.size()) + " points do not compile");
    }
    std::string error;
    auto names = sweep_measure_names(measures_per_point, error);
    if (!names) {
        throw SweepError(SweepError::Kind::MeasureMismatch, 0, plan.model_path + ": " + error);
    }
    out.measure_names = std::move(*names);
    out.plan = std::move(plan);
    return out;
}

SweepSummary run_sweep(const CompiledSweep& sweep, const SweepOptions& options,
                       const RowCallback& on_row, const std::atomic<bool>* cancel) {
    const std::size_t points = sweep.plan.points.size();
    const std::vector<std::size_t> todo = points_to_solve(points, options.skip);
    SweepSummary summary;
    summary.points = points;
    summary.skipped = points - todo.size();

    std::mutex mu;
    RowBuffer buffer(todo.size(), on_row, options);
    std::atomic<bool> failed{false};  // a callback or the solver threw: start nothing more
    auto stopping = [&] { return failed.load() || (cancel && cancel->load()); };
    tbb::task_arena arena(options.threads > 0 ? static_cast<int>(options.threads)
                                              : tbb::task_arena::automatic);
    arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, todo.size(), 1), [&](auto range) {
            for (std::size_t slot = range.begin(); slot < range.end(); ++slot) {
                if (stopping()) return;
                try {
                    SweepRow row = solve_point(sweep, todo[slot], options);
                    std::lock_guard lock(mu);
                    buffer.finish(slot, std::move(row));
                } catch (...) {
                    failed.store(true);
                    throw;
                }
            }
        });
    });
    std::lock_guard lock(mu);
    buffer.deliver_rest();
    buffer.summarize(summary);
    return summary;
}

}  // namespace sgdnet::sweep
