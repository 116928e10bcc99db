// lower_training_spec(): every coordination scheme of docs/language.md §5.2, fine and coarse, as a net.
// This file holds the parts the schemes share: the dispatch, the workers' compute chains and
// local update, the buckets of a step and the measures (§5.3); each scheme is in its own file
// (ring.cpp, tree.cpp, gossip.cpp, ps.cpp), the class in lowering.hpp.
//
// Net shapes (names as they appear in `--emit net`; W = a worker name such as `w[3]`):
// - coarse worker: `W.compute` (compute / speed) fires once per step; fine worker: the chain
//   `W.fwd.L0 … W.fwd.Ln`, then `W.bwd.*` in gradient-ready order; its first forward starts the
//   step. The coarse chain is the fine chain reduced: a chain of timed transitions whose only
//   interaction is through the chain places merges into one transition whose delay is the sum
//   of theirs (exact, since nothing else reads the intermediate places) — see docs/training.md.
//   Each is a CPU job of the worker's host (Builder::cpu_job): on a host of finite cores it has
//   a `….begin` and shares the cores with the host's other jobs.
// - messages: builder.cpp (§5.1).
// - schemes: one file each, with their dependencies documented there.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "training/lowering.hpp"

namespace sgdnet::training {

using net::Measure;

double host_share(const TrainingSpec& spec, int i) {
    const auto& host = spec.workers[static_cast<std::size_t>(i)].host;
    if (!host) return 1;
    double on_host = 0;
    for (const auto& w : spec.workers) on_host += w.host == host ? 1 : 0;
    const HostSpec& h = spec.hosts[static_cast<std::size_t>(*host)];
    return std::max(1.0, on_host / h.cores) *
           (1 + h.interference * (std::min(on_host, h.cores) - 1)) *
           (1 + h.oversubscription * std::max(0.0, on_host - h.cores) / on_host);
}

double backward_tail_work(const TrainingSpec& spec, int i, double compute_mean, double comm) {
    const WorkerSpec& w = spec.workers[static_cast<std::size_t>(i)];
    double bwd = 0;
    for (const auto& l : w.layers) bwd += net::mean(l.bwd) / w.speed;
    if (w.layers.empty() || w.compute) bwd = compute_mean * 2.0 / 3.0;
    const double wall = spec.overlap_fraction * comm;
    return std::min({wall / host_share(spec, i), bwd, compute_mean});
}

Lowering::Lowering(const TrainingSpec& spec, net::PetriNet& out)
    : spec_(spec), b_(out), n_(static_cast<int>(spec.workers.size())),
      k_(static_cast<int>(spec.servers.size())),
      fine_(spec.granularity == Granularity::Fine),
      mode_(spec.sharing == SharingKind::Fair ? DirMode::Fair : DirMode::Fifo) {}

void Lowering::run() {
    for (const auto& h : spec_.hosts) b_.add_host(h);
    b_.set_message_costs(
        {spec_.message_overhead_s, spec_.comm_cpu_s_per_byte, mode_, spec_.share_ratio});
    for (const auto& w : spec_.workers) {
        const int rank = static_cast<int>(wnode_.size());
        wnode_.push_back(b_.add_node({w.name, w.bandwidth_Bps, w.latency_s, w.host, rank}));
    }
    for (const auto& s : spec_.servers) {
        const int rank = static_cast<int>(snode_.size());
        snode_.push_back(b_.add_node({s.name, s.bandwidth_Bps, s.latency_s, s.host, rank}));
    }
    step_.resize(u(n_));
    wbusy_.resize(u(n_));
    sbusy_.resize(u(k_));
    switch (spec_.sync) {
        case SyncKind::AllreduceRing: ring(); break;
        case SyncKind::AllreduceTree: tree(); break;
        case SyncKind::Gossip: gossip(); break;
        case SyncKind::PsSync:
        case SyncKind::PsAsync:
        case SyncKind::PsSsp: ps(); break;
    }
    measures();
}

/// The worker's coarse compute distribution (its own, or the sum of its layers), slowed.
net::Distribution Lowering::coarse_compute_dist(int i) const {
    const WorkerSpec& w = worker(i);
    if (w.compute) return slowed(*w.compute, w.speed);
    std::vector<net::Distribution> parts;
    for (const auto& l : w.layers) parts.push_back(l.fwd);
    for (const auto& l : w.layers) parts.push_back(l.bwd);
    return slowed(sum_of(parts), w.speed);
}

/// Estimated time of one step's communication alone on the links, for the coarse overlap
/// heuristic (docs/training.md): ring 2(N−1)·t(S/N), tree 2·depth·t(S), parameter server
/// 2·t(S), gossip t(S), where a message of B bytes takes t(B) = o + max(B/bw, B·c) + L (o the
/// message overhead, c the CPU cost per byte; bw, L of the worker's NIC and its peer's: the
/// ring's next worker, the first shard, or for tree and gossip the worker's own NIC twice, as
/// seen from another host).
double Lowering::comm_estimate(int i) const {
    const double s = spec_.model_bytes;
    const MessageCosts& costs = b_.message_costs();
    auto time = [&](double bytes, const LinkEnd& a, const LinkEnd& b) {
        const double bw = std::min(a.bandwidth_Bps, b.bandwidth_Bps);
        const double tx = std::isinf(bw) ? 0.0 : bytes / bw;
        return costs.overhead_s + std::max(tx, bytes * costs.cpu_s_per_byte);
    };
    const int w = wnode_[u(i)];
    switch (spec_.sync) {
        case SyncKind::AllreduceRing: {
            if (n_ < 2) return 0;
            const int next = wnode_[u((i + 1) % n_)];
            const LinkEnd a = b_.link_end(w, next), b = b_.link_end(next, w);
            return 2.0 * (n_ - 1) * (time(s / n_, a, b) + a.latency_s + b.latency_s);
        }
        case SyncKind::AllreduceTree: {
            const double depth = std::floor(std::log2(static_cast<double>(n_)));
            const LinkEnd e = b_.remote_end(w);
            return 2.0 * depth * (time(s, e, e) + 2 * e.latency_s);
        }
        case SyncKind::Gossip: {
            const LinkEnd e = b_.remote_end(w);
            return n_ < 2 ? 0 : time(s, e, e) + 2 * e.latency_s;
        }
        default: {
            const LinkEnd a = b_.link_end(w, snode_[0]), b = b_.link_end(snode_[0], w);
            return 2.0 * (time(s, a, b) + a.latency_s + b.latency_s);
        }
    }
}

/// The arcs that start worker j's step, called for j = 0 first. Without `buffers` (or with
/// one worker) the step starts on `ready`. With `buffers` > 0, DDP's broadcast of the module
/// buffers before each forward: worker 0's `ready` starts `buffers.begin`, which sends the
/// buffers to worker 1, 2, …, N−1 one after the other (messages `buffers.W`, each a message
/// of §5.1 in `mode`); worker 0's step starts when the last is transmitted
/// (`W.buffers.sent`), worker j's when it is ready and its copy has arrived
/// (`W.buffers.arrived`).
Arcs Lowering::step_start(int j, PlaceId ready, DirMode mode) {
    if (!(spec_.buffer_bytes > 0) || n_ < 2) return {arc(ready)};
    if (j > 0) return {arc(ready), arc(buffers_arrived_[u(j)])};
    buffers_arrived_.assign(u(n_), PlaceId{});
    const PlaceId sent = b_.place(wn(0) + ".buffers.sent");
    Arcs next{arc(sent)};
    for (int k = n_ - 1; k >= 1; --k) {
        buffers_arrived_[u(k)] = b_.place(wn(k) + ".buffers.arrived");
        MessageSpec m;
        m.name = "buffers." + wn(k);
        m.from = wnode_[0];
        m.to = wnode_[u(k)];
        m.bytes = spec_.buffer_bytes;
        m.mode = mode;
        m.tx_done = next;
        m.deliver = {arc(buffers_arrived_[u(k)])};
        next = b_.message(m);
    }
    b_.immediate("buffers.begin", {arc(ready)}, next);
    return {arc(sent)};
}

/// Coarse compute of worker i: `W.compute` consuming `in`, producing `out` (the start of
/// communication), a CPU job on the worker's host. With the overlap fraction φ > 0 the last
/// h = min(φ·comm, backward) of the compute runs as `W.backward_tail` (a CPU job too) beside
/// the communication; the returned place receives a token when it ends. Tail::JoinsStepEnd:
/// the caller's step end must consume it; Tail::GatesNextCompute: it starts with a token and
/// the next `W.compute` consumes it.
std::optional<PlaceId> Lowering::coarse_compute(int i, Arcs in, Arcs out, Tail tail_use) {
    const WorkerSpec& w = worker(i);
    net::Distribution c = coarse_compute_dist(i);
    const double mean_c = net::mean(c);
    const double h = spec_.overlap_fraction > 0 && mean_c > 0
                         ? backward_tail_work(spec_, i, mean_c, comm_estimate(i))
                         : 0.0;
    std::optional<PlaceId> tail;
    if (h > 0) {
        c = scaled(c, (mean_c - h) / mean_c);
        PlaceId pending = b_.place(w.name + ".backward_tail.pending");
        const bool gates = tail_use == Tail::GatesNextCompute;
        tail = b_.place(w.name + ".backward_tail.done", gates ? 1 : 0);
        TransitionId t = b_.cpu_job(w.name + ".backward_tail", {net::Det{h}}, w.host,
                                    {arc(pending)}, {arc(*tail)});
        wbusy_[u(i)].push_back({t, h});
        out.push_back(arc(pending));
        if (gates) in.push_back(arc(*tail));
    }
    TransitionId t = b_.cpu_job(w.name + ".compute", c, w.host, std::move(in), std::move(out));
    step_[u(i)] = t;
    if (!is_zero(c)) wbusy_[u(i)].push_back({t, net::mean(c)});
    return tail;
}

/// Fine compute of worker i: forward chain in layer order, backward chain in gradient-ready
/// order. `start_in` gates the first forward, `fwd_gate[k]` the forward of layer k;
/// `first_out` is produced by the first forward (the step start), `bwd_out[k]` by the
/// backward of layer k, `last_out` by the last backward.
void Lowering::fine_compute(int i, Arcs start_in, const ArcLists& fwd_gate, Arcs first_out,
                            const ArcLists& bwd_out, Arcs last_out) {
    const WorkerSpec& w = worker(i);
    const auto& layers = w.layers;
    const int nl = static_cast<int>(layers.size());
    std::vector<int> order = gradient_ready_order(layers);
    Arcs in = std::move(start_in);
    auto add = [&](const std::string& name, const net::Distribution& d0, Arcs out,
                   bool first) {
        net::Distribution d = slowed(d0, w.speed);
        TransitionId t = b_.cpu_job(name, d, w.host, std::move(in), std::move(out));
        if (first) step_[u(i)] = t;
        if (!is_zero(d)) wbusy_[u(i)].push_back({t, net::mean(d)});
    };
    for (int k = 0; k < nl; ++k) {
        const LayerSpec& l = layers[u(k)];
        in = in + fwd_gate[u(k)];
        PlaceId done = b_.place(w.name + ".fwd." + l.name + ".done");
        Arcs out{arc(done)};
        if (k == 0) out = out + first_out;
        add(w.name + ".fwd." + l.name, l.fwd, std::move(out), k == 0);
        in = {arc(done)};
    }
    for (int m = 0; m < nl; ++m) {
        const int k = order[u(m)];
        const LayerSpec& l = layers[u(k)];
        Arcs out = bwd_out[u(k)];
        if (m + 1 < nl) {
            PlaceId done = b_.place(w.name + ".bwd." + l.name + ".done");
            out.push_back(arc(done));
            add(w.name + ".bwd." + l.name, l.bwd, std::move(out), false);
            in = {arc(done)};
        } else {
            add(w.name + ".bwd." + l.name, l.bwd, out + last_out, false);
        }
    }
}

/// The worker's local `update` (a CPU job on its host), consuming `in` and producing `out`.
void Lowering::worker_update(int i, Arcs in, Arcs out) {
    const WorkerSpec& w = worker(i);
    TransitionId t =
        b_.cpu_job(w.name + ".update", w.update, w.host, std::move(in), std::move(out));
    if (!is_zero(w.update)) wbusy_[u(i)].push_back({t, net::mean(w.update)});
}

/// Buckets of one step: coarse one bucket of model_bytes; fine DDP buckets of worker 0's
/// layers (every worker holds the same model).
std::vector<Bucket> Lowering::step_buckets() const {
    if (!fine_) return {Bucket{{}, spec_.model_bytes}};
    return make_buckets(worker(0).layers, spec_.first_bucket_bytes, spec_.bucket_bytes);
}

/// Per-layer outputs of the fine backward that make bucket `bk` ready: the backward of its
/// last layer (all of its layers are done then, the chain being sequential), or the last
/// backward of all when `overlap` is false.
void Lowering::bucket_ready_arcs(const std::vector<Bucket>& buckets,
                                 const std::vector<PlaceId>& ready, ArcLists& bwd_out,
                                 Arcs& last_out) const {
    for (std::size_t bk = 0; bk < buckets.size(); ++bk) {
        if (spec_.overlap) {
            bwd_out[u(buckets[bk].layers.back())].push_back(arc(ready[bk]));
        } else {
            last_out.push_back(arc(ready[bk]));
        }
    }
}

std::string Lowering::bucket_prefix(const std::string& scheme, std::size_t bk) const {
    return fine_ ? scheme + ".bucket" + std::to_string(bk) : scheme;
}

/// The measures of §5.3: steps_per_s, samples_per_s, step_time, then the utilizations of
/// every worker and server (when busy at all), of every NIC direction used and of every host
/// of finite cores.
void Lowering::measures() {
    net::PetriNet& net = b_.net();
    const bool sync = sync_scheme(spec_.sync);
    double batches = 0;
    for (const auto& w : spec_.workers) batches += w.batch;
    Measure steps{"steps_per_s", Measure::Kind::Throughput, {}, {}, "1/s", spec_.where};
    Measure samples{"samples_per_s", Measure::Kind::Throughput, {}, {}, "1/s", spec_.where};
    Measure step_time{"step_time", Measure::Kind::MeanInverseThroughput, {}, {}, "s",
                      spec_.where};
    for (int i = 0; i < n_; ++i) {
        steps.terms.push_back({step_[u(i)], sync ? 1.0 / n_ : 1.0});
        samples.terms.push_back({step_[u(i)], sync ? batches / n_ : worker(i).batch});
        step_time.terms.push_back({step_[u(i)], 1.0 / n_});
    }
    net.measures.push_back(std::move(steps));
    net.measures.push_back(std::move(samples));
    net.measures.push_back(std::move(step_time));
    auto busy = [&](const std::string& name, const std::vector<Measure::Term>& terms) {
        if (terms.empty()) return;
        net.measures.push_back(
            Measure{"util." + name, Measure::Kind::Throughput, terms, {}, "", spec_.where, true});
    };
    for (int i = 0; i < n_; ++i) busy(wn(i), wbusy_[u(i)]);
    for (int s = 0; s < k_; ++s) busy(sn(s), sbusy_[u(s)]);
    b_.add_nic_measures();
    b_.add_host_measures();
}

namespace {

/// `spec` with its `backward_overhead` E spread over every worker's backward (docs/language.md
/// §5.4): each layer's backward gains E times its share of the layers' bytes (E / L each when
/// no layer has bytes), and a coarse `compute` gains E.
TrainingSpec with_backward_overhead(TrainingSpec spec) {
    const double e = spec.backward_overhead_s;
    for (auto& w : spec.workers) {
        if (w.compute) w.compute = shifted(*w.compute, e);
        double bytes = 0;
        for (const auto& l : w.layers) bytes += l.bytes;
        const double layers = static_cast<double>(w.layers.size());
        for (auto& l : w.layers)
            l.bwd = shifted(l.bwd, e * (bytes > 0 ? l.bytes / bytes : 1 / layers));
    }
    return spec;
}

/// The hosts, the placements and the per-message costs of `spec`: an error message, or empty.
std::string check_hosts(const TrainingSpec& spec) {
    for (const auto& h : spec.hosts) {
        if (!(h.cores > 0)) return "host " + h.name + ": cores must be > 0";
        if (!(h.bandwidth_Bps > 0)) return "host " + h.name + ": bandwidth must be > 0";
        if (!(h.latency_s >= 0)) return "host " + h.name + ": latency must be >= 0";
    }
    const auto hosts = static_cast<int>(spec.hosts.size());
    auto placed = [&](const std::string& kind, const std::string& name,
                      const std::optional<int>& host) -> std::string {
        if (!host || (*host >= 0 && *host < hosts)) return {};
        return kind + " " + name + ": host index " + std::to_string(*host) +
               " is out of range (" + std::to_string(hosts) + " hosts)";
    };
    for (const auto& w : spec.workers) {
        if (std::string e = placed("worker", w.name, w.host); !e.empty()) return e;
    }
    for (const auto& s : spec.servers) {
        if (std::string e = placed("server", s.name, s.host); !e.empty()) return e;
    }
    if (!(spec.message_overhead_s >= 0)) return "message_overhead must be >= 0";
    if (!(spec.comm_cpu_s_per_byte >= 0)) return "comm_cpu must be >= 0";
    if (!(spec.backward_overhead_s >= 0)) return "backward_overhead must be >= 0";
    return {};
}

}  // namespace

std::string lower_training_spec(const TrainingSpec& spec, net::PetriNet& out) {
    if (spec.workers.empty()) return "the training system has no workers";
    if (parameter_server(spec.sync) && spec.servers.empty()) {
        return "a parameter-server scheme needs a `server` declaration";
    }
    const bool fine = spec.granularity == Granularity::Fine;
    for (const auto& w : spec.workers) {
        if (!(w.speed > 0)) return "worker " + w.name + ": speed must be > 0";
        if (!(w.bandwidth_Bps > 0)) return "worker " + w.name + ": bandwidth must be > 0";
        if (w.latency_s < 0) return "worker " + w.name + ": latency must be >= 0";
        if (fine && w.layers.empty()) {
            return "worker " + w.name + ": fine granularity needs a layer table (`layers = …`)";
        }
        if (!fine && !w.compute && w.layers.empty()) {
            return "worker " + w.name + ": coarse granularity needs `compute` or `layers`";
        }
        if (fine && w.layers.size() != spec.workers.front().layers.size()) {
            return "worker " + w.name + ": every worker must have the same layers";
        }
    }
    for (const auto& s : spec.servers) {
        if (!(s.bandwidth_Bps > 0)) return "server " + s.name + ": bandwidth must be > 0";
        if (s.latency_s < 0) return "server " + s.name + ": latency must be >= 0";
    }
    if (std::string error = check_hosts(spec); !error.empty()) return error;
    if (spec.model_bytes < 0) return "model_bytes must be >= 0";
    if (spec.staleness < 0) return "staleness must be >= 0";
    if (!(spec.bucket_bytes > 0) || !(spec.first_bucket_bytes > 0) || !(spec.fusion_bytes > 0)) {
        return "bucket and fusion sizes must be > 0";
    }
    if (spec.backward_overhead_s > 0) {
        const TrainingSpec spread = with_backward_overhead(spec);
        Lowering(spread, out).run();
    } else {
        Lowering(spec, out).run();
    }
    return {};
}

}  // namespace sgdnet::training
