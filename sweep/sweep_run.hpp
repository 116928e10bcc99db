// The sweep engine: compiles a model at every point of a sweep and solves the points in
// parallel, handing each finished row to the caller in point order.
//
// What lives here and what does not: the plan (model, swept params, points, solve options),
// compiling it point by point, and the executor (TBB, in-order delivery, cancellation, skipping
// rows already done, progress counters, per-point errors as data). No printing, no signal
// handling and no output files: the caller formats rows (`sgdnet sweep` writes CSV or JSON lines
// in cli/cmd_sweep.cpp, and reads them back there for --resume, since the row format is the
// CLI's), decides what an interrupt is, and maps errors to exit codes.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "compiler/compile.hpp"
#include "net/petri_net.hpp"
#include "solver/solve_options.hpp"
#include "solver/solve_result.hpp"
#include "sweep/sweep_spec.hpp"

namespace sgdnet::sweep {

/// What to compute: a model, the fixed compile options every point shares, the swept params
/// and their points (sweep_points), and the solve options every point uses (the same seed at
/// every point, so a row equals a lone `sgdnet run` of that point).
struct SweepPlan {
    /// The model file; also the display name of diagnostics when `model_text` is set.
    std::string model_path;
    /// The model's source; when set it is compiled instead of reading `model_path` (tests,
    /// bindings that hold the text).
    std::optional<std::string> model_text;
    /// Fixed `--set` overrides (`--fix`) and granularity. A point appends its swept values
    /// after these, as `NAME=TEXT` with the value's text (SweepValue::text).
    compiler::CompileOptions compile;
    /// The swept params, as parse_sweep_set returns them.
    std::vector<SweepParam> params;
    /// One value index per param for every point, in sweep order (sweep_points).
    std::vector<std::vector<std::size_t>> points;
    /// Options of every point's solve. `threads` caps the replications of one point; the
    /// arena of the whole sweep is capped by SweepOptions::threads.
    solver::SolveOptions solve;
};

/// A plan compiled at every point.
struct CompiledSweep {
    SweepPlan plan;
    /// nets[k] is the model compiled with plan.points[k]'s values; every net has at least one
    /// measure, and all share the first measure's name.
    std::vector<net::PetriNet> nets;
    /// The union of the points' measure names, as sweep_measure_names orders them (the CSV
    /// columns of `sgdnet sweep`).
    std::vector<std::string> measure_names;
};

/// Why compile_sweep failed.
class SweepError : public std::runtime_error {
public:
    enum class Kind {
        /// A point does not compile; its diagnostics (handed to the DiagnosticsCallback) say
        /// why, and what() only names the point.
        Diagnostics,
        /// A point compiles to a net without measures: `FILE: the model defines no measure`.
        NoMeasure,
        /// Points disagree on the first measure (sweep_measure_names): `FILE: WHY`.
        MeasureMismatch,
    };
    SweepError(Kind kind, std::size_t point, const std::string& message)
        : SweepError(kind, std::vector<std::size_t>{point}, message) {}
    /// `points`: every point at fault, in increasing order (not empty).
    SweepError(Kind kind, std::vector<std::size_t> points, const std::string& message)
        : std::runtime_error(message), kind_(kind), points_(std::move(points)) {}
    Kind kind() const { return kind_; }
    /// The (first) point at fault; for MeasureMismatch, 0 (the disagreement is between points).
    std::size_t point() const { return points_.front(); }
    /// Every point at fault, in increasing order: with CompileErrors::Collect, every point that
    /// does not compile; otherwise just point().
    const std::vector<std::size_t>& points() const { return points_; }

private:
    Kind kind_;
    std::vector<std::size_t> points_;
};

/// What compile_sweep does at a point that does not compile.
enum class CompileErrors {
    /// Stop there: the points after it are not compiled.
    Stop,
    /// Compile every point anyway, so that every bad point is known (and its diagnostics
    /// handed over) before the sweep fails; SweepError::points() lists them.
    Collect,
};

/// Called once per compiled point, in point order, with that point's diagnostics (possibly
/// empty; warnings too), before the point's net is checked.
using DiagnosticsCallback =
    std::function<void(std::size_t point, const frontend::Diagnostics& diagnostics)>;

/// Compiles the model at every point, in order, so that input errors surface before any
/// solving: stopping at the first point that fails, or (CompileErrors::Collect) going on to the
/// last point and then failing with every bad point.
/// Precondition: every index of plan.points is within its param's values.
/// Throws SweepError (see its kinds); compiler exceptions pass through. A model that cannot
/// be read is a diagnostic (Kind::Diagnostics), not an exception.
CompiledSweep compile_sweep(SweepPlan plan, const DiagnosticsCallback& on_diagnostics = {},
                            CompileErrors on_error = CompileErrors::Stop);

/// One swept param's value at a point.
struct PointParam {
    std::string name;
    SweepValue value;  // text as handed to the compiler, canonical value (s, B, B/s, 1/s)
};

/// The swept values of point `k` of `plan`, in plan.params order.
/// Precondition: k < plan.points.size().
std::vector<PointParam> point_params(const SweepPlan& plan, std::size_t k);

/// One finished point: exactly one of `result` and `error` is set.
struct SweepRow {
    /// The point's index in plan.points.
    std::size_t index = 0;
    /// Its swept values, in plan.params order.
    std::vector<PointParam> params;
    /// The solver's result (measures in the net's order, warnings, precision_reached).
    std::optional<solver::SolveResult> result;
    /// The solver's error at this point, as data: the sweep goes on with the other points.
    std::optional<solver::SolveError> error;
};

/// Counters after a point finished, for a progress display.
struct SweepProgress {
    std::size_t point = 0;        // index of the point that just finished
    bool point_failed = false;    // it ended in a SolveError
    std::size_t solved = 0;       // points solved so far in this run, this one included
    std::size_t failed = 0;       // points that ended in a SolveError so far
    std::size_t to_solve = 0;     // points this run solves (not skipped)
};

/// How to run a compiled sweep (nothing here changes a row's numbers).
struct SweepOptions {
    /// Cap on the TBB arena in which the points, and the replications inside each point, run
    /// (nested in the same arena: no oversubscription). 0 = every core.
    unsigned threads = 0;
    /// Points not to solve, e.g. rows already in an output file (--resume): empty, or one flag
    /// per point of the plan. Skipped points get no row and no progress.
    std::vector<bool> skip;
    /// Called after each point finishes (solved or failed), in completion order, after the
    /// rows that point made deliverable; one call at a time, from a worker thread.
    std::function<void(const SweepProgress&)> on_progress;
    /// Solves one point; empty = solver::solve. Tests use it to control timing; a driver may
    /// use it to solve elsewhere. May throw solver::SolveError (→ a row with `error`).
    std::function<solver::SolveResult(const net::PetriNet&, const solver::SolveOptions&)> solve;
};

/// Receives the rows, one call at a time (from a worker thread, or the caller's), with
/// strictly increasing SweepRow::index.
using RowCallback = std::function<void(SweepRow&& row)>;

/// What a run did.
struct SweepSummary {
    std::size_t points = 0;    // points of the plan
    std::size_t skipped = 0;   // points skipped by SweepOptions::skip
    std::size_t solved = 0;    // rows delivered with a result
    std::size_t failed = 0;    // rows delivered with an error
    std::size_t not_run = 0;   // points never started because cancel was set
    /// Every solved point reached SolveOptions::precision (false → exit 4 in the CLI).
    bool precision_reached = true;
    /// Some point was left unsolved because of the cancel flag.
    bool cancelled() const { return not_run > 0; }
};

/// The points to solve, in order: those `skip` does not flag (SweepOptions::skip). Throws
/// std::invalid_argument when `skip` is neither empty nor one flag per point.
std::vector<std::size_t> points_to_solve(std::size_t points, const std::vector<bool>& skip);

/// The rows finished so far, held until every earlier row is delivered, and the progress
/// counters: the in-order delivery of run_sweep, shared with the MPI coordinator. A slot is a
/// position among the points to solve (points_to_solve). Not thread-safe: one caller at a time.
/// `on_row` and `options` must outlive it.
class RowBuffer {
public:
    RowBuffer(std::size_t to_solve, const RowCallback& on_row, const SweepOptions& options);
    /// Stores the row of `slot`, delivers the rows now in order, then reports progress
    /// (SweepOptions::on_progress).
    void finish(std::size_t slot, SweepRow&& row);
    /// After a cancel: delivers the rows finished past the first unfinished one, in order.
    void deliver_rest();
    /// Fills the solved, failed, not_run and precision_reached counters of `summary`.
    void summarize(SweepSummary& summary) const;

private:
    void deliver(std::size_t slot);

    std::vector<std::optional<SweepRow>> rows_;  // by slot
    std::size_t next_ = 0;                       // first slot not delivered
    SweepProgress progress_;
    bool precision_reached_ = true;
    const RowCallback& on_row_;
    const SweepOptions& options_;
};

/// Solves every point of `sweep` that `options.skip` does not skip, in parallel (TBB), and
/// hands each finished row to `on_row` in point order: a row that finishes before an earlier
/// one is held back until all earlier ones are delivered. A point whose solve throws
/// solver::SolveError yields a row carrying the error, and the sweep goes on.
///
/// `cancel` (may be null) is polled before each point starts: once it reads true, no new point
/// starts, the points in progress run to their end (a solve is bounded by
/// SolveOptions::max_time_s), and then every finished row not yet delivered is delivered, still
/// in increasing index order — the in-order prefix, then any rows that finished past the first
/// point left unsolved. Rows delivered before the cancel are never taken back.
///
/// Blocks until done; the callbacks run under one lock, so they need no locking of their own
/// but should be quick. An exception thrown by a callback, or any exception other than
/// solver::SolveError from the solve, stops the sweep (points in progress finish) and
/// propagates out of run_sweep. Throws std::invalid_argument when options.skip is neither empty
/// nor one flag per point.
SweepSummary run_sweep(const CompiledSweep& sweep, const SweepOptions& options,
                       const RowCallback& on_row, const std::atomic<bool>* cancel = nullptr);

}  // namespace sgdnet::sweep
