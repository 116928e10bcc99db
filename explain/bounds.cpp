// Upper bounds on a training model's steps/s without simulation (bounds.hpp): per-resource demands
// of a step and the step's critical path.
//
// A resource busy d seconds per step with capacity c allows at most c/d steps/s, whatever the
// scheduling. Demands follow the nets of training/ (docs/training.md): the ring sends 2(N−1)
// chunks of bucket/N from each worker to the next, the tree a reduce and a broadcast of every
// bucket per edge, the parameter server model/K to and from every shard per worker step, gossip
// the model both ways with one ring neighbour. The critical path is a chain of phases each step
// must pass through one after the other; every phase is bounded below by its mean on its
// fastest worker, so the path is a lower bound of the mean step time.
#include "explain/bounds.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "training/ddp_buckets.hpp"

namespace sgdnet::explain {

using training::SyncKind;
using training::TrainingSpec;

const char* to_string(ResourceKind kind) {
    switch (kind) {
        case ResourceKind::Compute:
            return "compute";
        case ResourceKind::Link:
            return "link";
        case ResourceKind::Server:
            return "server";
        case ResourceKind::HostCores:
            return "host";
    }
    return "compute";
}

namespace {

std::size_t u(int i) { return static_cast<std::size_t>(i); }

/// One end of a message: the NIC direction it uses (none when its bandwidth is infinite).
struct End {
    std::string dir;  // `w[0].up`, `h[1].down`, or "" (infinite bandwidth)
    double bandwidth_Bps = training::kInfiniteBandwidth;
    double latency_s = 0;
};

/// Nodes (workers, then servers) and the demands of every resource per worker step.
class Demands {
  public:
    explicit Demands(const TrainingSpec& spec) : spec_(spec), n_(int(spec.workers.size())) {
        for (const auto& w : spec.workers)
            nodes_.push_back({w.name, w.bandwidth_Bps, w.latency_s, w.host});
        for (const auto& s : spec.servers)
            nodes_.push_back({s.name, s.bandwidth_Bps, s.latency_s, s.host});
    }
    int server_node(int s) const { return n_ + s; }

    /// The NIC `node` uses towards `peer` (its host's when they are on different hosts and its
    /// host has a NIC), `up` for sending.
    End end(int node, int peer, bool up) const {
        const Node& a = nodes_[u(node)];
        const char* suffix = up ? ".up" : ".down";
        if (a.host && nodes_[u(peer)].host != a.host) {
            const training::HostSpec& h = spec_.hosts[u(*a.host)];
            if (!std::isinf(h.bandwidth_Bps) || h.latency_s > 0) {
                return {std::isinf(h.bandwidth_Bps) ? "" : h.name + suffix, h.bandwidth_Bps,
                        h.latency_s};
            }
        }
        return {std::isinf(a.bandwidth_Bps) ? "" : a.name + suffix, a.bandwidth_Bps, a.latency_s};
    }

    /// Least time of one message alone: overhead, transmission (or its CPU cost when larger)
    /// and both latencies.
    double message_time(int from, int to, double bytes) const {
        const End a = end(from, to, true), b = end(to, from, false);
        const double bw = std::min(a.bandwidth_Bps, b.bandwidth_Bps);
        const double tx = std::isinf(bw) ? 0.0 : bytes / bw;
        return spec_.message_overhead_s + std::max(tx, bytes * spec_.comm_cpu_s_per_byte) +
               a.latency_s + b.latency_s;
    }

    /// Least time of one message between `node` and a node on another host, both ends through
    /// `node`'s NIC as seen from another host (the overlap heuristic's estimate for tree and
    /// gossip).
    double remote_time(int node, double bytes) const {
        const Node& a = nodes_[u(node)];
        double bw = a.bandwidth_Bps, lat = a.latency_s;
        if (a.host) {
            const training::HostSpec& h = spec_.hosts[u(*a.host)];
            if (!std::isinf(h.bandwidth_Bps) || h.latency_s > 0) {
                bw = h.bandwidth_Bps;
                lat = h.latency_s;
            }
        }
        const double tx = std::isinf(bw) ? 0.0 : bytes / bw;
        return spec_.message_overhead_s + std::max(tx, bytes * spec_.comm_cpu_s_per_byte) + 2 * lat;
    }

    /// `count` messages of `bytes` from node `from` to node `to` per step of worker `w`.
    void message(int w, int from, int to, double bytes, double count) {
        const End a = end(from, to, true), b = end(to, from, false);
        if (!a.dir.empty()) add(a.dir, ResourceKind::Link, w, count * bytes / a.bandwidth_Bps);
        if (!b.dir.empty()) add(b.dir, ResourceKind::Link, w, count * bytes / b.bandwidth_Bps);
        cpu(from, w, count * (spec_.message_overhead_s + bytes * spec_.comm_cpu_s_per_byte));
        cpu(to, w, count * bytes * spec_.comm_cpu_s_per_byte);
    }

    /// CPU work of `node` per step of worker `w`, counted on its host when it has finite cores.
    void cpu(int node, int w, double work_s) {
        const std::optional<int> h = nodes_[u(node)].host;
        if (h && std::isfinite(spec_.hosts[u(*h)].cores) && work_s > 0) {
            add(spec_.hosts[u(*h)].name, ResourceKind::HostCores, w, work_s,
                spec_.hosts[u(*h)].cores);
        }
    }

    void add(const std::string& name, ResourceKind kind, int w, double demand_s,
             double capacity = 1) {
        if (!(demand_s > 0)) return;
        auto [it, fresh] = index_.try_emplace(name, rows_.size());
        if (fresh) rows_.push_back({ResourceBound{name, kind, describe(name, kind), capacity}, {}});
        auto& entries = rows_[it->second].per_worker;
        if (!entries.empty() && entries.back().first == w) {
            entries.back().second += demand_s;
        } else {
            entries.emplace_back(w, demand_s);
        }
    }

    /// A resource and its demand per step of each worker that uses it (sparse: most resources
    /// serve one or two workers, and N may be large).
    struct Row {
        ResourceBound r;
        std::vector<std::pair<int, double>> per_worker;  // (worker, busy seconds per its step)
    };
    /// The rows, each worker at most once per row.
    std::vector<Row>& rows() {
        for (auto& row : rows_) {
            auto& e = row.per_worker;
            std::sort(e.begin(), e.end());
            std::vector<std::pair<int, double>> merged;
            for (const auto& x : e) {
                if (!merged.empty() && merged.back().first == x.first) {
                    merged.back().second += x.second;
                } else {
                    merged.push_back(x);
                }
            }
            e = std::move(merged);
        }
        return rows_;
    }

  private:
    struct Node {
        std::string name;
        double bandwidth_Bps;
        double latency_s;
        std::optional<int> host;
    };
    static std::string describe(const std::string& name, ResourceKind kind) {
        switch (kind) {
            case ResourceKind::Compute:
                return name + "'s compute and update";
            case ResourceKind::Server:
                return "server " + name + "'s updates";
            case ResourceKind::HostCores:
                return "host " + name + "'s cores";
            case ResourceKind::Link:
                break;
        }
        const bool up = name.size() > 3 && name.substr(name.size() - 3) == ".up";
        const std::string node = name.substr(0, name.rfind('.'));
        return node + "'s NIC (" + (up ? "uplink" : "downlink") + ")";
    }
    const TrainingSpec& spec_;
    int n_;
    std::vector<Node> nodes_;
    std::map<std::string, std::size_t> index_;
    std::vector<Row> rows_;
};

/// Mean compute (forward + backward, divided by speed) of a worker.
double compute_mean(const training::WorkerSpec& w) {
    if (w.compute) return net::mean(*w.compute) / w.speed;
    double sum = 0;
    for (const auto& l : w.layers) sum += net::mean(l.fwd) + net::mean(l.bwd);
    return sum / w.speed;
}

double compute_variance(const training::WorkerSpec& w) {
    if (w.compute) return net::variance(*w.compute) / (w.speed * w.speed);
    double sum = 0;
    for (const auto& l : w.layers) sum += net::variance(l.fwd) + net::variance(l.bwd);
    return sum / (w.speed * w.speed);
}

double forward_mean(const training::WorkerSpec& w) {
    double sum = 0;
    for (const auto& l : w.layers) sum += net::mean(l.fwd);
    return sum / w.speed;
}

/// The bytes of one step's gradients: the layers' for fine, else model_bytes.
double step_bytes(const TrainingSpec& spec) {
    if (spec.granularity == training::Granularity::Coarse) return spec.model_bytes;
    double sum = 0;
    for (const auto& l : spec.workers.front().layers) sum += l.bytes;
    return sum;
}

/// The buckets' bytes of one step (coarse: one bucket of model_bytes).
std::vector<double> bucket_bytes(const TrainingSpec& spec) {
    if (spec.granularity == training::Granularity::Coarse) return {spec.model_bytes};
    std::vector<double> out;
    for (const auto& b : training::make_buckets(spec.workers.front().layers,
                                                spec.first_bucket_bytes, spec.bucket_bytes))
        out.push_back(b.bytes);
    return out;
}

/// The ring neighbours a gossiping worker picks from.
std::vector<int> gossip_neighbours(int i, int n) {
    std::vector<int> out;
    for (int x : {(i + n - 1) % n, (i + 1) % n})
        if (x != i && std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
    return out;
}

/// Every message of a step, per worker step, into `d`.
void add_traffic(const TrainingSpec& spec, Demands& d) {
    const int n = int(spec.workers.size()), k = int(spec.servers.size());
    const double bytes = step_bytes(spec);
    switch (spec.sync) {
        case SyncKind::AllreduceRing:
            if (n < 2) return;
            for (double b : bucket_bytes(spec))
                for (int j = 0; j < n; ++j) d.message(j, j, (j + 1) % n, b / n, 2.0 * (n - 1));
            return;
        case SyncKind::AllreduceTree:
            for (double b : bucket_bytes(spec))
                for (int j = 1; j < n; ++j) {
                    d.message(j, j, (j - 1) / 2, b, 1);
                    d.message(j, (j - 1) / 2, j, b, 1);
                }
            return;
        case SyncKind::Gossip:
            for (int j = 0; j < n; ++j) {
                const std::vector<int> nb = gossip_neighbours(j, n);
                for (int x : nb) {
                    d.message(j, j, x, spec.model_bytes, 1.0 / double(nb.size()));
                    d.message(j, x, j, spec.model_bytes, 1.0 / double(nb.size()));
                }
            }
            return;
        default:
            for (int j = 0; j < n; ++j)
                for (int s = 0; s < k; ++s) {
                    d.message(j, j, d.server_node(s), bytes / k, 1);
                    d.message(j, d.server_node(s), j, bytes / k, 1);
                }
            return;
    }
}

double overlap_cut(const TrainingSpec& spec, const Demands& d, int i);

/// Work of the workers and the shards per worker step, into `d`. A fine shard's update is
/// split over its messages by bytes; each shard is charged its even share of the model (a
/// lower bound of the busiest shard's share).
void add_work(const TrainingSpec& spec, Demands& d) {
    const int n = int(spec.workers.size()), k = int(spec.servers.size());
    for (int j = 0; j < n; ++j) {
        const auto& w = spec.workers[u(j)];
        // A parameter-server worker's update may run beside the heuristic's backward tail h.
        const double h = training::parameter_server(spec.sync) ? overlap_cut(spec, d, j) : 0.0;
        const double work = compute_mean(w) + std::max(0.0, net::mean(w.update) - h);
        d.add(w.name, ResourceKind::Compute, j, work);
        d.cpu(j, j, work);
    }
    if (!training::parameter_server(spec.sync)) return;
    const bool fine = spec.granularity == training::Granularity::Fine;
    for (int s = 0; s < k; ++s) {
        const auto& sv = spec.servers[u(s)];
        const double per_update = net::mean(sv.update) * (fine ? 1.0 / k : 1.0);
        for (int j = 0; j < n; ++j) {
            // ps_sync: one update per step of all workers, charged 1/N to each worker step.
            const double work = spec.sync == SyncKind::PsSync ? per_update / n : per_update;
            d.add(sv.name, ResourceKind::Server, j, work);
            d.cpu(d.server_node(s), j, work);
        }
    }
}

/// A lower bound of E[min_i X_i], X_i the workers' compute-and-update times of one step (not
/// below 0). Identically distributed: μ − σ(n−1)/√(2n−1) (Hartley and David 1954, the bound on
/// the expected maximum of n i.i.d. variables, mirrored); otherwise min_i μ_i − √(Σ_i Var X_i),
/// as max_i Z_i ≤ √(Σ_i Z_i²) for the shortfalls Z_i = (μ_i − X_i)⁺.
double earliest_work(const TrainingSpec& spec) {
    double least = kNoBound, var = 0;
    bool identical = true;
    const auto& first = spec.workers.front();
    for (const auto& w : spec.workers) {
        least = std::min(least, compute_mean(w) + net::mean(w.update));
        var += compute_variance(w) + net::variance(w.update);
        bool same_layers = w.layers.size() == first.layers.size();
        for (std::size_t k = 0; same_layers && k < w.layers.size(); ++k)
            same_layers =
                w.layers[k].fwd == first.layers[k].fwd && w.layers[k].bwd == first.layers[k].bwd;
        identical = identical && w.compute == first.compute && same_layers &&
                    w.update == first.update && w.speed == first.speed;
    }
    const double n = double(spec.workers.size());
    const double spread =
        identical ? std::sqrt(var / n) * (n - 1) / std::sqrt(2 * n - 1) : std::sqrt(var);
    return std::max(0.0, least - spread);
}

double overlap_cut(const TrainingSpec& spec, const Demands& d, int i) {
    const auto& w = spec.workers[u(i)];
    const double c = compute_mean(w);
    if (spec.granularity == training::Granularity::Fine || !(spec.overlap_fraction > 0) || !(c > 0))
        return 0;
    const int n = int(spec.workers.size());
    const double bytes = spec.model_bytes;
    double comm = 0;
    switch (spec.sync) {
        case SyncKind::AllreduceRing:
            comm = n < 2 ? 0 : 2.0 * (n - 1) * d.message_time(i, (i + 1) % n, bytes / n);
            break;
        case SyncKind::AllreduceTree:
            comm = 2.0 * std::floor(std::log2(double(n))) * d.remote_time(i, bytes);
            break;
        case SyncKind::Gossip:
            comm = n < 2 ? 0 : d.remote_time(i, bytes);
            break;
        default:
            comm = 2.0 * d.message_time(i, d.server_node(0), bytes);
            break;
    }
    return training::backward_tail_work(spec, i, c, comm);
}

/// Per worker: the part of its compute that precedes its first message of a step (compute − h),
/// plus its update for the parameter-server schemes (there the update runs before the pushes).
std::vector<double> heads(const TrainingSpec& spec, const Demands& d) {
    std::vector<double> out;
    const bool ps = training::parameter_server(spec.sync);
    for (int i = 0; i < int(spec.workers.size()); ++i) {
        const auto& w = spec.workers[u(i)];
        out.push_back(compute_mean(w) - overlap_cut(spec, d, i) + (ps ? net::mean(w.update) : 0));
    }
    return out;
}

double least(const std::vector<double>& v) {
    return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
}

/// The all-reduces' critical path: a chunk of round r reaches worker j from j−1 after round
/// r−1 reached j−1, so the last arrival of a bucket at j follows 2(N−1) messages in sequence
/// (tree: 2·depth, up to the root and back) from one worker's gradient being ready.
double allreduce_path(const TrainingSpec& spec, const Demands& d, std::string& what) {
    const int n = int(spec.workers.size());
    if (n < 2) return 0;
    const bool ring = spec.sync == SyncKind::AllreduceRing;
    const double hops = ring ? 2.0 * (n - 1) : 2.0 * std::floor(std::log2(double(n)));
    std::vector<double> fwd, comp, upd;
    for (const auto& w : spec.workers) {
        fwd.push_back(forward_mean(w));
        comp.push_back(compute_mean(w));
        upd.push_back(net::mean(w.update));
    }
    std::vector<double> chain;  // per bucket: `hops` messages of its chunk
    for (double b : bucket_bytes(spec)) {
        double m = kNoBound;
        for (int j = ring ? 0 : 1; j < n; ++j) {
            m = std::min(m, ring ? d.message_time(j, (j + 1) % n, b / n)
                                 : std::min(d.message_time(j, (j - 1) / 2, b),
                                            d.message_time((j - 1) / 2, j, b)));
        }
        chain.push_back(hops * m);
    }
    what = ring ? "compute, 2(N-1) ring rounds in sequence, update"
                : "compute, the reduce up the tree and the broadcast down, update";
    if (spec.granularity == training::Granularity::Coarse)
        return least(heads(spec, d)) + chain.front() + least(upd);
    double sum = 0, longest = 0;
    for (double c : chain) {
        sum += c;
        longest = std::max(longest, c);
    }
    const double all = ring ? sum : longest;  // ring buckets go one after the other
    if (!spec.overlap) return least(comp) + all + least(upd);
    return std::max(least(fwd) + all, least(comp) + chain.back()) + least(upd);
}

/// Messages that start together on a direction also end together: equal fair shares, no
/// per-message cost and no host whose cores could stagger their CPU work.
bool start_and_end_together(const TrainingSpec& spec) {
    return spec.sharing == training::SharingKind::Fair && spec.share_ratio == 1 &&
           spec.message_overhead_s == 0 && spec.comm_cpu_s_per_byte == 0 && spec.hosts.empty();
}

/// A parameter-server worker's own cycle through its NIC (coarse): all its pushes (the model,
/// split over the K shards) leave through its uplink after its compute, and all the replies
/// come back through its downlink. The last push ends S/bw_up after the compute at the
/// earliest, then that shard's update and reply; the first reply cannot start before the first
/// push arrived and was applied, and the last ends S/bw_down after it. Under equal fair sharing
/// without per-message costs the K pushes start together and none ends before S/bw_up, so the
/// two directions work one after the other.
double ps_worker_path(const TrainingSpec& spec, const Demands& d, int i, double head) {
    const int k = int(spec.servers.size());
    const double bytes = step_bytes(spec), chunk = bytes / k;
    double upd = kNoBound, push = kNoBound, pull = kNoBound, lat = kNoBound;
    double bw_up = kNoBound, bw_down = kNoBound;
    for (int s = 0; s < k; ++s) {
        const int sn = d.server_node(s);
        upd = std::min(upd, net::mean(spec.servers[u(s)].update));
        push = std::min(push, d.message_time(i, sn, chunk));
        pull = std::min(pull, d.message_time(sn, i, chunk));
        const End a = d.end(i, sn, true), b = d.end(i, sn, false);
        lat = std::min(lat, a.latency_s + d.end(sn, i, false).latency_s);
        lat = std::min(lat, b.latency_s + d.end(sn, i, true).latency_s);
        bw_up = std::min(bw_up, a.bandwidth_Bps);  // min: a lower bound of the uplink's time
        bw_down = std::min(bw_down, b.bandwidth_Bps);
    }
    const double o = spec.message_overhead_s;
    // With several directions (shards on the worker's host and elsewhere) the bytes split:
    // fall back to one chunk per direction.
    bool one_up = true, one_down = true;
    for (int s = 1; s < k; ++s) {
        one_up =
            one_up && d.end(i, d.server_node(s), true).dir == d.end(i, d.server_node(0), true).dir;
        one_down = one_down &&
                   d.end(i, d.server_node(s), false).dir == d.end(i, d.server_node(0), false).dir;
    }
    const double up = (one_up ? bytes : chunk) / bw_up, down = (one_down ? bytes : chunk) / bw_down;
    double path = std::max(head + o + up + lat + upd + pull, head + push + upd + o + down + lat);
    const bool together = start_and_end_together(spec) && one_up && one_down;
    if (together) path = std::max(path, head + up + lat + upd + down + lat);
    return path;
}

/// ps_sync's critical path per shard s, from the end of its update: its replies, a worker's
/// compute, the pushes, the next update. The replies all leave through s's uplink, so the last
/// ends N·(S/K)/bw after the update; under equal fair sharing with no per-message cost they start
/// together and none ends before that, and the pushes, none of which starts before the
/// earliest reply plus the earliest compute, need N·(S/K)/bw on s's downlink.
double ps_sync_path(const TrainingSpec& spec, const Demands& d, std::string& what) {
    const int n = int(spec.workers.size()), k = int(spec.servers.size());
    const double chunk = step_bytes(spec) / k;
    const std::vector<double> head = heads(spec, d);
    double best = 0;
    for (int s = 0; s < k; ++s) {
        const int sn = d.server_node(s);
        const double upd = net::mean(spec.servers[u(s)].update);
        double round = kNoBound, after_reply = kNoBound, lat_down = kNoBound, lat_up = kNoBound;
        bool one_up = true, one_down = true;
        const End up0 = d.end(sn, 0, true), down0 = d.end(sn, 0, false);
        for (int j = 0; j < n; ++j) {
            const double push = d.message_time(j, sn, chunk);
            round = std::min(round, d.message_time(sn, j, chunk) + head[u(j)] + push);
            after_reply = std::min(after_reply, head[u(j)] + push);
            lat_down =
                std::min(lat_down, d.end(sn, j, true).latency_s + d.end(j, sn, false).latency_s);
            lat_up = std::min(lat_up, d.end(j, sn, true).latency_s + d.end(sn, j, false).latency_s);
            one_up = one_up && d.end(sn, j, true).dir == up0.dir;
            one_down = one_down && d.end(sn, j, false).dir == down0.dir;
        }
        double path = upd + round;
        std::string path_what = "a shard's update, its replies, a worker's compute and its pushes";
        if (spec.granularity == training::Granularity::Coarse && one_up && !up0.dir.empty()) {
            const double replies = n * chunk / up0.bandwidth_Bps;
            path = std::max(path, upd + replies + lat_down + after_reply);
            const bool together =
                start_and_end_together(spec) && one_down && !down0.dir.empty();
            if (together) {
                bool cut = false;  // the heuristic's head: no moment bound of it is kept
                for (int j = 0; j < n; ++j) cut = cut || overlap_cut(spec, d, j) > 0;
                const double work = cut ? 0.0 : earliest_work(spec);
                const double both =
                    upd + replies + lat_down + work + n * chunk / down0.bandwidth_Bps + lat_up;
                if (both > path) {
                    path = both;
                    path_what = spec.servers[u(s)].name +
                                "'s NIC: all replies on its uplink, then all "
                                "pushes on its downlink (fair sharing), its update between";
                }
            }
        }
        if (path > best) {
            best = path;
            what = path_what;
        }
    }
    for (int j = 0; j < n; ++j) {
        const double path = ps_worker_path(spec, d, j, head[u(j)]);
        if (path > best) {
            best = path;
            what = spec.workers[u(j)].name +
                   "'s NIC: its pushes to every shard, then every shard's reply";
        }
    }
    return spec.granularity == training::Granularity::Coarse ? best : 0.0;
}

/// A worker's own step cycle in ps_async / ps_ssp / gossip: compute, its messages and the
/// shards' updates of its gradient, in sequence.
double own_cycle(const TrainingSpec& spec, const Demands& d, int i,
                 const std::vector<double>& head) {
    const auto& w = spec.workers[u(i)];
    const double h = training::parameter_server(spec.sync) ? overlap_cut(spec, d, i) : 0.0;
    const double work = compute_mean(w) + std::max(0.0, net::mean(w.update) - h);
    if (spec.granularity == training::Granularity::Fine && spec.sync != SyncKind::Gossip)
        return work;
    const int n = int(spec.workers.size());
    double comm = 0;
    if (spec.sync == SyncKind::Gossip) {
        if (n < 2) return work;
        comm = kNoBound;
        for (int x : gossip_neighbours(i, n))
            comm = std::min(comm, std::max(d.message_time(i, x, spec.model_bytes),
                                           d.message_time(x, i, spec.model_bytes)));
        return std::max(work, head[u(i)] + comm + net::mean(w.update));
    }
    const int k = int(spec.servers.size());
    for (int s = 0; s < k; ++s) {
        const int sn = d.server_node(s);
        const double chunk = spec.model_bytes / k;
        comm = std::max(comm, d.message_time(i, sn, chunk) + net::mean(spec.servers[u(s)].update) +
                                  d.message_time(sn, i, chunk));
    }
    return std::max({work, head[u(i)] + comm, ps_worker_path(spec, d, i, head[u(i)])});
}

/// The most a sum Σ x_w can be with x_w ≤ cap_w and Σ x_w·d_w ≤ capacity (fractional
/// knapsack: the workers with the least demand first). `per_worker` lists the workers with
/// d_w > 0; the others add their whole cap (`all_caps` is Σ cap_w over every worker).
double knapsack(std::vector<std::pair<int, double>> per_worker, const std::vector<double>& cap,
                double all_caps, double capacity) {
    std::sort(per_worker.begin(), per_worker.end(),
              [](const auto& a, const auto& b) { return a.second < b.second; });
    double total = all_caps, left = capacity;
    for (const auto& [j, d] : per_worker) {
        const double x = std::min(cap[u(j)], left / d);
        total += x - cap[u(j)];
        left -= x * d;
    }
    return total;
}

}  // namespace

double compute_mean_s(const training::WorkerSpec& w) { return compute_mean(w); }

Bounds training_bounds(const TrainingSpec& spec) {
    Bounds out;
    if (spec.workers.empty()) return out;
    const int n = int(spec.workers.size());
    out.sync = spec.sync == SyncKind::PsSync || spec.sync == SyncKind::AllreduceRing ||
               spec.sync == SyncKind::AllreduceTree;
    Demands d(spec);
    add_work(spec, d);
    add_traffic(spec, d);
    const std::vector<double> head = heads(spec, d);
    if (out.sync) {
        double own = 0;
        for (const auto& row : d.rows())
            if (row.r.kind == ResourceKind::Compute)
                for (const auto& x : row.per_worker) own = std::max(own, x.second);
        std::string what;
        double path = 0;
        if (spec.sync == SyncKind::PsSync) {
            what = "a shard's update, its replies, a worker's compute and its pushes";
            path = ps_sync_path(spec, d, what);
        } else {
            path = allreduce_path(spec, d, what);
        }
        out.cycle_s = std::max(own, path);
        double least_work = kNoBound, server = 0;
        for (const auto& w : spec.workers)
            least_work = std::min(least_work, compute_mean(w) + net::mean(w.update));
        if (spec.sync == SyncKind::PsSync)
            for (const auto& sv : spec.servers) server = std::max(server, net::mean(sv.update));
        out.exposed_comm_s.assign(u(n), std::max(0.0, path - least_work - server));
        out.cycle_what = path > own ? what : "the slowest worker's compute and update";
        out.cycle_bound = out.cycle_s > 0 ? 1.0 / out.cycle_s : kNoBound;
        for (auto& row : d.rows()) {
            for (const auto& x : row.per_worker) row.r.demand_s += x.second;
            row.r.bound = row.r.capacity / row.r.demand_s;
            out.resources.push_back(row.r);
        }
    } else {
        std::vector<double> cap(u(n));
        out.cycle_bound = 0;
        double slowest = 0;
        for (int j = 0; j < n; ++j) {
            const double c = own_cycle(spec, d, j, head);
            double server = 0;
            for (const auto& sv : spec.servers) server = std::max(server, net::mean(sv.update));
            const auto& w = spec.workers[u(j)];
            out.exposed_comm_s.push_back(
                std::max(0.0, c - compute_mean(w) - net::mean(w.update) - server));
            slowest = std::max(slowest, c);
            out.cycle_bound += c > 0 ? 1.0 / c : kNoBound;
        }
        // A worker's rate is at most what each resource allows it alone (the cycle is a bound
        // of its own, kept out of the resources' bounds).
        std::fill(cap.begin(), cap.end(), kNoBound);
        for (const auto& row : d.rows())
            for (const auto& [j, x] : row.per_worker)
                cap[u(j)] = std::min(cap[u(j)], row.r.capacity / x);
        double all_caps = 0;
        for (double c : cap) all_caps += c;
        out.cycle_s = slowest;
        out.cycle_what = "each worker's own step: compute, its messages and updates in sequence";
        for (auto& row : d.rows()) {
            for (const auto& x : row.per_worker) row.r.demand_s += x.second / n;
            row.r.bound = knapsack(row.per_worker, cap, all_caps, row.r.capacity);
            out.resources.push_back(row.r);
        }
    }
    std::stable_sort(
        out.resources.begin(), out.resources.end(),
        [](const ResourceBound& a, const ResourceBound& b) { return a.bound < b.bound; });
    out.bound = out.cycle_bound;
    out.binding = "cycle";
    if (!out.resources.empty() && out.resources.front().bound < out.bound) {
        out.bound = out.resources.front().bound;
        out.binding = out.resources.front().name;
    }
    return out;
}

}  // namespace sgdnet::explain
