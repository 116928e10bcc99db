// Rank 0's bookkeeping of a distributed sweep, without MPI: hands out the points to solve one at
// a time to whichever rank asks, remembers which rank solves which, and delivers the finished
// rows through the sweep's RowCallback in point order.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <vector>

#include "sweep/sweep_run.hpp"

namespace sgdnet::mpi {

/// A point handed to a rank and not finished yet.
struct InFlight {
    int rank = 0;
    std::size_t point = 0;
};

/// The coordinator's state: points still to hand out (in point order, those not skipped), points
/// in flight, finished rows held until every earlier row is delivered, progress counters. Not
/// thread-safe: one thread drives it.
class Coordinator {
  public:
    /// `sweep`, `options` and `on_row` must outlive the coordinator. Throws
    /// std::invalid_argument when options.skip is neither empty nor one flag per point.
    Coordinator(const sweep::CompiledSweep& sweep, const sweep::SweepOptions& options,
                const sweep::RowCallback& on_row);

    /// The next point for `rank` (recorded as in flight), or nullopt when none is left to hand
    /// out or stop() was called. Precondition: `rank` has no point in flight.
    std::optional<std::size_t> hand_out(int rank);

    /// `rank` finished its point: fills row.params, delivers the rows now in order, reports
    /// progress (SweepOptions::on_progress). Throws std::invalid_argument when `row.index` is
    /// not the point in flight at `rank`.
    void finish(int rank, sweep::SweepRow&& row);

    /// No more points are handed out (cancel, a rank lost).
    void stop() { stopped_ = true; }

    /// Nothing in flight and nothing left to hand out.
    bool done() const { return in_flight_.empty() && (stopped_ || next_ == todo_.size()); }

    /// The points in flight, by rank.
    std::vector<InFlight> in_flight() const;

    /// Delivers the rows finished past the first unfinished point, in order (after a stop).
    void deliver_rest();

    /// The counters so far.
    sweep::SweepSummary summary() const;

  private:
    const sweep::CompiledSweep& sweep_;
    std::vector<std::size_t> todo_;         // points to solve, in order (sweep::points_to_solve)
    sweep::RowBuffer rows_;                 // finished rows by slot (position in todo_), in order
    std::map<int, std::size_t> in_flight_;  // rank → slot
    std::size_t next_ = 0;                  // first slot not handed out
    bool stopped_ = false;
};

}  // namespace sgdnet::mpi
