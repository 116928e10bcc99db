// Public API: parameter sweeps — a model solved at every point of a grid (or zip) of params, in
// parallel, rows in grid order.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sgdnet/model.hpp"
#include "sgdnet/result.hpp"

namespace sgdnet {

/// One swept param and the values it takes, in order.
struct SweepAxis {
    std::string name;  ///< a param of the model, as `--set` names it (`N`, `mm1k.K`)
    /// Numbers with an optional unit of one dimension (`"4"`, `"10 Gbps"`, `"250ms"`).
    std::vector<std::string> values;

    /// Parses the command's `NAME=RANGE` (docs/cli.md): `N=2..17`, `N=1..64:x2`,
    /// `S=100ms..1s:+100ms`, `bw=1Gbps,10Gbps,25Gbps`, or one value. Throws
    /// std::invalid_argument with the command's message on a malformed range.
    static SweepAxis parse(const std::string& name_equals_range);
};

/// What every point of a sweep shares.
struct SweepOptions {
    /// Fixed `--set` values (applied before each point's swept ones) and the granularity.
    CompileOptions compile;
    /// The solve options of every point: every point uses the same seed, so a row equals a lone
    /// `run` of that point.
    RunOptions run;
    /// Pair the axes' k-th values (all axes the same length) instead of taking their product.
    bool zip = false;
    /// Cap of the threads that solve the points and their replications together; 0 = every
    /// core. The numbers do not depend on it.
    unsigned threads = 0;
};

/// A swept param's value at one point.
struct SweepValue {
    std::string name;
    std::string text;  ///< as handed to the compiler
    double value = 0;  ///< canonical (s, B, B/s, 1/s): what the command's CSV writes
};

/// One finished point: exactly one of `result` and `error` is set.
struct SweepRow {
    std::size_t index = 0;           ///< the point's position in the sweep, from 0
    std::vector<SweepValue> params;  ///< its swept values, in axis order
    std::optional<Result> result;
    std::optional<SolveError> error;  ///< the point could not be solved; the sweep went on
};

/// Counters after each finished point, for a progress display.
struct SweepProgress {
    std::size_t solved = 0;    ///< points finished in this run (failed ones included)
    std::size_t failed = 0;    ///< points that ended in a SolveError
    std::size_t to_solve = 0;  ///< points this run solves (not skipped)
};

/// What a run did.
struct SweepSummary {
    std::size_t points = 0;         ///< points of the sweep
    std::size_t skipped = 0;        ///< points skipped on request
    std::size_t solved = 0;         ///< rows delivered with a result
    std::size_t failed = 0;         ///< rows delivered with an error
    std::size_t not_run = 0;        ///< points never started because of the cancel flag
    bool precision_reached = true;  ///< every solved point reached RunOptions::precision
    bool cancelled() const { return not_run > 0; }
};

/// A model compiled at every point of a sweep, ready to run. Compiling every point first
/// reports input errors before any solving. Cheap to copy.
class Sweep {
  public:
    /// Compiles the model at `path` at every point of `axes`. Throws std::invalid_argument (an
    /// axis with no values or a malformed value, a param swept twice, zipped axes of different
    /// lengths, more than 100,000 points) and CompileError (the first point that does not
    /// compile — its message names the point —, a model without measures, points whose first
    /// measure differs).
    static Sweep compile_file(const std::string& path, const std::vector<SweepAxis>& axes,
                              const SweepOptions& options = {});
    /// The same for model text registered as `display_name`.
    static Sweep compile(const std::string& text, const std::string& display_name,
                         const std::vector<SweepAxis>& axes, const SweepOptions& options = {});

    /// Number of points.
    std::size_t size() const;
    /// The swept values of point `k` (k < size()).
    std::vector<SweepValue> point(std::size_t k) const;
    /// The measures of the rows, in the command's CSV order (a point may lack some, e.g.
    /// `util.w[7]` when N < 8).
    const std::vector<std::string>& measure_names() const;
    /// The command's CSV header: the swept params, then `NAME,NAME_ci_low,NAME_ci_high` for
    /// each measure.
    std::vector<std::string> columns() const;

    using RowCallback = std::function<void(const SweepRow&)>;
    using ProgressCallback = std::function<void(const SweepProgress&)>;

    /// Solves every point not in `skip` in parallel and hands each row to `on_row` in point
    /// order (a row finished early waits for the earlier ones), one call at a time, from a
    /// worker thread or the caller's. `cancel` (may be null) is read before each point starts:
    /// once true, no point starts, those in progress finish, their rows are delivered, and run
    /// returns (SweepSummary::cancelled()). `skip` is empty or one flag per point (resuming).
    /// Blocks until done. An exception thrown by a callback stops the sweep and propagates.
    SweepSummary run(const RowCallback& on_row, const std::atomic<bool>* cancel = nullptr,
                     const std::vector<bool>& skip = {},
                     const ProgressCallback& on_progress = {}) const;

    struct Impl;  ///< the compiled points; opaque to users

  private:
    explicit Sweep(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
    std::shared_ptr<const Impl> impl_;
};

}  // namespace sgdnet
