// Sweeps over the ranks of an MPI job: rank 0 hands out points one at a time to whichever rank is
// free (itself included, on a thread) and delivers the rows in point order; the other ranks solve
// the points they are handed with their own threads.
#pragma once

#include <atomic>
#include <cstddef>
#include <vector>

#include "mpi/coordinator.hpp"
#include "sweep/sweep_run.hpp"

namespace sgdnet::mpi {

/// This process's part in the MPI job (MPI_COMM_WORLD): the constructor initialises MPI (threads
/// funneled through the thread that made the job), the destructor finalises it, on rank 0 after
/// telling every worker still waiting that no point is coming. One per process.
class MpiJob {
  public:
    /// Throws std::runtime_error when MPI cannot be initialised.
    MpiJob();
    ~MpiJob();
    MpiJob(const MpiJob&) = delete;
    MpiJob& operator=(const MpiJob&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }

    /// Collective over every rank: whether `ok` is true on all of them.
    bool all(bool ok);

    /// Rank 0: tells every worker not yet told that no point is coming (they return from
    /// serve_sweep).
    void release_workers();

    /// Marks worker `rank` as told to stop.
    void released(int rank) { released_.at(static_cast<std::size_t>(rank)) = true; }

    /// The job is being torn down with points in progress (mpirun kills the ranks after a
    /// cancel): the destructor neither releases nor finalises; end the process at once.
    void abandon() { abandoned_ = true; }

  private:
    int rank_ = 0;
    int size_ = 1;
    std::vector<bool> released_;
    bool abandoned_ = false;
};

/// Rank 0's cost of coordinating, for benchmarks: what it spent per finished point.
struct CoordinatorStats {
    std::size_t rows = 0;   // finished points received (its own thread's included)
    double busy_s = 0;      // wall time handling them: receive, decode, bookkeeping, the row
                            // and progress callbacks, sending the rank its next point
    double busy_cpu_s = 0;  // CPU time of the same (wall time also counts preemption)
    double loop_cpu_s = 0;  // CPU time of the coordinating thread over the whole sweep,
                            // polling included (its own solving thread excluded)
    double elapsed_s = 0;   // wall time of the whole sweep
};

/// What a distributed sweep did on rank 0.
struct DistributedOutcome {
    sweep::SweepSummary summary;
    /// The points in progress when the cancel flag was seen, with their ranks: dropped.
    std::vector<InFlight> dropped;
    CoordinatorStats stats;
};

/// Rank 0: solves `sweep` over every rank of `job`, the points skipped by options.skip left out.
/// Hands out one point at a time, in point order, to whichever rank is free (rank 0 itself solves
/// on a thread of its own); every point is solved with the plan's SolveOptions (threads
/// included), exactly as run_sweep would, so the rows are the same. `on_row` receives the rows in
/// increasing index order and options.on_progress one call per finished point, both on the
/// calling thread. options.threads is not used (each rank solves one point at a time with
/// plan.solve.threads); options.solve, when set, replaces the solver on rank 0's thread only.
///
/// `cancel` (may be null) is polled every fraction of a millisecond: once it reads true, no point
/// is handed out, the rows finished so far are delivered (those past the first unfinished point
/// too, in order), the points in progress are returned as `dropped`, and the job is abandoned
/// (MpiJob::abandon): mpirun kills the ranks after the signal, so the caller should write what it
/// holds and end the process. Precondition: job.rank() == 0 and every other rank is in
/// serve_sweep with the same compiled sweep.
DistributedOutcome coordinate_sweep(MpiJob& job, const sweep::CompiledSweep& sweep,
                                    const sweep::SweepOptions& options,
                                    const sweep::RowCallback& on_row,
                                    const std::atomic<bool>* cancel = nullptr);

/// Ranks other than 0: solves the points rank 0 hands out, sending each row back, until rank 0
/// says no point is coming.
void serve_sweep(MpiJob& job, const sweep::CompiledSweep& sweep);

}  // namespace sgdnet::mpi
