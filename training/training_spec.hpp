// TrainingSpec: the evaluated description of a training system (docs/language.md §5), and its lowering.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "net/distribution.hpp"
#include "net/petri_net.hpp"
#include "net/source_range.hpp"
#include "training/kinds.hpp"

namespace sgdnet::training {

inline constexpr double kInfiniteBandwidth = std::numeric_limits<double>::infinity();

/// One row of a layer table, canonical units.
struct LayerSpec {
    std::string name;
    net::Distribution fwd;
    net::Distribution bwd;
    double bytes = 0;               // gradient (= parameter) bytes
    std::optional<int> bwd_order;   // position in gradient-ready order (0 = first), if recorded
};

/// One host (one element of `host NAME[COUNT]`): cores shared by the CPU jobs placed on it, and
/// optionally a NIC shared by its nodes.
struct HostSpec {
    std::string name;                           // e.g. `h[1]`, or `h` without a count
    double cores = std::numeric_limits<double>::infinity();
    double bandwidth_Bps = kInfiniteBandwidth;  // finite: a NIC shared by the nodes placed on it
    double latency_s = 0;                       // of that NIC
    net::SourceRange where;
    double interference = 0;  // slowdown per other busy core: 1 + interference·(busy − 1)
    double oversubscription = 0;  // k > C jobs: each slowed by 1 + oversubscription·(k − C)/k
};

/// One worker (one element of `worker NAME[COUNT]`), its properties evaluated for its index.
struct WorkerSpec {
    std::string name;                          // e.g. `w[3]`
    std::optional<net::Distribution> compute;  // coarse forward+backward time (before speed)
    std::vector<LayerSpec> layers;             // fine: forward order
    net::Distribution update{net::Det{0}};     // local optimizer step
    double speed = 1;                          // compute times are divided by it (> 0)
    double bandwidth_Bps = kInfiniteBandwidth; // NIC, each direction
    double latency_s = 0;
    double batch = 1;                          // samples per step
    net::SourceRange where;
    std::optional<int> host{};                 // index into TrainingSpec::hosts; none: alone
};

/// One parameter-server shard (one element of `server NAME[K]`).
struct ServerSpec {
    std::string name;                       // e.g. `ps[0]`
    net::Distribution update{net::Det{0}};  // time to apply one (whole-model) gradient
    double bandwidth_Bps = kInfiniteBandwidth;
    double latency_s = 0;
    net::SourceRange where;
    std::optional<int> host{};              // index into TrainingSpec::hosts; none: alone
};

/// The training block (docs/language.md §5), evaluated.
struct TrainingSpec {
    std::vector<WorkerSpec> workers;  // ring order = this order
    std::vector<ServerSpec> servers;  // shards; required by ps_* schemes
    std::vector<HostSpec> hosts;
    SyncKind sync = SyncKind::AllreduceRing;
    int64_t staleness = 0;            // ps_ssp
    Granularity granularity = Granularity::Coarse;
    double model_bytes = 0;           // coarse messages; fine uses the layers' bytes
    double bucket_bytes = 25.0 * 1024 * 1024;
    double first_bucket_bytes = 25.0 * 1024 * 1024;
    double fusion_bytes = 4.0 * 1024 * 1024;  // fine PS: consecutive tensors fused per message
    double buffer_bytes = 0;  // all-reduce: bytes worker 0 sends every worker before each forward
    SharingKind sharing = SharingKind::Fair;
    double share_ratio = 1;           // fair sharing: weight ratio of successive peers (§5.1)
    Protocol protocol = Protocol::Eager;  // rendezvous: a ps_async/ps_ssp shard takes one at a time
    bool overlap = true;              // fine: communication overlaps backward
    double overlap_fraction = 0;      // coarse heuristic, in [0, 1]
    double message_overhead_s = 0;    // per message, CPU work on the sender's host
    double comm_cpu_s_per_byte = 0;   // CPU seconds per byte at each end of a message
    double backward_overhead_s = 0;   // CPU work per step added to each worker's backward
    net::SourceRange where;           // the training block
};

/// How many times slower worker i's CPU jobs run when every worker placed on its host computes
/// at once: max(1, n / C) · (1 + interference · (min(n, C) − 1)) ·
/// (1 + oversubscription · max(0, n − C) / n) for n workers on a host of C cores; 1 for a
/// worker alone on its host.
double host_share(const TrainingSpec& spec, int i);

/// The coarse backward tail of worker i (docs/training.md, "Coarse overlap"): the CPU work, at
/// full speed, of the end of its compute that runs beside communication whose time alone on
/// the links is `comm`. It lasts φ·comm of wall time while the host's workers share the cores,
/// so its work is φ·comm / host_share, capped by the backward (the layers' backward / speed,
/// or two thirds of a `compute` without layers) and by `compute_mean`.
double backward_tail_work(const TrainingSpec& spec, int i, double compute_mean, double comm);

/// Lowers a training system into `out` (appending places, transitions and the measures of
/// docs/language.md §5.3, steps_per_s first). Returns an error message (empty on success) when the
/// spec is unusable: no workers, a ps_* scheme without servers, fine granularity without layers,
/// non-positive speed, bandwidth or cores, a host index out of range, a negative latency,
/// message overhead, communication CPU cost or backward overhead.
std::string lower_training_spec(const TrainingSpec& spec, net::PetriNet& out);

}  // namespace sgdnet::training
