// Steady-state estimates from the batch rows of the replications, for simulate() (run.cpp):
// how measures read count columns, smoothed windows, cross-fitted MSER warm-up cuts, Student-t
// intervals and the warm-up tests of the stopping rule. Internal to solver/sim.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "net/petri_net.hpp"
#include "solver/sim/engine.hpp"
#include "solver/solve_options.hpp"
#include "solver/solve_result.hpp"

namespace sgdnet::solver::sim {

/// Independent replications of a random net; without them (a net without randomness, or
/// replications that all agree) the kept batches of replication 0 are split into as many
/// groups.
inline constexpr uint32_t kReplications = 16;

/// How each measure reads a snapshot row. A throughput measure reads one column, the weighted
/// count Σ coef·firings; an inverse-throughput measure one count column per term; a time
/// average its integral column.
struct MeasurePlan {
    net::Measure::Kind kind;
    std::vector<std::pair<uint32_t, double>> terms;  // (column, coef)
    uint32_t expr_col = 0;
    double max_coef = 0;  // largest |coef| of a throughput term (zero-firing bound)
    bool fraction = false;  // net::Measure::fraction: clipped to [0, 1]
};

/// The snapshot columns the measures need (plan_columns()).
struct ColumnPlan {
    std::vector<CompiledNet::CountColumn> columns;  // count columns; the last is the activity
    std::vector<net::MarkingExpr> tracked;          // time-averaged expressions
    std::vector<MeasurePlan> plans;                 // per measure, in the net's order
    uint32_t activity_col = 0;  // firings of the first measure's transitions (activity_column())
    double activity_transitions = 1;  // the number of transitions that activity is spread over
};

/// Measures → count columns and time-averaged expressions. A throughput measure gets one
/// weighted column; an inverse-throughput measure one unweighted column per transition (shared
/// between measures). The last count column is the first measure's activity: the firings of
/// its transitions, or of the transitions that change a place its expression reads.
ColumnPlan plan_columns(const net::PetriNet& net);

/// Value of measure `m` over a window of length `span` between snapshot rows `a` and `b`.
double measure_value(const MeasurePlan& m, const double* a, const double* b, double span);

/// A replication's row: its snapshot (`w` values, count columns first), then ∫ count dt of
/// every count column (`nc` values); `rw` values in all.
struct RowLayout {
    uint32_t w = 0, nc = 0, rw = 0;
};

/// What one round's estimate reads: (batches + 1) rows of every replication, the first at the
/// replication's phase offset, one every batch_len of simulated time.
struct RoundRows {
    std::vector<const double*> rows;  // per replication
    RowLayout layout;
    std::size_t batches = 0;
    double batch_len = 0;
};

/// The estimate of one round (estimate_round()), with what the stopping rule and the
/// warnings need.
struct RoundEstimate {
    /// The first measure's kept windows hold enough firings (kMinWindowActivity).
    bool enough_activity = true;
    /// The first measure's MSER cut in batches, before the kMinWarmupShare floor.
    std::size_t first_cut = 0;
    /// The first measure: its cut was long and still in the transient, or its kept window
    /// still trends.
    bool long_warmup = false, drifting = false;
    /// Measures whose warm-up cut reached half the run and whose halves differ.
    std::vector<std::string> suspect_transient;
};

/// Estimates every measure from `rows` into `measures` (mean and interval at
/// options.confidence) and tests the first measure's warm-up. `deterministic`: a net without
/// randomness, run as one replication whose batches give the interval.
RoundEstimate estimate_round(const RoundRows& rows, const ColumnPlan& plan,
                             const net::PetriNet& net, bool deterministic,
                             const SolveOptions& options, std::vector<MeasureEstimate>& measures);

}  // namespace sgdnet::solver::sim
