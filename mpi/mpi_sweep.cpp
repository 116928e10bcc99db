// Sweeps over the ranks of an MPI job: the coordinator loop on rank 0 (points out, rows in, its own
// thread solving too) and the worker loop on the other ranks.
#include "mpi/mpi_sweep.hpp"

#include <mpi.h>
#include <time.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "mpi/row_codec.hpp"
#include "solver/solve.hpp"

namespace sgdnet::mpi {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kTagWork = 1;  // rank 0 → worker: one std::uint64_t, the point's index
constexpr int kTagRow = 2;   // worker → rank 0: encode_row bytes
constexpr int kTagStop = 3;  // rank 0 → worker: no point is coming (empty)

/// How long rank 0 waits for its own thread before probing for messages again: short, since a
/// worker idles until rank 0 sees its row (each wake-up costs a few µs of CPU: ~5% of a core);
/// alone (one rank), only the cancel flag needs polling.
constexpr auto kPoll = std::chrono::microseconds(200);
constexpr auto kPollAlone = std::chrono::milliseconds(20);

/// Solves point k of `sweep`; a SolveError becomes the row's error.
sweep::SweepRow solve_row(const sweep::CompiledSweep& sweep, std::size_t k,
                          const sweep::SweepOptions* options) {
    sweep::SweepRow row;
    row.index = k;
    try {
        const auto& net = sweep.nets[k];
        row.result = options && options->solve ? options->solve(net, sweep.plan.solve)
                                               : solver::solve(net, sweep.plan.solve);
    } catch (const solver::SolveError& e) {
        row.error = e;
    }
    return row;
}

/// Rank 0's own solver: a thread that solves one handed point at a time.
class LocalSolver {
  public:
    LocalSolver(const sweep::CompiledSweep& sweep, const sweep::SweepOptions& options)
        : sweep_(sweep), options_(options), thread_([this] { loop(); }) {}

    ~LocalSolver() {
        if (!thread_.joinable()) return;
        {
            std::lock_guard lock(mu_);
            quit_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }

    /// Hands point k to the thread. Precondition: it holds no point.
    void start(std::size_t k) {
        {
            std::lock_guard lock(mu_);
            point_ = k;
        }
        cv_.notify_all();
    }

    /// The finished row, waiting at most `wait` for it.
    std::optional<sweep::SweepRow> poll(Clock::duration wait) {
        std::unique_lock lock(mu_);
        cv_.wait_for(lock, wait, [&] { return done_.has_value(); });
        return std::exchange(done_, std::nullopt);
    }

    /// Leaves the thread to its point; the process must end without joining it.
    void detach() { thread_.detach(); }

  private:
    void loop() {
        std::unique_lock lock(mu_);
        while (true) {
            cv_.wait(lock, [&] { return quit_ || point_; });
            if (quit_) return;
            const std::size_t k = *std::exchange(point_, std::nullopt);
            lock.unlock();
            sweep::SweepRow row = solve_row(sweep_, k, &options_);
            lock.lock();
            done_ = std::move(row);
            cv_.notify_all();
        }
    }

    const sweep::CompiledSweep& sweep_;
    const sweep::SweepOptions& options_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::optional<std::size_t> point_;
    std::optional<sweep::SweepRow> done_;
    bool quit_ = false;
    std::thread thread_;
};

/// Sends worker `rank` its next point, or stop when none is left.
void send_next(MpiJob& job, Coordinator& coordinator, int rank) {
    if (const auto k = coordinator.hand_out(rank)) {
        const std::uint64_t index = *k;
        MPI_Send(&index, 1, MPI_UINT64_T, rank, kTagWork, MPI_COMM_WORLD);
    } else {
        MPI_Send(nullptr, 0, MPI_BYTE, rank, kTagStop, MPI_COMM_WORLD);
        job.released(rank);
    }
}

/// A row a worker sent, if one is waiting: its sender and bytes.
std::optional<std::pair<int, std::string>> receive_row() {
    int waiting = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagRow, MPI_COMM_WORLD, &waiting, &status);
    if (!waiting) return std::nullopt;
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    std::string buffer(static_cast<std::size_t>(bytes), '\0');
    MPI_Recv(buffer.data(), bytes, MPI_BYTE, status.MPI_SOURCE, kTagRow, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    return std::pair{status.MPI_SOURCE, std::move(buffer)};
}

double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

/// CPU time of the calling thread, in seconds.
double thread_cpu_s() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// Adds the wall and CPU time from its construction to its destruction to the stats' busy
/// time, counting one row.
class BusySpan {
  public:
    explicit BusySpan(CoordinatorStats& stats) : stats_(stats) {}
    ~BusySpan() {
        stats_.busy_s += seconds_since(wall_);
        stats_.busy_cpu_s += thread_cpu_s() - cpu_;
        ++stats_.rows;
    }
    BusySpan(const BusySpan&) = delete;
    BusySpan& operator=(const BusySpan&) = delete;

  private:
    CoordinatorStats& stats_;
    Clock::time_point wall_ = Clock::now();
    double cpu_ = thread_cpu_s();
};

/// Handles what finished since the last call: rank 0's own row, then every row waiting from the
/// workers, each followed by that rank's next point. Returns whether anything finished.
bool handle_finished(MpiJob& job, Coordinator& coordinator, LocalSolver& local,
                     CoordinatorStats& stats) {
    bool any = false;
    if (auto row = local.poll(job.size() > 1 ? Clock::duration(kPoll) : kPollAlone)) {
        const BusySpan span(stats);
        coordinator.finish(0, std::move(*row));
        if (const auto k = coordinator.hand_out(0)) local.start(*k);
        any = true;
    }
    while (auto message = receive_row()) {
        const BusySpan span(stats);  // the probe that found nothing is the loop's, not a row's
        coordinator.finish(message->first, decode_row(message->second));
        send_next(job, coordinator, message->first);
        any = true;
    }
    return any;
}

}  // namespace

MpiJob::MpiJob() {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        throw std::runtime_error("MPI_Init_thread failed");
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    released_.assign(static_cast<std::size_t>(size_), false);
    if (!released_.empty()) released_[0] = true;
}

MpiJob::~MpiJob() {
    if (abandoned_) return;
    if (rank_ == 0) release_workers();
    MPI_Finalize();
}

bool MpiJob::all(bool ok) {
    int mine = ok ? 1 : 0, every = 0;
    MPI_Allreduce(&mine, &every, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return every != 0;
}

void MpiJob::release_workers() {
    for (int r = 1; r < size_; ++r) {
        if (released_[static_cast<std::size_t>(r)]) continue;
        MPI_Send(nullptr, 0, MPI_BYTE, r, kTagStop, MPI_COMM_WORLD);
        released_[static_cast<std::size_t>(r)] = true;
    }
}

DistributedOutcome coordinate_sweep(MpiJob& job, const sweep::CompiledSweep& sweep,
                                    const sweep::SweepOptions& options,
                                    const sweep::RowCallback& on_row,
                                    const std::atomic<bool>* cancel) {
    const auto start = Clock::now();
    const double start_cpu = thread_cpu_s();
    DistributedOutcome outcome;
    Coordinator coordinator(sweep, options, on_row);
    auto local = std::make_unique<LocalSolver>(sweep, options);
    if (const auto k = coordinator.hand_out(0)) local->start(*k);
    for (int r = 1; r < job.size(); ++r) send_next(job, coordinator, r);
    bool cancelled = false;
    while (!coordinator.done()) {
        if (cancel && cancel->load()) {
            coordinator.stop();
            cancelled = !coordinator.done();
            break;
        }
        handle_finished(job, coordinator, *local, outcome.stats);
    }
    coordinator.deliver_rest();
    if (cancelled) {
        outcome.dropped = coordinator.in_flight();
        local->detach();
        local.release();  // its thread may still be solving; the process ends without it
        job.abandon();
    }
    outcome.summary = coordinator.summary();
    outcome.stats.elapsed_s = seconds_since(start);
    outcome.stats.loop_cpu_s = thread_cpu_s() - start_cpu;
    return outcome;
}

void serve_sweep(MpiJob& /*job*/, const sweep::CompiledSweep& sweep) {
    while (true) {
        MPI_Status status;
        MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
        if (status.MPI_TAG != kTagWork) {
            MPI_Recv(nullptr, 0, MPI_BYTE, 0, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            return;
        }
        std::uint64_t index = 0;
        MPI_Recv(&index, 1, MPI_UINT64_T, 0, kTagWork, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        const std::string bytes = encode_row(solve_row(sweep, index, nullptr));
        MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, kTagRow,
                 MPI_COMM_WORLD);
    }
}

}  // namespace sgdnet::mpi
