// Points per second of a 200-point sweep over MPI ranks, and rank 0's cost per point: measured
// (receive, decode, bookkeeping, next point out) and, for 1,000 simulated ranks, the bookkeeping
// and decoding alone, both against the median point's solve time.
//
// Run: mpirun -n K build/bench/mpi_sweep_bench [THREADS_PER_RANK]  (docs/distributed.md).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "mpi/coordinator.hpp"
#include "mpi/mpi_sweep.hpp"
#include "mpi/row_codec.hpp"
#include "sweep/sweep_run.hpp"
#include "sweep/sweep_spec.hpp"

namespace {

using namespace sgdnet;
using Clock = std::chrono::steady_clock;

/// 200 points of the ring all-reduce model: N = 2 … 40 (20 values) × 10 bandwidths; point costs
/// differ by an order of magnitude.
sweep::SweepPlan plan_of(unsigned threads) {
    sweep::SweepPlan plan;
    plan.model_path = std::string(SGDNET_SOURCE_DIR) + "/models/allreduce_ring_coarse.sgdnet";
    std::string error;
    for (const char* range : {"N=2..40:+2",
                              "bw=1Gbps,2Gbps,5Gbps,10Gbps,20Gbps,25Gbps,40Gbps,"
                              "50Gbps,100Gbps,200Gbps"}) {
        plan.params.push_back(*sweep::parse_sweep_set(range, error));
    }
    plan.points = *sweep::sweep_points(plan.params, false, error);
    plan.solve.precision = 0.02;
    plan.solve.seed = 11;
    plan.solve.threads = threads;
    return plan;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

/// Rank 0's bookkeeping and decoding per point with `ranks` simulated ranks, each returning
/// `bytes` (a real encoded row) for every point it is handed: microseconds per point.
double simulated_us_per_point(const std::vector<std::string>& bytes, int ranks,
                              std::size_t points) {
    sweep::CompiledSweep fake;
    sweep::SweepParam p;
    p.name = "k";
    for (std::size_t k = 0; k < points; ++k) {
        p.values.push_back({std::to_string(k), static_cast<double>(k)});
        fake.plan.points.push_back({k});
    }
    fake.plan.params.push_back(p);
    sweep::SweepOptions options;
    std::size_t delivered = 0;
    const sweep::RowCallback on_row = [&](sweep::SweepRow&&) { ++delivered; };
    mpi::Coordinator c(fake, options, on_row);
    std::vector<std::size_t> at(static_cast<std::size_t>(ranks));  // each rank's point
    std::vector<int> busy;
    const auto t0 = Clock::now();
    for (int r = 0; r < ranks; ++r) {
        at[static_cast<std::size_t>(r)] = *c.hand_out(r);
        busy.push_back(r);
    }
    for (std::size_t step = 0; !busy.empty(); ++step) {
        // The busy ranks finish in a scrambled order.
        const std::size_t i = step * 7919 % busy.size();
        const int r = busy[i];
        auto row = mpi::decode_row(bytes[step % bytes.size()]);
        row.index = at[static_cast<std::size_t>(r)];
        c.finish(r, std::move(row));
        if (const auto k = c.hand_out(r)) {
            at[static_cast<std::size_t>(r)] = *k;
        } else {
            busy[i] = busy.back();
            busy.pop_back();
        }
    }
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    return delivered == points ? us / static_cast<double>(points) : -1;
}

/// Round trips of a point index out and a row of `row_bytes` bytes back between ranks 0 and 1,
/// nothing else running: an upper bound of rank 0's MPI cost per point, in microseconds.
double ping_pong_us(int rank, std::size_t row_bytes, int trips) {
    std::string buffer(row_bytes, 'x');
    std::uint64_t index = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = Clock::now();
    for (int t = 0; t < trips; ++t) {
        if (rank == 0) {
            MPI_Send(&index, 1, MPI_UINT64_T, 1, 7, MPI_COMM_WORLD);
            MPI_Status status;
            MPI_Probe(1, 8, MPI_COMM_WORLD, &status);
            int n = 0;
            MPI_Get_count(&status, MPI_BYTE, &n);
            MPI_Recv(buffer.data(), n, MPI_BYTE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&index, 1, MPI_UINT64_T, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buffer.data(), static_cast<int>(buffer.size()), MPI_BYTE, 0, 8,
                     MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / trips;
}

}  // namespace

int main(int argc, char** argv) {
    const unsigned threads = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 1;
    mpi::MpiJob job;
    auto compiled = sweep::compile_sweep(plan_of(threads));
    // A row of this sweep is about 2-4 KB (N = 40 has ~120 measures).
    const double mpi_us = job.size() > 1 ? ping_pong_us(job.rank(), 4096, 20000) : 0;
    if (job.rank() != 0) {
        mpi::serve_sweep(job, compiled);
        return 0;
    }
    std::vector<double> solve_s;
    std::vector<std::string> encoded;
    const sweep::RowCallback on_row = [&](sweep::SweepRow&& row) {
        if (row.result) solve_s.push_back(row.result->stats.wall_s);
        if (encoded.size() < 64) encoded.push_back(mpi::encode_row(row));
    };
    const auto outcome = mpi::coordinate_sweep(job, compiled, {}, on_row);
    const auto& st = outcome.stats;
    const double med = median(solve_s);
    const double rows = static_cast<double>(st.rows);
    const double busy_us = st.busy_s / rows * 1e6, cpu_us = st.busy_cpu_s / rows * 1e6;
    const double loop_us = st.loop_cpu_s / rows * 1e6;
    std::printf("ranks=%d threads_per_rank=%u points=%zu elapsed_s=%.3f points_per_s=%.2f\n",
                job.size(), threads, compiled.plan.points.size(), st.elapsed_s,
                rows / st.elapsed_s);
    std::printf(
        "median_point_solve_ms=%.3f coordinator_per_point: busy_wall_us=%.2f "
        "busy_cpu_us=%.2f (ratio 1/%.0f) loop_cpu_us=%.2f (ratio 1/%.0f)\n",
        med * 1e3, busy_us, cpu_us, med * 1e6 / cpu_us, loop_us, med * 1e6 / loop_us);
    if (job.size() > 1) {
        std::printf("mpi round trip (index out, 4 KB row back), idle ranks: us=%.2f\n", mpi_us);
    }
    const double sim_us = simulated_us_per_point(encoded, 1000, 100'000);
    std::printf(
        "simulated 1000 ranks, 100000 points: bookkeeping+decode_us_per_point=%.2f "
        "ratio=1/%.0f\n",
        sim_us, med * 1e6 / sim_us);
    return 0;
}
