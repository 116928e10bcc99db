// Import of one-node PyTorch profiles (per-layer JSON or profiler Chrome trace) into layer tables.
//
// Two input formats (docs/profiles.md describes both and every choice made here):
//  1. the per-layer profile written by examples/profiling/profile_model.py (`layers`, `totals`,
//     optional `ddp_buckets` and `comm_probe`), with per-layer forward/backward gap times,
//     parameter bytes and the gradient-ready order;
//  2. a PyTorch profiler Chrome trace (`export_chrome_trace`, bare list or {"traceEvents": …})
//     with `record_function` ranges `zero_grad`, `forward`, `backward`, `optimizer` per step and
//     optionally `layer_fwd:NAME` per layer forward. A trace gives the coarse phases and the
//     per-layer forward times only; it records neither per-layer backward times nor parameter
//     sizes (see `Profile::has_layer_backward`, `Profile::has_bytes`).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/diagnostics.hpp"
#include "net/distribution.hpp"

namespace sgdnet::profile {

// The front end's types (AST, diagnostics, source ranges) are this library's vocabulary.
using namespace sgdnet::frontend;

/// A profiled time: sample mean and standard deviation in seconds over `n` samples (n = 0: the
/// count is unknown, or the value is derived).
struct ProfiledTime {
    double mean_s = 0;
    double std_s = 0;
    int n = 0;
    bool operator==(const ProfiledTime&) const = default;
};

/// Sum of two independent profiled times: means add, variances add; n is the smaller count.
ProfiledTime add_independent(const ProfiledTime& a, const ProfiledTime& b);

/// The fitted delay distribution of a profiled time: `lognormal(mean, cv = std/mean)`, or
/// `det(mean)` when the standard deviation or the mean is 0. The mean is preserved exactly.
/// Precondition: mean_s >= 0 and std_s >= 0, both finite.
net::Distribution fit_distribution(const ProfiledTime& t);

/// Maps a PyTorch module name to an identifier of the language (`[A-Za-z_][A-Za-z0-9_]*`):
/// every other character becomes `_` (`layer1.0.conv1` → `layer1_0_conv1`), a leading digit
/// gets a `_` prefix, an empty name becomes `layer`, and the reserved words `true`/`false` get
/// a trailing `_`. Collisions are resolved by load_profile (see ProfiledLayer::ident).
std::string to_identifier(std::string_view name);

/// One layer (a leaf module owning parameters) of a profile, in forward order.
struct ProfiledLayer {
    std::string name;   // PyTorch module name as recorded, e.g. "layer1.0.conv1"
    std::string ident;  // to_identifier(name), made unique by suffixes `_2`, `_3`, … in order
    std::string type;   // module type when recorded ("Linear"), else ""
    /// Gap times as recorded (format 1: `fwd_s`, `bwd_s`; trace: derived from `layer_fwd`).
    ProfiledTime fwd_gap;
    ProfiledTime bwd_gap;
    /// The times the model uses: the gap times with the step's tails folded in so that
    /// Σ fwd_time + Σ bwd_time = zero_grad + forward + backward (docs/profiles.md, "Tails"):
    /// the first layer's fwd also holds `zero_grad`, the last layer's fwd the forward tail
    /// (ops after the last layer, the loss included), the last-ready layer's bwd the backward
    /// tail. Tails add as independent times (add_independent).
    ProfiledTime fwd_time;
    ProfiledTime bwd_time;
    net::Distribution fwd;  // fit_distribution(fwd_time)
    net::Distribution bwd;  // fit_distribution(bwd_time)
    double bytes = 0;       // gradient (= fp32 parameter) bytes; 0 when unknown (traces)
    int bwd_order = 0;      // position in gradient-ready order, 0 = first ready
};

/// The gradient buckets DDP really used, as recorded in a format-1 profile for one bucket cap.
struct RecordedBuckets {
    std::string cap_key;  // the key under `ddp_buckets` (bucket_cap_mb, e.g. "25")
    double cap_B = 0;     // `logging.bucket_cap_bytes`, else cap_key × 2^20
    /// Buckets in all-reduce order; each holds indices into Profile::layers, ascending.
    std::vector<std::vector<int>> layers;
    std::vector<double> bytes;  // recorded bytes of each bucket
};

/// What communication costs the hosts, as a format-1 profile's `comm_probe` object records it
/// (two local processes all-reducing, examples/profiling/comm_probe.py): the model's
/// `message_overhead`, `comm_cpu` and a host's `cores` (and `interference` and
/// `oversubscription`, when measured).
/// Canonical units.
struct CommProbe {
    double message_overhead_s = 0;   // fixed cost of one message
    double comm_cpu_s_per_byte = 0;  // CPU seconds per byte, at each end of a message
    double cores = 0;                // CPUs the profiling process could use
    std::optional<double> interference;  // slowdown per other busy core (side_by_side probe)
    std::optional<double> oversubscription;  // cost of taking turns on the cores (crowded probe)
    bool operator==(const CommProbe&) const = default;
};

/// A one-node profile, in canonical units.
struct Profile {
    enum class Source { LayerJson, ChromeTrace };
    Source source = Source::LayerJson;
    std::string file;      // display name of the file it was read from
    std::string workload;  // `workload` when recorded
    int batch = 0;         // `batch` when recorded, else 0
    int steps = 0;         // timed steps behind the statistics (trace: steps found)

    std::vector<ProfiledLayer> layers;  // forward order; may be empty for a trace without layers
    bool has_layer_backward = true;     // false for traces: bwd apportioned (docs/profiles.md)
    bool has_bytes = true;              // false for traces: every bytes is 0

    /// Phases of one step as recorded: zero_grad, forward (model + loss), backward, optimizer,
    /// whole step; and the tails (forward: after the last layer's forward up to the end of
    /// `forward`, loss included; backward: after the last gradient is ready).
    ProfiledTime zero_grad, forward, backward, optimizer, step, fwd_tail, bwd_tail;

    ProfiledTime compute_time;  // zero_grad + forward + backward, independent sum
    net::Distribution compute;  // fit_distribution(compute_time): `NAME.compute`
    net::Distribution update;   // fit_distribution(optimizer): `NAME.update`
    net::Distribution step_dist;  // fit_distribution(step)

    std::vector<RecordedBuckets> recorded_buckets;  // format 1 `ddp_buckets`, in file order
    std::optional<CommProbe> comm_probe;            // format 1 `comm_probe`, when recorded
    /// Format 1 `buffer_bytes`, when recorded: the bytes of the model's buffers (e.g. batch-norm
    /// running statistics), which DDP broadcasts from rank 0 before every forward.
    std::optional<double> buffer_bytes;
    /// Format 1 `ddp_overhead_s`, when recorded: the time DDP adds to one process's step at
    /// world 1 (autograd hooks, copies into the buckets and back), seconds.
    std::optional<double> ddp_overhead_s;
    /// Format 1 `ps_worker_overhead_s`, when recorded: a parameter-server worker's own work per
    /// step beyond forward and backward (the flat parameters copied in, the gradients copied
    /// out), timed in fresh processes as a worker runs it, seconds.
    std::optional<double> ps_worker_overhead_s;
    /// Format 1 `server_update_s`, when recorded: a parameter server's work on one gradient
    /// that arrives and leaves as one flat tensor (copied into the model, the optimizer step,
    /// the parameters copied out); `NAME.server_update`.
    std::optional<ProfiledTime> server_update;
    /// Format 1 `aggregate_s`, when recorded: adding one flat gradient into a sum, as a
    /// `ps_sync` server does with each worker's; `NAME.aggregate` (its mean).
    std::optional<ProfiledTime> aggregate;
    /// Format 1 `steady_step_s`, when recorded (> 0): the plain step alone timed over long
    /// windows spread over about a minute. The step's times (every layer's gaps, the phases
    /// and the step, means and standard deviations alike) are then scaled by
    /// `step_scale` = steady_step_s / the timed step's mean, so that the model's step takes
    /// the steadier figure and keeps its shape (docs/profiles.md, "Steady step").
    std::optional<double> steady_step_s;
    double step_scale = 1;  // 1 without steady_step_s
};

/// Parses a profile held in `text` (either format, detected from its shape), registered in
/// messages as `display_name`. Every problem is reported to `diags` at `where` as
/// `profile DISPLAY_NAME: /json/pointer: message` (e.g.
/// `profile r.json: /layers/3/fwd_s/mean: expected a number, got string`); all problems are
/// reported, not only the first. Traces also get a warning naming what they cannot give.
/// Returns nullopt when an error was reported. Never throws.
std::optional<Profile> parse_profile(std::string_view text, const std::string& display_name,
                                     Diagnostics& diags, SourceRange where = {});

/// Reads `path` and parses it with parse_profile (display name = `path`); an unreadable file is
/// a diagnostic. Never throws.
std::optional<Profile> load_profile(const std::string& path, Diagnostics& diags,
                                    SourceRange where = {});

/// Gradient buckets the way PyTorch DDP forms them after its first-iteration rebuild
/// (torch/csrc/distributed/c10d/reducer.cpp, compute_bucket_assignment_by_size): layers are
/// taken in gradient-ready order (`bwd_order`) and added to the current bucket; as soon as the
/// bucket holds at least its cap it is closed (so a bucket may exceed its cap by its last
/// layer, and a layer larger than the cap closes the bucket it lands in); the first bucket's
/// cap is `first_bucket_cap_B` (DDP: 1 MiB), every later one `bucket_cap_B`; what remains at
/// the end is the last bucket. Returns the buckets in all-reduce order, each as indices into
/// `p.layers` in ready order. DDP does this per parameter; here a layer is indivisible.
std::vector<std::vector<int>> ddp_buckets(const Profile& p, double bucket_cap_B,
                                          double first_bucket_cap_B);

/// The text `sgdnet import-profile` writes: a header comment naming the source, a
/// `layers NAME { IDENT: fwd = …, bwd = …, bytes = … B; … }` table in forward order (an
/// `order = K` column only when the gradient-ready order is not the reverse layer order), then
/// `let NAME_compute = …; let NAME_update = …; let NAME_step = …;`, and with a `comm_probe`
/// `let NAME_message_overhead = …; let NAME_comm_cpu = … ns / 1 B; let NAME_cores = …;`. Times
/// are written in ms or us with 6 significant digits. A profile without layers gets only the
/// `let`s.
/// Precondition: `name` is an identifier (pass it through to_identifier).
std::string to_sgdnet(const Profile& p, const std::string& name);

}  // namespace sgdnet::profile
