// Upper bounds on a training model's steps/s without simulation: each resource's demand per step
// (compute, NIC directions, server shards, host cores) and the step's critical path.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "training/training_spec.hpp"

namespace sgdnet::explain {

inline constexpr double kNoBound = std::numeric_limits<double>::infinity();

/// What a resource is: its busy time is what a step demands of it.
enum class ResourceKind { Compute, Link, Server, HostCores };

/// `compute`, `link`, `server` or `host`.
const char* to_string(ResourceKind kind);

/// One resource of a training system and the steps/s it alone allows.
struct ResourceBound {
    std::string name;  // as in the measure `util.NAME`: `w[0]`, `w[0].up`, `ps[1].down`, `h[0]`
    ResourceKind kind = ResourceKind::Compute;
    std::string what;     // in words: "w[0]'s compute and update", "ps[0]'s NIC (downlink)"
    double capacity = 1;  // busy seconds it can give per second (a host's cores, else 1)
    /// Busy seconds per unit of steps_per_s: per step of every worker for ps_sync and the
    /// all-reduces, per local step (workers stepping at equal rates) for ps_async, ps_ssp and
    /// gossip.
    double demand_s = 0;
    double bound = kNoBound;  // steps/s this resource allows (steps_per_s units)
};

/// The bounds of one training system, in the units of its measure steps_per_s.
struct Bounds {
    bool sync = true;                      // one steps_per_s unit = one step of every worker
    std::vector<ResourceBound> resources;  // ascending bound; resources with no demand left out
    double cycle_s = 0;                    // lower bound of the mean step time (critical path)
    double cycle_bound = kNoBound;         // steps/s allowed by it
    std::string cycle_what;                // the path, in words
    /// Per worker: the communication its step's critical path cannot hide — the path less the
    /// least compute, update and (parameter server) shard update on it, at least 0.
    std::vector<double> exposed_comm_s;
    double bound = kNoBound;  // the least of all: the asymptotic bound
    std::string binding;      // name of the resource giving `bound`, or "cycle"
};

/// A worker's mean compute per step: its `compute` (or the Σ of its layers' forward and
/// backward means) divided by its speed.
double compute_mean_s(const training::WorkerSpec& w);

/// Demands and bounds of `spec`, in closed form (no simulation; any number of workers):
/// - a worker's compute and update (Σ means, compute divided by its speed);
/// - each NIC direction: bytes it carries per step / its bandwidth (a host's NIC carries the
///   messages of its nodes to other hosts);
/// - each server shard's updates;
/// - each host of finite cores: the CPU work placed on it (compute, updates, per-message
///   overhead and CPU cost per byte) / cores;
/// - the critical path of a step (cycle): compute, communication rounds and updates that must
///   follow each other; for ps_async, ps_ssp and gossip a worker's own step cycle.
/// Every bound is ≥ the steps_per_s of the net lower_training_spec builds from `spec`.
Bounds training_bounds(const training::TrainingSpec& spec);

}  // namespace sgdnet::explain
