// sgdnet explain's analyses of a solved model: resources ranked by simulated utilization beside
// their bounds, the bottleneck in one sentence, what-if sensitivities of the params, and the
// busiest elements of a raw net.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/compile.hpp"
#include "explain/bounds.hpp"
#include "net/petri_net.hpp"
#include "solver/solve_options.hpp"
#include "solver/solve_result.hpp"

namespace sgdnet::explain {

/// A resource's closed-form bound beside its simulated utilization (the measure `util.NAME`).
struct ResourceUse {
    ResourceBound bound;
    std::optional<solver::MeasureEstimate> utilization;  // none: the net has no such measure
};

/// The resources of `bounds` with their utilizations from `result` (solved from the net of the
/// same spec), busiest first (utilizations equal to 0.1%: the lesser bound first); resources
/// without a measure after those with one, by bound.
std::vector<ResourceUse> rank_resources(const Bounds& bounds, const solver::SolveResult& result);

/// One sentence naming what limits steps/s, e.g. "bottleneck: ps[0]'s NIC (downlink), 98%
/// busy; bound 12.4 steps/s". `steps_per_s` is the simulated value. The resource of least bound
/// when that bound is within 5% of the overall bound, the model runs at ≥ 90% of it and the
/// resource is ≥ 80% busy (when its utilization is known); else,
/// when the model runs at ≥ 90% of the overall bound (the critical path), the busiest resource
/// if it is ≥ 90% busy ("…, in sequence with the rest of the step's critical path (…)"), or the
/// path itself; else the busiest resource if it is ≥ 95% busy, with the share of its bound the
/// model reaches; otherwise that no resource saturates. Cases 2–4 name the busiest resource.
std::string bottleneck_sentence(const Bounds& bounds, const std::vector<ResourceUse>& ranked,
                                double steps_per_s);

/// A mean step in parts that sum to it: a worker's, or (worker "all") the mean over workers.
struct StepParts {
    std::string worker;
    double step_s = 0, ci_low = 0, ci_high = 0;  // simulated
    double compute_s = 0;        // its compute jobs in progress (forward + backward)
    double communication_s = 0;  // exposed: its NIC transmitting while it computes nothing
    double waiting_s = 0;        // the rest: latency, barrier, server, stragglers
    double update_s = 0;         // its update in progress
};

/// `net` (the net of `spec`) with three measures per worker W appended: `step_time.W`, the mean
/// time between two steps of W (the transitions of the measure steps_per_s, one per worker in
/// order); `busy.W`, the fraction of time some job of util.W's (compute, backward tail, update)
/// is in progress; `exposed_comm.W`, the fraction of time none is while W's own NIC directions
/// (util.W.up, util.W.down) transmit. Only measures are added: the net's behaviour is the same.
net::PetriNet with_worker_step_times(const net::PetriNet& net, const training::TrainingSpec& spec);

/// with_worker_step_times(), plus the closed forms as constant measures (estimate = interval =
/// the value), so that every row writer carries them (`sgdnet sweep --explain`):
/// `bound.steps_per_s` (Bounds::bound), `bound.cycle_steps_per_s`, and the means over workers
/// `part.compute_s`, `part.update_s`, `part.exposed_comm_s` (Bounds::exposed_comm_s: what the
/// critical path exposes).
net::PetriNet with_explain_measures(const net::PetriNet& net, const training::TrainingSpec& spec);

/// The step-time breakdown of every worker, then of all ("all", the mean over workers, with the
/// interval of the measure step_time), from `result` of with_worker_step_times(). A worker's
/// step T is split into busy T·busy.W (compute and update, in the ratio of their mean work),
/// exposed communication T·exposed_comm.W and waiting, the rest; the parts sum to T. Empty
/// when the measures are missing.
std::vector<StepParts> step_breakdown(const training::TrainingSpec& spec,
                                      const solver::SolveResult& result);

/// The relative change of the first measure for param ± fraction.
struct WhatIf {
    std::string param;
    double value = 0;                        // canonical units
    std::string unit;                        // its canonical unit ("" for a number)
    double low_value = 0, high_value = 0;    // the values solved (integers stay integers)
    double low = 0, base = 0, high = 0;      // the first measure at each
    double change_low = 0, change_high = 0;  // (low − base) / base, (high − base) / base
    /// (Δmeasure / measure) / (Δparam / param) over the two sides: +1 means proportional.
    double elasticity = 0;
    std::string skipped;  // why the param was left out ("" when solved)
};

/// Solves the model at `base` and at each numeric param ± fraction (one param at a time), every
/// run with options.seed (common random numbers: the differences are far more precise than each
/// estimate). `compile(overrides)` compiles the model with these `--set` pairs added to its
/// own, or returns nullopt (e.g. an array size that must be an integer: the param then moves to
/// the nearest other integers). Ranked by |elasticity|, largest first; skipped params last.
std::vector<WhatIf> what_if(const std::vector<compiler::ParamValue>& params,
                            const std::function<std::optional<net::PetriNet>(
                                const std::vector<std::pair<std::string, std::string>>&)>& compile,
                            const solver::SolveOptions& options, double fraction);

/// A raw net's element and its steady-state activity.
struct ElementActivity {
    std::string name;
    double value = 0;  // firings/s of a transition, mean tokens of a place
    double ci_low = 0, ci_high = 0;
    /// Its structural bound (explain/invariants.hpp): most firings/s, most tokens; none known.
    std::optional<double> bound;
};

struct NetActivity {
    std::vector<ElementActivity> transitions;  // firings/s, largest first
    std::vector<ElementActivity> places;       // mean tokens, largest first
    solver::SolveResult result;                // of the net with the extra measures
    /// The place invariants as text, e.g. `idle + busy = 3`, `2 a + b = 4`; `invariants_complete`
    /// is false when the search gave up on a net too large for it.
    std::vector<std::string> invariants;
    bool invariants_complete = true;
};

/// Simulates `net` with a throughput measure per transition and a mean-tokens measure per place
/// added after its own measures (the first measure still sets the stopping rule), each element
/// with its structural bound, and the net's place invariants.
NetActivity net_activity(const net::PetriNet& net, const solver::SolveOptions& options);

}  // namespace sgdnet::explain
