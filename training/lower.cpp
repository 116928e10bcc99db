// lower_training_spec(): every coordination scheme of LANGUAGE.md §5.2, fine and coarse, as a net.
//
// Net shapes (names as they appear in `--emit net`; W = a worker name such as `w[3]`):
// - coarse worker: `W.compute` (compute / speed) fires once per step; fine worker: the chain
//   `W.fwd.L0 … W.fwd.Ln`, then `W.bwd.*` in gradient-ready order; its first forward starts the
//   step. The coarse chain is the fine chain reduced: a chain of timed transitions whose only
//   interaction is through the chain places merges into one transition whose delay is the sum
//   of theirs (exact, since nothing else reads the intermediate places) — see docs/training.md.
// - messages: lower_training_builder.cpp (§5.1).
// - schemes: one function each below, with their dependencies documented there.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "training/builder.hpp"
#include "training/ddp_buckets.hpp"
#include "training/training_spec.hpp"

namespace sgdnet::compiler {

namespace {

using namespace training;
using net::Measure;

std::vector<Arc> operator+(std::vector<Arc> a, const std::vector<Arc>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}
Arc arc(PlaceId p, uint32_t m = 1) { return Arc{p, m}; }

bool sync_scheme(SyncKind k) {
    return k == SyncKind::PsSync || k == SyncKind::AllreduceRing ||
           k == SyncKind::AllreduceTree;
}
/// Fine parameter-server messages fuse consecutive tensors up to this size (4 MiB, close to the
/// 4 MB partitions of MXNet/BytePS parameter servers).
constexpr double kPsFusionBytes = 4.0 * 1024.0 * 1024.0;

/// Tensor fusion of fine parameter-server messages (not DDP's rule): layers in gradient-ready
/// order join the current message while it stays within `cap`; a layer that does not fit starts
/// the next one, so a layer larger than the cap travels alone.
std::vector<Bucket> fuse_tensors(const std::vector<LayerSpec>& layers, double cap) {
    std::vector<Bucket> out;
    Bucket current;
    for (int k : gradient_ready_order(layers)) {
        const double bytes = layers[static_cast<std::size_t>(k)].bytes;
        if (!current.layers.empty() && current.bytes > 0 && current.bytes + bytes > cap) {
            out.push_back(std::move(current));
            current = Bucket{};
        }
        current.layers.push_back(k);
        current.bytes += bytes;
    }
    if (!current.layers.empty()) out.push_back(std::move(current));
    return out;
}

bool ps_scheme(SyncKind k) {
    return k == SyncKind::PsSync || k == SyncKind::PsAsync || k == SyncKind::PsSsp;
}

class Lowering {
public:
    Lowering(const TrainingSpec& spec, net::PetriNet& out)
        : spec_(spec), b_(out), n_(static_cast<int>(spec.workers.size())),
          k_(static_cast<int>(spec.servers.size())),
          fine_(spec.granularity == GranularityKind::Fine),
          mode_(spec.sharing == SharingKind::Fair ? DirMode::Fair : DirMode::Fifo) {}

    void run() {
        for (const auto& w : spec_.workers) {
            wnode_.push_back(b_.add_node({w.name, w.bandwidth_Bps, w.latency_s}));
        }
        for (const auto& s : spec_.servers) {
            snode_.push_back(b_.add_node({s.name, s.bandwidth_Bps, s.latency_s}));
        }
        step_.resize(static_cast<std::size_t>(n_));
        wbusy_.resize(static_cast<std::size_t>(n_));
        sbusy_.resize(static_cast<std::size_t>(k_));
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

private:
    const WorkerSpec& worker(int i) const { return spec_.workers[static_cast<std::size_t>(i)]; }
    const ServerSpec& server(int s) const { return spec_.servers[static_cast<std::size_t>(s)]; }
    const std::string& wn(int i) const { return worker(i).name; }
    const std::string& sn(int s) const { return server(s).name; }
    std::size_t u(int i) const { return static_cast<std::size_t>(i); }

    /// The worker's coarse compute distribution (its own, or the sum of its layers), slowed.
    net::Distribution coarse_compute_dist(int i) const {
        const WorkerSpec& w = worker(i);
        if (w.compute) return slowed(*w.compute, w.speed);
        std::vector<net::Distribution> parts;
        for (const auto& l : w.layers) parts.push_back(l.fwd);
        for (const auto& l : w.layers) parts.push_back(l.bwd);
        return slowed(sum_of(parts), w.speed);
    }

    /// Estimated time of one step's communication alone on the links, for the coarse overlap
    /// heuristic (docs/training.md): ring 2(N−1)(S/(N·bw) + L), tree 2·depth·(S/bw + L),
    /// parameter server 2(S/bw + L), gossip S/bw + L; bw, L of the worker and its peer.
    double comm_estimate(int i) const {
        const WorkerSpec& w = worker(i);
        const double s = spec_.model_bytes;
        auto time = [&](double bytes, double bw1, double bw2) {
            const double bw = std::min(bw1, bw2);
            return std::isinf(bw) ? 0.0 : bytes / bw;
        };
        switch (spec_.sync) {
            case SyncKind::AllreduceRing: {
                if (n_ < 2) return 0;
                const WorkerSpec& next = worker((i + 1) % n_);
                return 2.0 * (n_ - 1) *
                       (time(s / n_, w.bandwidth_Bps, next.bandwidth_Bps) + w.latency_s +
                        next.latency_s);
            }
            case SyncKind::AllreduceTree: {
                const double depth = std::floor(std::log2(static_cast<double>(n_)));
                return 2.0 * depth * (time(s, w.bandwidth_Bps, w.bandwidth_Bps) + 2 * w.latency_s);
            }
            case SyncKind::Gossip:
                return n_ < 2 ? 0 : time(s, w.bandwidth_Bps, w.bandwidth_Bps) + 2 * w.latency_s;
            default: {
                const ServerSpec& ps = server(0);
                return 2.0 * (time(s, w.bandwidth_Bps, ps.bandwidth_Bps) + w.latency_s +
                              ps.latency_s);
            }
        }
    }

    /// Coarse compute of worker i: `W.compute` consuming `in`, producing `out` (the start of
    /// communication). With the overlap fraction φ > 0 the last h = min(φ·comm, backward) of the
    /// compute runs as `W.backward_tail` beside the communication; the returned place (initially
    /// `tail_initial` tokens) receives a token when it ends and must be consumed by the step end.
    std::optional<PlaceId> coarse_compute(int i, std::vector<Arc> in, std::vector<Arc> out,
                                          uint32_t tail_initial) {
        const WorkerSpec& w = worker(i);
        net::Distribution c = coarse_compute_dist(i);
        const double mean_c = net::mean(c);
        double h = 0;
        if (spec_.overlap_fraction > 0 && mean_c > 0) {
            double bwd = 0;
            for (const auto& l : w.layers) bwd += net::mean(l.bwd) / w.speed;
            if (w.layers.empty() || w.compute) bwd = mean_c * 2.0 / 3.0;
            h = std::min(spec_.overlap_fraction * comm_estimate(i), bwd);
            h = std::min(h, mean_c);
        }
        std::optional<PlaceId> tail;
        if (h > 0) {
            c = scaled(c, (mean_c - h) / mean_c);
            PlaceId pending = b_.place(w.name + ".backward_tail.pending");
            tail = b_.place(w.name + ".backward_tail.done", tail_initial);
            TransitionId t = b_.timed(w.name + ".backward_tail", {net::Det{h}}, {arc(pending)},
                                      {arc(*tail)});
            wbusy_[u(i)].push_back({t, h});
            out.push_back(arc(pending));
        }
        TransitionId t = b_.step(w.name + ".compute", c, std::move(in), std::move(out));
        step_[u(i)] = t;
        if (!is_zero(c)) wbusy_[u(i)].push_back({t, net::mean(c)});
        return tail;
    }

    /// Fine compute of worker i: forward chain in layer order, backward chain in gradient-ready
    /// order. `start_in` gates the first forward, `fwd_gate[k]` the forward of layer k;
    /// `first_out` is produced by the first forward (the step start), `bwd_out[k]` by the
    /// backward of layer k, `last_out` by the last backward.
    void fine_compute(int i, std::vector<Arc> start_in, const std::vector<std::vector<Arc>>& fwd_gate,
                      std::vector<Arc> first_out, const std::vector<std::vector<Arc>>& bwd_out,
                      std::vector<Arc> last_out) {
        const WorkerSpec& w = worker(i);
        const auto& layers = w.layers;
        const int nl = static_cast<int>(layers.size());
        std::vector<int> order = gradient_ready_order(layers);
        std::vector<Arc> in = std::move(start_in);
        auto add = [&](const std::string& name, const net::Distribution& d0, std::vector<Arc> out,
                       bool first) {
            net::Distribution d = slowed(d0, w.speed);
            TransitionId t = b_.step(name, d, std::move(in), std::move(out));
            if (first) step_[u(i)] = t;
            if (!is_zero(d)) wbusy_[u(i)].push_back({t, net::mean(d)});
        };
        for (int k = 0; k < nl; ++k) {
            const LayerSpec& l = layers[u(k)];
            in = in + fwd_gate[u(k)];
            PlaceId done = b_.place(w.name + ".fwd." + l.name + ".done");
            std::vector<Arc> out{arc(done)};
            if (k == 0) out = out + first_out;
            add(w.name + ".fwd." + l.name, l.fwd, std::move(out), k == 0);
            in = {arc(done)};
        }
        for (int m = 0; m < nl; ++m) {
            const int k = order[u(m)];
            const LayerSpec& l = layers[u(k)];
            std::vector<Arc> out = bwd_out[u(k)];
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

    /// The worker's local `update`, consuming `in` and producing `W.ready`'s token in `out`.
    void worker_update(int i, std::vector<Arc> in, std::vector<Arc> out) {
        const WorkerSpec& w = worker(i);
        TransitionId t = b_.step(w.name + ".update", w.update, std::move(in), std::move(out));
        if (!is_zero(w.update)) wbusy_[u(i)].push_back({t, net::mean(w.update)});
    }

    /// Buckets of one step: coarse one bucket of model_bytes; fine DDP buckets of worker 0's
    /// layers (every worker holds the same model).
    std::vector<Bucket> step_buckets() const {
        if (!fine_) return {Bucket{{}, spec_.model_bytes}};
        return make_buckets(worker(0).layers, spec_.first_bucket_bytes, spec_.bucket_bytes);
    }

    /// Per-layer outputs of the fine backward that make bucket `bk` ready: the backward of its
    /// last layer (all of its layers are done then, the chain being sequential), or the last
    /// backward of all when `overlap` is false.
    void bucket_ready_arcs(const std::vector<Bucket>& buckets,
                           const std::vector<PlaceId>& ready, std::vector<std::vector<Arc>>& bwd_out,
                           std::vector<Arc>& last_out) const {
        for (std::size_t bk = 0; bk < buckets.size(); ++bk) {
            if (spec_.overlap) {
                bwd_out[u(buckets[bk].layers.back())].push_back(arc(ready[bk]));
            } else {
                last_out.push_back(arc(ready[bk]));
            }
        }
    }

    std::string bucket_prefix(const std::string& scheme, std::size_t bk) const {
        return fine_ ? scheme + ".bucket" + std::to_string(bk) : scheme;
    }

    // ---- allreduce_ring ----------------------------------------------------------------
    // Worker j's round r of bucket b sends bytes_b/N to worker j+1. It starts when (a) j's own
    // round r−1 transmission has ended (a NIC sends one ring chunk after the other, so every ring
    // direction carries one message at a time: mode Exclusive, sharing is moot) and (b) round
    // r−1 of worker j−1 has arrived at j. Round 0 of bucket b needs the bucket ready and, for
    // b > 0, bucket b−1 reduced at j (all its chunks arrived, all of j's sent). The update
    // follows the last bucket: own last send done and last arrival.
    //
    // The 2(N−1) rounds are folded into one transmission per worker and bucket, fired once per
    // round, so the net has O(N·buckets) elements instead of O(N²·buckets): per worker j and
    // bucket (prefix P = `ring` or `ring.bucketB`)
    //   P.w[j].queued   chunks j may forward: 1 at the bucket's start, +1 per arrival;
    //   P.w[j].todo     sends left: 2(N−1) at the bucket's start;
    //   P.w[j].arrived  chunks arrived at j;
    //   w[j].ring.nic   j's NIC is not sending (one chunk at a time, buckets in order);
    //   P.w[j]          transmission ~ det(bytes_b/(N·bw)): takes a queued chunk, a todo and the
    //                   NIC, gives the NIC back, and after the latency delivers a queued chunk
    //                   and an arrival to j+1;
    //   P.w[j].begin    immediate: bucket ready (and, b > 0, bucket b−1 done) → queued, todo;
    //   P.w[j].end      immediate: 2(N−1) arrivals, the last queued chunk, no todo left → done.
    // Round r of j needs r earlier arrivals (r+1 queued chunks minus the r already sent), and
    // j−1's chunks arrive in order (sequential transmissions, equal deterministic latency), so
    // the folded net fires exactly the unrolled one's rounds at the same times.
    void ring() {
        const std::vector<Bucket> buckets = step_buckets();
        const int nb = static_cast<int>(buckets.size());
        const int rounds = n_ >= 2 ? 2 * (n_ - 1) : 0;
        if (rounds == 0) {
            ring_single(buckets);
            return;
        }
        const auto r_arcs = static_cast<uint32_t>(rounds);
        auto prefix = [&](int bk, int j) { return bucket_prefix("ring", u(bk)) + "." + wn(j); };
        std::vector<PlaceId> nic;
        std::vector<std::vector<PlaceId>> queued(u(nb)), todo(u(nb)), arrived(u(nb)), done(u(nb));
        for (int j = 0; j < n_; ++j) nic.push_back(b_.place(wn(j) + ".ring.nic"));
        for (int bk = 0; bk < nb; ++bk) {
            for (int j = 0; j < n_; ++j) {
                queued[u(bk)].push_back(b_.place(prefix(bk, j) + ".queued"));
                todo[u(bk)].push_back(b_.place(prefix(bk, j) + ".todo"));
                arrived[u(bk)].push_back(b_.place(prefix(bk, j) + ".arrived"));
                done[u(bk)].push_back(b_.place(prefix(bk, j) + ".done"));
            }
        }
        for (int j = 0; j < n_; ++j) {
            const int next = (j + 1) % n_;
            PlaceId ready = b_.place(wn(j) + ".ready", 1);
            std::vector<PlaceId> bucket_ready;
            for (int bk = 0; bk < nb; ++bk) {
                bucket_ready.push_back(
                    b_.place(wn(j) + (fine_ ? ".bucket" + std::to_string(bk) : ".grad") + ".ready"));
            }
            for (int bk = 0; bk < nb; ++bk) {
                std::vector<Arc> in{arc(bucket_ready[u(bk)])};
                if (bk > 0) in.push_back(arc(done[u(bk - 1)][u(j)]));
                b_.immediate(prefix(bk, j) + ".begin", std::move(in),
                             {arc(queued[u(bk)][u(j)]), arc(todo[u(bk)][u(j)], r_arcs)});
                MessageSpec m;
                m.name = prefix(bk, j);
                m.from = wnode_[u(j)];
                m.to = wnode_[u(next)];
                m.bytes = buckets[u(bk)].bytes / n_;
                m.mode = DirMode::Exclusive;
                m.queue = queued[u(bk)][u(j)];
                m.start_inputs = {arc(todo[u(bk)][u(j)]), arc(nic[u(j)])};
                m.tx_done = {arc(nic[u(j)])};
                m.deliver = {arc(queued[u(bk)][u(next)]), arc(arrived[u(bk)][u(next)])};
                b_.message(m);
                TransitionId end = b_.immediate(
                    prefix(bk, j) + ".end",
                    {arc(arrived[u(bk)][u(j)], r_arcs), arc(queued[u(bk)][u(j)])},
                    {arc(done[u(bk)][u(j)])});
                b_.transition(end).inhibitors.push_back(arc(todo[u(bk)][u(j)]));
            }
            // The step start hands j's NIC to the ring; the update takes it back once the last
            // chunk is sent and the last bucket is done.
            std::vector<Arc> update_in{arc(done[u(nb - 1)][u(j)]), arc(nic[u(j)])};
            if (fine_) {
                std::vector<std::vector<Arc>> gate(worker(j).layers.size());
                std::vector<std::vector<Arc>> bwd_out(worker(j).layers.size());
                std::vector<Arc> last_out;
                bucket_ready_arcs(buckets, bucket_ready, bwd_out, last_out);
                fine_compute(j, {arc(ready)}, gate, {arc(nic[u(j)])}, bwd_out, last_out);
            } else {
                auto tail = coarse_compute(j, {arc(ready)},
                                           {arc(nic[u(j)]), arc(bucket_ready[0])}, 0);
                if (tail) update_in.push_back(arc(*tail));
            }
            worker_update(j, update_in, {arc(ready)});
        }
    }

    /// A ring of one worker: nothing to reduce; the update follows the compute (and, fine,
    /// collects the buckets the backward made ready).
    void ring_single(const std::vector<Bucket>& buckets) {
        for (int j = 0; j < n_; ++j) {
            PlaceId ready = b_.place(wn(j) + ".ready", 1);
            PlaceId sent = b_.place(wn(j) + ".ring.sent");
            std::vector<Arc> update_in{arc(sent)};
            if (fine_) {
                std::vector<PlaceId> bucket_ready;
                for (std::size_t bk = 0; bk < buckets.size(); ++bk) {
                    bucket_ready.push_back(
                        b_.place(wn(j) + ".bucket" + std::to_string(bk) + ".ready"));
                    update_in.push_back(arc(bucket_ready.back()));
                }
                std::vector<std::vector<Arc>> gate(worker(j).layers.size());
                std::vector<std::vector<Arc>> bwd_out(worker(j).layers.size());
                std::vector<Arc> last_out;
                bucket_ready_arcs(buckets, bucket_ready, bwd_out, last_out);
                fine_compute(j, {arc(ready)}, gate, {arc(sent)}, bwd_out, last_out);
                worker_update(j, update_in, {arc(ready)});
            } else {
                auto tail = coarse_compute(j, {arc(ready)}, {arc(sent)}, 0);
                if (tail) update_in.push_back(arc(*tail));
                worker_update(j, update_in, {arc(ready)});
            }
        }
    }

    // ---- allreduce_tree ----------------------------------------------------------------
    // Binary tree rooted at worker 0 (children of j: 2j+1, 2j+2). For each bucket, node j > 0
    // sends its reduced gradient to its parent once its own gradient is ready and both children's
    // have arrived (and, for b > 0, its bucket b−1 reduce transmission has ended: buckets in
    // order); the root, once it has its children's, broadcasts down; a node forwards the
    // broadcast to its children on arrival. A worker updates when every bucket came back.
    void tree() {
        const std::vector<Bucket> buckets = step_buckets();
        const int nb = static_cast<int>(buckets.size());
        auto parent = [](int j) { return (j - 1) / 2; };
        auto children = [&](int j) {
            std::vector<int> c;
            for (int x : {2 * j + 1, 2 * j + 2}) {
                if (x < n_) c.push_back(x);
            }
            return c;
        };
        std::vector<PlaceId> ready(u(n_)), done(u(n_));
        std::vector<std::vector<PlaceId>> bucket_ready(u(n_));
        for (int j = 0; j < n_; ++j) {
            ready[u(j)] = b_.place(wn(j) + ".ready", 1);
            done[u(j)] = b_.place(wn(j) + ".tree.done");
            if (fine_) {
                for (int bk = 0; bk < nb; ++bk) {
                    bucket_ready[u(j)].push_back(
                        b_.place(wn(j) + ".bucket" + std::to_string(bk) + ".ready"));
                }
            }
        }
        // up_arrived[bk][j]: node j's reduced gradient of bucket bk arrived at its parent.
        std::vector<std::vector<PlaceId>> up_arrived(u(nb), std::vector<PlaceId>(u(n_)));
        for (int bk = 0; bk < nb; ++bk) {
            for (int j = 1; j < n_; ++j) {
                up_arrived[u(bk)][u(j)] =
                    b_.place(bucket_prefix("tree", u(bk)) + ".reduce." + wn(j) + ".arrived");
            }
        }
        // Broadcast messages bottom-up: the delivery of j's broadcast starts its children's.
        std::vector<std::vector<std::vector<Arc>>> bcast_start(u(nb),
                                                               std::vector<std::vector<Arc>>(u(n_)));
        for (int bk = 0; bk < nb; ++bk) {
            for (int j = n_ - 1; j >= 1; --j) {
                MessageSpec m;
                m.name = bucket_prefix("tree", u(bk)) + ".bcast." + wn(j);
                m.from = wnode_[u(parent(j))];
                m.to = wnode_[u(j)];
                m.bytes = buckets[u(bk)].bytes;
                m.mode = mode_;
                m.deliver = {arc(done[u(j)])};
                for (int c : children(j)) m.deliver = m.deliver + bcast_start[u(bk)][u(c)];
                bcast_start[u(bk)][u(j)] = b_.message(m);
            }
        }
        for (int j = 0; j < n_; ++j) {
            std::vector<Arc> first_start;
            // Reverse bucket order so each reduce knows its successor's start arcs.
            std::vector<Arc> next_start;
            for (int bk = nb - 1; bk >= 0; --bk) {
                std::vector<Arc> cond;
                if (fine_) cond.push_back(arc(bucket_ready[u(j)][u(bk)]));
                for (int c : children(j)) cond.push_back(arc(up_arrived[u(bk)][u(c)]));
                if (j == 0) {
                    PlaceId turn = b_.place(bucket_prefix("tree", u(bk)) + ".root.turn");
                    std::vector<Arc> out{arc(done[0])};
                    for (int c : children(0)) out = out + bcast_start[u(bk)][u(c)];
                    out = out + next_start;
                    b_.immediate(bucket_prefix("tree", u(bk)) + ".root", cond + std::vector<Arc>{arc(turn)},
                                 out);
                    next_start = {arc(turn)};
                } else {
                    MessageSpec m;
                    m.name = bucket_prefix("tree", u(bk)) + ".reduce." + wn(j);
                    m.from = wnode_[u(j)];
                    m.to = wnode_[u(parent(j))];
                    m.bytes = buckets[u(bk)].bytes;
                    m.mode = mode_;
                    m.start_inputs = cond;
                    m.tx_done = next_start;
                    m.deliver = {arc(up_arrived[u(bk)][u(j)])};
                    next_start = b_.message(m);
                }
            }
            first_start = next_start;
            std::vector<Arc> update_in{arc(done[u(j)], static_cast<uint32_t>(nb))};
            if (fine_) {
                std::vector<std::vector<Arc>> gate(worker(j).layers.size());
                std::vector<std::vector<Arc>> bwd_out(worker(j).layers.size());
                std::vector<Arc> last_out;
                bucket_ready_arcs(buckets, bucket_ready[u(j)], bwd_out, last_out);
                fine_compute(j, {arc(ready[u(j)])}, gate, first_start, bwd_out, last_out);
            } else {
                auto tail = coarse_compute(j, {arc(ready[u(j)])}, first_start, 0);
                if (tail) update_in.push_back(arc(*tail));
            }
            worker_update(j, update_in, {arc(ready[u(j)])});
        }
    }

    // ---- gossip ------------------------------------------------------------------------
    // After its compute, worker i picks one of its ring neighbours uniformly (immediates
    // `W.pick.NEIGHBOUR`, weight 1 each), sends its model to it and receives the neighbour's
    // (`gossip.W.send.NEIGHBOUR`, `gossip.W.recv.NEIGHBOUR`, model_bytes each, concurrently; the
    // neighbour's NIC serves them whatever it is doing), then averages (`W.update`).
    void gossip() {
        for (int i = 0; i < n_; ++i) {
            PlaceId ready = b_.place(wn(i) + ".ready", 1);
            PlaceId exchanged = b_.place(wn(i) + ".gossip.done");
            std::vector<int> nbrs;
            for (int x : {(i + n_ - 1) % n_, (i + 1) % n_}) {
                if (x != i && std::find(nbrs.begin(), nbrs.end(), x) == nbrs.end()) nbrs.push_back(x);
            }
            std::vector<std::vector<Arc>> exchange;
            for (int x : nbrs) {
                MessageSpec send;
                send.name = "gossip." + wn(i) + ".send." + wn(x);
                send.from = wnode_[u(i)];
                send.to = wnode_[u(x)];
                send.bytes = spec_.model_bytes;
                send.mode = mode_;
                send.deliver = {arc(exchanged)};
                MessageSpec recv = send;
                recv.name = "gossip." + wn(i) + ".recv." + wn(x);
                std::swap(recv.from, recv.to);
                exchange.push_back(b_.message(send) + b_.message(recv));
            }
            std::vector<Arc> after_compute;
            if (exchange.size() == 1) {
                after_compute = exchange[0];
            } else if (exchange.size() == 2) {
                PlaceId computed = b_.place(wn(i) + ".computed");
                for (std::size_t c = 0; c < 2; ++c) {
                    b_.immediate(wn(i) + ".pick." + wn(nbrs[c]), {arc(computed)}, exchange[c]);
                }
                after_compute = {arc(computed)};
            }
            std::vector<Arc> update_in;
            if (!exchange.empty()) update_in.push_back(arc(exchanged, 2));
            if (fine_) {
                std::vector<std::vector<Arc>> none(worker(i).layers.size());
                PlaceId bwd_done = b_.place(wn(i) + ".bwd.done");
                fine_compute(i, {arc(ready)}, none, {}, none,
                             after_compute + std::vector<Arc>{arc(bwd_done)});
                update_in.push_back(arc(bwd_done));
            } else {
                PlaceId computed_end = b_.place(wn(i) + ".compute.done");
                auto tail = coarse_compute(i, {arc(ready)},
                                           after_compute + std::vector<Arc>{arc(computed_end)}, 0);
                update_in.push_back(arc(computed_end));
                if (tail) update_in.push_back(arc(*tail));
            }
            worker_update(i, update_in, {arc(ready)});
        }
    }

    // ---- parameter servers -------------------------------------------------------------
    // Coarse: worker i computes (needs the parameters of all K shards: `W.params` × K), updates
    // locally if it has an `update`, then pushes model_bytes/K to every shard. ps_sync: shard s
    // collects N gradients (`S.grads` × N), applies one update, sends the parameters to every
    // worker. ps_async / ps_ssp: shard s applies each gradient alone (`S.apply.W` holding
    // `S.cpu`, then `S.update.W`) and replies to that worker only. ps_ssp(K): a worker's step
    // consumes a credit (`W.ssp.credit`, initially K+1); once every worker has finished computing
    // a step, `ssp.advance` gives every worker one credit back, so step t+K+1 waits for all of
    // step t.
    //
    // Fine: per-layer messages (layers with bytes > 0). Each (worker, shard) pair has one push
    // stream and one pull stream whose messages go out one after the other in gradient-ready
    // order (one connection per pair), chained by `….turn` places. The forward of layer k waits
    // for its pull from every shard (`W.params.LAYER` × K); layer k's push leaves after its
    // backward (overlap) or after the whole backward. The server updates each layer for
    // update·bytes_k/total, one layer at a time (`S.cpu`).
    void ps() {
        const bool sync = spec_.sync == SyncKind::PsSync;
        const bool ssp = spec_.sync == SyncKind::PsSsp;
        const uint32_t nk = static_cast<uint32_t>(k_);
        // SSP bookkeeping.
        std::vector<PlaceId> credit, finished;
        if (ssp) {
            std::vector<Arc> in, out;
            for (int i = 0; i < n_; ++i) {
                credit.push_back(b_.place(wn(i) + ".ssp.credit",
                                          static_cast<uint32_t>(spec_.staleness + 1)));
                finished.push_back(b_.place(wn(i) + ".ssp.finished"));
                in.push_back(arc(finished.back()));
                out.push_back(arc(credit.back()));
            }
            b_.immediate("ssp.advance", in, out);
        }
        std::vector<PlaceId> cpu;
        for (int s = 0; s < k_; ++s) {
            cpu.push_back(is_zero(server(s).update) ? PlaceId{} : b_.place(sn(s) + ".cpu", 1));
        }
        if (fine_) {
            ps_fine(sync, ssp, credit, finished, cpu);
            return;
        }
        const double shard_bytes = spec_.model_bytes / k_;
        // pull_start[s][i]: arcs that start shard s's reply to worker i.
        std::vector<PlaceId> params;
        std::vector<std::vector<std::vector<Arc>>> pull_start(u(k_));
        for (int i = 0; i < n_; ++i) params.push_back(b_.place(wn(i) + ".params", nk));
        for (int s = 0; s < k_; ++s) {
            for (int i = 0; i < n_; ++i) {
                MessageSpec m;
                m.name = "pull." + sn(s) + "." + wn(i);
                m.from = snode_[u(s)];
                m.to = wnode_[u(i)];
                m.bytes = shard_bytes;
                m.mode = mode_;
                m.deliver = {arc(params[u(i)])};
                pull_start[u(s)].push_back(b_.message(m));
            }
        }
        // push_deliver[s][i]: where worker i's gradient lands at shard s.
        std::vector<std::vector<std::vector<Arc>>> push_deliver(u(k_));
        for (int s = 0; s < k_; ++s) {
            const ServerSpec& sv = server(s);
            if (sync) {
                PlaceId grads = b_.place(sn(s) + ".grads");
                std::vector<Arc> out;
                for (int i = 0; i < n_; ++i) out = out + pull_start[u(s)][u(i)];
                TransitionId t = b_.step(sn(s) + ".update", sv.update,
                                         {arc(grads, static_cast<uint32_t>(n_))}, out);
                if (!is_zero(sv.update)) sbusy_[u(s)].push_back({t, net::mean(sv.update)});
                push_deliver[u(s)].assign(u(n_), {arc(grads)});
                continue;
            }
            for (int i = 0; i < n_; ++i) {
                push_deliver[u(s)].push_back(
                    server_apply(s, sn(s) + ".grad." + wn(i), sn(s) + ".apply." + wn(i),
                                 sn(s) + ".update." + wn(i), sv.update, cpu[u(s)],
                                 pull_start[u(s)][u(i)]));
            }
        }
        for (int i = 0; i < n_; ++i) {
            std::vector<Arc> pushes;
            for (int s = 0; s < k_; ++s) {
                MessageSpec m;
                m.name = "push." + wn(i) + "." + sn(s);
                m.from = wnode_[u(i)];
                m.to = snode_[u(s)];
                m.bytes = shard_bytes;
                m.mode = mode_;
                m.deliver = push_deliver[u(s)][u(i)];
                pushes = pushes + b_.message(m);
            }
            std::vector<Arc> in{arc(params[u(i)], nk)};
            std::vector<Arc> out;
            if (ssp) {
                in.push_back(arc(credit[u(i)]));
                out.push_back(arc(finished[u(i)]));
            }
            if (is_zero(worker(i).update)) {
                out = out + pushes;
            } else {
                PlaceId grad = b_.place(wn(i) + ".grad");
                worker_update(i, {arc(grad)}, pushes);
                out.push_back(arc(grad));
            }
            // The tail place starts full so that the first step can start.
            auto tail = coarse_compute(i, in, out, 1);
            if (tail) {
                b_.transition(step_[u(i)]).inputs.push_back(arc(*tail));
            }
        }
    }

    /// Shard-side handling of one gradient message in ps_async/ps_ssp: returns the arcs where
    /// the gradient is delivered. Update 0: the delivery starts the reply directly. Otherwise
    /// `APPLY` (immediate, takes the shard's cpu) then `UPDATE` (timed, gives it back, replies).
    std::vector<Arc> server_apply(int s, const std::string& grad_name, const std::string& apply_name,
                                  const std::string& update_name, const net::Distribution& update,
                                  PlaceId cpu, const std::vector<Arc>& reply) {
        if (is_zero(update)) return reply;
        PlaceId grad = b_.place(grad_name);
        PlaceId applying = b_.place(grad_name + ".applying");
        b_.immediate(apply_name, {arc(grad), arc(cpu)}, {arc(applying)});
        TransitionId t = b_.timed(update_name, update, {arc(applying)},
                                  std::vector<Arc>{arc(cpu)} + reply);
        sbusy_[u(s)].push_back({t, net::mean(update)});
        return {arc(grad)};
    }

    void ps_fine(bool sync, bool ssp, const std::vector<PlaceId>& credit,
                 const std::vector<PlaceId>& finished, const std::vector<PlaceId>& cpu) {
        const auto& layers = worker(0).layers;
        const int nl = static_cast<int>(layers.size());
        const uint32_t nk = static_cast<uint32_t>(k_);
        double total = 0;
        for (const auto& l : layers) total += l.bytes;
        // Messages: layers in gradient-ready order (= stream order), tensors smaller than
        // kPsFusionBytes fused with their neighbours (tensor fusion, as PS implementations do;
        // it also keeps the number of transmissions reading a shared direction small).
        std::vector<Bucket> groups;
        for (Bucket& g : fuse_tensors(layers, kPsFusionBytes)) {
            if (g.bytes > 0) groups.push_back(std::move(g));
        }
        const int np = static_cast<int>(groups.size());
        auto lname = [&](int m) { return layers[u(groups[u(m)].layers.front())].name; };
        // The forward that a group's pull gates: its layer that comes first in forward order.
        auto first_fwd = [&](int m) {
            return *std::min_element(groups[u(m)].layers.begin(), groups[u(m)].layers.end());
        };
        // Worker-side parameter places, initially full (a worker starts with the parameters).
        std::vector<std::vector<PlaceId>> params(u(n_), std::vector<PlaceId>(u(np)));
        for (int i = 0; i < n_; ++i) {
            for (int m = 0; m < np; ++m) params[u(i)][u(m)] = b_.place(wn(i) + ".params." + lname(m), nk);
        }
        // A stream of messages sent one after the other: returns the start arcs per position.
        auto stream = [&](const std::string& prefix, int from, int to,
                          const std::vector<std::vector<Arc>>& deliver) {
            std::vector<PlaceId> turn;
            for (int m = 0; m < np; ++m) {
                turn.push_back(b_.place(prefix + "." + lname(m) + ".turn", m == 0 ? 1 : 0));
            }
            std::vector<std::vector<Arc>> start;
            for (int m = 0; m < np; ++m) {
                MessageSpec msg;
                msg.name = prefix + "." + lname(m);
                msg.from = from;
                msg.to = to;
                msg.bytes = groups[u(m)].bytes / k_;
                msg.mode = mode_;
                msg.start_inputs = {arc(turn[u(m)])};
                msg.tx_done = {arc(turn[u((m + 1) % np)])};
                msg.deliver = deliver[u(m)];
                start.push_back(b_.message(msg));
            }
            return start;
        };
        // Pull streams: pull_start[s][i][m].
        std::vector<std::vector<std::vector<std::vector<Arc>>>> pull_start(u(k_));
        for (int s = 0; s < k_; ++s) {
            for (int i = 0; i < n_; ++i) {
                std::vector<std::vector<Arc>> deliver;
                for (int m = 0; m < np; ++m) deliver.push_back({arc(params[u(i)][u(m)])});
                pull_start[u(s)].push_back(
                    stream("pull." + sn(s) + "." + wn(i), snode_[u(s)], wnode_[u(i)], deliver));
            }
        }
        // Server side: push_deliver[s][i][m].
        std::vector<std::vector<std::vector<std::vector<Arc>>>> push_deliver(
            u(k_), std::vector<std::vector<std::vector<Arc>>>(u(n_)));
        for (int s = 0; s < k_; ++s) {
            const ServerSpec& sv = server(s);
            for (int m = 0; m < np; ++m) {
                const int k = m;
                const double share = total > 0 ? groups[u(m)].bytes / total : 0;
                const net::Distribution upd = scaled(sv.update, share);
                if (sync) {
                    PlaceId grads = b_.place(sn(s) + ".grads." + lname(k));
                    std::vector<Arc> reply;
                    for (int i = 0; i < n_; ++i) reply = reply + pull_start[u(s)][u(i)][u(m)];
                    const uint32_t all = static_cast<uint32_t>(n_);
                    if (is_zero(upd)) {
                        b_.immediate(sn(s) + ".update." + lname(k), {arc(grads, all)}, reply);
                    } else {
                        PlaceId applying = b_.place(sn(s) + ".grads." + lname(k) + ".applying");
                        b_.immediate(sn(s) + ".apply." + lname(k), {arc(grads, all), arc(cpu[u(s)])},
                                     {arc(applying)});
                        TransitionId t = b_.timed(sn(s) + ".update." + lname(k), upd,
                                                  {arc(applying)},
                                                  std::vector<Arc>{arc(cpu[u(s)])} + reply);
                        sbusy_[u(s)].push_back({t, net::mean(upd)});
                    }
                    for (int i = 0; i < n_; ++i) push_deliver[u(s)][u(i)].push_back({arc(grads)});
                } else {
                    for (int i = 0; i < n_; ++i) {
                        const std::string g = sn(s) + ".grad." + wn(i) + "." + lname(k);
                        push_deliver[u(s)][u(i)].push_back(server_apply(
                            s, g, sn(s) + ".apply." + wn(i) + "." + lname(k),
                            sn(s) + ".update." + wn(i) + "." + lname(k), upd,
                            is_zero(upd) ? PlaceId{} : cpu[u(s)], pull_start[u(s)][u(i)][u(m)]));
                    }
                }
            }
        }
        for (int i = 0; i < n_; ++i) {
            PlaceId ready = b_.place(wn(i) + ".ready", 1);
            std::vector<std::vector<Arc>> gate(u(nl)), bwd_out(u(nl));
            for (int m = 0; m < np; ++m) gate[u(first_fwd(m))].push_back(arc(params[u(i)][u(m)], nk));
            std::vector<Arc> last_out;
            for (int s = 0; s < k_; ++s) {
                auto push = stream("push." + wn(i) + "." + sn(s), wnode_[u(i)], snode_[u(s)],
                                   push_deliver[u(s)][u(i)]);
                for (int m = 0; m < np; ++m) {
                    if (spec_.overlap) {
                        const int last = groups[u(m)].layers.back();
                        bwd_out[u(last)] = bwd_out[u(last)] + push[u(m)];
                    } else {
                        last_out = last_out + push[u(m)];
                    }
                }
            }
            std::vector<Arc> start_in{arc(ready)};
            if (ssp) {
                start_in.push_back(arc(credit[u(i)]));
                last_out.push_back(arc(finished[u(i)]));
            }
            if (is_zero(worker(i).update)) {
                last_out.push_back(arc(ready));
            } else {
                PlaceId grad = b_.place(wn(i) + ".grad");
                worker_update(i, {arc(grad)}, {arc(ready)});
                last_out.push_back(arc(grad));
            }
            fine_compute(i, start_in, gate, {}, bwd_out, last_out);
        }
    }

    // ---- measures (§5.3) ---------------------------------------------------------------
    void measures() {
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
                Measure{"util." + name, Measure::Kind::Throughput, terms, {}, "", spec_.where});
        };
        for (int i = 0; i < n_; ++i) busy(wn(i), wbusy_[u(i)]);
        for (int s = 0; s < k_; ++s) busy(sn(s), sbusy_[u(s)]);
        b_.add_nic_measures();
    }

    const TrainingSpec& spec_;
    Builder b_;
    int n_;
    int k_;
    bool fine_;
    DirMode mode_;
    std::vector<int> wnode_, snode_;
    std::vector<TransitionId> step_;
    std::vector<std::vector<Measure::Term>> wbusy_, sbusy_;
};

}  // namespace

std::string lower_training_spec(const TrainingSpec& spec, net::PetriNet& out) {
    if (spec.workers.empty()) return "the training system has no workers";
    if (ps_scheme(spec.sync) && spec.servers.empty()) {
        return "a parameter-server scheme needs a `server` declaration";
    }
    const bool fine = spec.granularity == GranularityKind::Fine;
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
    if (spec.model_bytes < 0) return "model_bytes must be >= 0";
    if (spec.staleness < 0) return "staleness must be >= 0";
    if (!(spec.bucket_bytes > 0) || !(spec.first_bucket_bytes > 0)) {
        return "bucket sizes must be > 0";
    }
    Lowering(spec, out).run();
    return {};
}

}  // namespace sgdnet::compiler
