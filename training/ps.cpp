// The parameter-server schemes ps_sync, ps_async and ps_ssp (docs/language.md §5.2), fine and coarse,
// as a net.
//
// Coarse: worker i computes (needs the parameters of all K shards: `W.params` × K), updates
// locally if it has an `update`, then pushes model_bytes/K to every shard. ps_sync: shard s
// collects N gradients (`S.grads` × N), applies one update, sends the parameters to every
// worker. ps_async / ps_ssp: shard s applies each gradient alone (`S.apply.W` holding
// `S.cpu`, then `S.update.W`) and replies to that worker only. ps_ssp(K): a worker's step
// consumes a credit (`W.ssp.credit`, initially K+1); once every worker has finished computing
// a step, `ssp.advance` gives every worker one credit back, so step t+K+1 waits for all of
// step t.
//
// Fine: per-layer messages, fused: layers with bytes > 0, in gradient-ready order, consecutive
// tensors fused up to the training property `fusion` (default 4 MiB, close to the 4 MB partitions
// of MXNet/BytePS parameter servers; fuse_tensors), each message named after its first layer.
// Each (worker, shard) pair has one push stream and one pull stream whose messages go out one
// after the other in gradient-ready order (one connection per pair), chained by `….turn`
// places. The forward of a message's first layer (in forward order) waits for its pull from
// every shard (`W.params.LAYER` × K); a message's push leaves after the backward of its last
// layer (overlap) or after the whole backward. The server updates each message for
// update·bytes_m/total, one at a time (`S.cpu`).
//
// protocol = rendezvous (ps_async, ps_ssp): shard s posts one receive at a time, for a gradient
// message from any worker: `S.posted` (one token) is taken by the transmission of every push to
// s (after the sender's overhead) and given back when s has applied that message (with its
// reply's start), or on its delivery when the update takes no time.
//
// Every server update is a CPU job of the server's host (Builder::cpu_job), so shards and
// workers placed on one host share its cores; `S.cpu` still applies one update at a time.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "training/lowering.hpp"

namespace sgdnet::training {

namespace {

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

}  // namespace

void Lowering::ps() {
    PsShared ps;
    ps.sync = spec_.sync == SyncKind::PsSync;
    ps.ssp = spec_.sync == SyncKind::PsSsp;
    if (ps.ssp) ssp_credits(ps);
    for (int s = 0; s < k_; ++s) {
        ps.cpu.push_back(is_zero(server(s).update) ? PlaceId{} : b_.place(sn(s) + ".cpu", 1));
        if (!ps.sync && spec_.protocol == Protocol::Rendezvous) {
            ps.posted.push_back(b_.place(sn(s) + ".posted", 1));
        }
    }
    if (fine_) {
        ps_fine(ps);
    } else {
        ps_coarse(ps);
    }
}

Arcs Lowering::PsShared::posted_arc(int s) const {
    if (posted.empty()) return {};
    return {arc(posted[u(s)])};
}

/// ps_ssp bookkeeping: `W.ssp.credit` (staleness + 1 tokens) and `W.ssp.finished` per worker,
/// and `ssp.advance`, which gives every worker a credit back once all have finished a step.
void Lowering::ssp_credits(PsShared& ps) {
    Arcs in, out;
    for (int i = 0; i < n_; ++i) {
        ps.credit.push_back(
            b_.place(wn(i) + ".ssp.credit", static_cast<uint32_t>(spec_.staleness + 1)));
        ps.finished.push_back(b_.place(wn(i) + ".ssp.finished"));
        in.push_back(arc(ps.finished.back()));
        out.push_back(arc(ps.credit.back()));
    }
    b_.immediate("ssp.advance", in, out);
}

/// Shard-side handling of one gradient message in ps_async/ps_ssp: returns the arcs where
/// the gradient is delivered. Update 0: the delivery starts the reply directly. Otherwise
/// `APPLY` (immediate, takes the shard's cpu) then `UPDATE` (timed, gives it back, replies).
/// `handled` is output with the reply (a rendezvous's next posted receive).
Arcs Lowering::server_apply(int s, const std::string& grad_name, const std::string& apply_name,
                            const std::string& update_name, const net::Distribution& update,
                            PlaceId cpu, const Arcs& reply, const Arcs& handled) {
    if (is_zero(update)) return reply + handled;
    PlaceId grad = b_.place(grad_name);
    PlaceId applying = b_.place(grad_name + ".applying");
    b_.immediate(apply_name, {arc(grad), arc(cpu)}, {arc(applying)});
    TransitionId t = b_.cpu_job(update_name, update, server(s).host, {arc(applying)},
                                Arcs{arc(cpu)} + reply + handled);
    sbusy_[u(s)].push_back({t, net::mean(update)});
    return {arc(grad)};
}

// ---- coarse ------------------------------------------------------------------------------

void Lowering::ps_coarse(const PsShared& ps) {
    const auto nk = static_cast<uint32_t>(k_);
    std::vector<PlaceId> params;
    for (int i = 0; i < n_; ++i) params.push_back(b_.place(wn(i) + ".params", nk));
    const std::vector<ArcLists> pull_start = ps_coarse_pulls(params);
    const std::vector<ArcLists> push_deliver = ps_coarse_shards(ps, pull_start);
    for (int i = 0; i < n_; ++i) ps_coarse_worker(i, ps, params[u(i)], push_deliver);
}

/// The replies `pull.S.W` (model_bytes/K each), delivered to `params[i]`; returns
/// pull_start[s][i], the arcs that start shard s's reply to worker i.
std::vector<ArcLists> Lowering::ps_coarse_pulls(const std::vector<PlaceId>& params) {
    const double shard_bytes = spec_.model_bytes / k_;
    std::vector<ArcLists> pull_start(u(k_));
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
    return pull_start;
}

/// Every shard's handling of the gradients (ps_sync: one update for N; else one per gradient);
/// returns push_deliver[s][i], where worker i's gradient lands at shard s.
std::vector<ArcLists> Lowering::ps_coarse_shards(const PsShared& ps,
                                                 const std::vector<ArcLists>& pull_start) {
    std::vector<ArcLists> push_deliver(u(k_));
    for (int s = 0; s < k_; ++s) {
        const ServerSpec& sv = server(s);
        if (ps.sync) {
            PlaceId grads = b_.place(sn(s) + ".grads");
            Arcs out;
            for (int i = 0; i < n_; ++i) out = out + pull_start[u(s)][u(i)];
            TransitionId t = b_.cpu_job(sn(s) + ".update", sv.update, sv.host,
                                        {arc(grads, static_cast<uint32_t>(n_))}, out);
            if (!is_zero(sv.update)) sbusy_[u(s)].push_back({t, net::mean(sv.update)});
            push_deliver[u(s)].assign(u(n_), {arc(grads)});
            continue;
        }
        for (int i = 0; i < n_; ++i) {
            push_deliver[u(s)].push_back(
                server_apply(s, sn(s) + ".grad." + wn(i), sn(s) + ".apply." + wn(i),
                             sn(s) + ".update." + wn(i), sv.update, ps.cpu[u(s)],
                             pull_start[u(s)][u(i)], ps.posted_arc(s)));
        }
    }
    return push_deliver;
}

/// Worker i: its pushes `push.W.S`, its compute (taking `params` × K and, ps_ssp, a credit)
/// and its local update before the pushes, if any.
void Lowering::ps_coarse_worker(int i, const PsShared& ps, PlaceId params,
                                const std::vector<ArcLists>& push_deliver) {
    Arcs pushes;
    for (int s = 0; s < k_; ++s) {
        MessageSpec m;
        m.name = "push." + wn(i) + "." + sn(s);
        m.from = wnode_[u(i)];
        m.to = snode_[u(s)];
        m.bytes = spec_.model_bytes / k_;
        m.mode = mode_;
        m.deliver = push_deliver[u(s)][u(i)];
        m.tx_inputs = ps.posted_arc(s);
        pushes = pushes + b_.message(m);
    }
    Arcs in{arc(params, static_cast<uint32_t>(k_))};
    Arcs out;
    if (ps.ssp) {
        in.push_back(arc(ps.credit[u(i)]));
        out.push_back(arc(ps.finished[u(i)]));
    }
    if (is_zero(worker(i).update)) {
        out = out + pushes;
    } else {
        PlaceId grad = b_.place(wn(i) + ".grad");
        worker_update(i, {arc(grad)}, pushes);
        out.push_back(arc(grad));
    }
    // The backward tail of step t overlaps the pushes and gates the compute of step t+1.
    coarse_compute(i, in, out, Tail::GatesNextCompute);
}

// ---- fine --------------------------------------------------------------------------------

/// The messages of the fine streams: worker 0's layers (every worker holds the same model)
/// fused by fuse_tensors, empty messages dropped.
Lowering::PsGroups Lowering::ps_fine_groups() const {
    const auto& layers = worker(0).layers;
    PsGroups g;
    for (const auto& l : layers) g.total_bytes += l.bytes;
    for (Bucket& b : fuse_tensors(layers, spec_.fusion_bytes)) {
        if (b.bytes > 0) g.groups.push_back(std::move(b));
    }
    for (const Bucket& b : g.groups) g.names.push_back(layers[u(b.layers.front())].name);
    return g;
}

void Lowering::ps_fine(const PsShared& ps) {
    const PsGroups g = ps_fine_groups();
    const int np = static_cast<int>(g.groups.size());
    // Worker-side parameter places, initially full (a worker starts with the parameters).
    std::vector<std::vector<PlaceId>> params(u(n_), std::vector<PlaceId>(u(np)));
    for (int i = 0; i < n_; ++i) {
        for (int m = 0; m < np; ++m) {
            params[u(i)][u(m)] =
                b_.place(wn(i) + ".params." + g.names[u(m)], static_cast<uint32_t>(k_));
        }
    }
    // Pull streams: pull_start[s][i][m].
    std::vector<std::vector<ArcLists>> pull_start(u(k_));
    for (int s = 0; s < k_; ++s) {
        for (int i = 0; i < n_; ++i) {
            ArcLists deliver;
            for (int m = 0; m < np; ++m) deliver.push_back({arc(params[u(i)][u(m)])});
            pull_start[u(s)].push_back(ps_stream("pull." + sn(s) + "." + wn(i), snode_[u(s)],
                                                 wnode_[u(i)], g, deliver));
        }
    }
    // Server side: push_deliver[s][i][m].
    std::vector<std::vector<ArcLists>> push_deliver;
    for (int s = 0; s < k_; ++s) push_deliver.push_back(ps_fine_shard(s, ps, g, pull_start[u(s)]));
    for (int i = 0; i < n_; ++i) ps_fine_worker(i, ps, g, params[u(i)], push_deliver);
}

/// A stream `PREFIX.LAYER` of the messages of `g` sent one after the other from node `from` to
/// node `to` (each 1/K of its message's bytes; `PREFIX.LAYER.turn` passes the connection on
/// once a transmission ends), message m delivering `deliver[m]`. Returns the start arcs per
/// message.
ArcLists Lowering::ps_stream(const std::string& prefix, int from, int to, const PsGroups& g,
                             const ArcLists& deliver, const Arcs& tx_inputs) {
    const int np = static_cast<int>(g.groups.size());
    std::vector<PlaceId> turn;
    for (int m = 0; m < np; ++m) {
        turn.push_back(b_.place(prefix + "." + g.names[u(m)] + ".turn", m == 0 ? 1 : 0));
    }
    ArcLists start;
    for (int m = 0; m < np; ++m) {
        MessageSpec msg;
        msg.name = prefix + "." + g.names[u(m)];
        msg.from = from;
        msg.to = to;
        msg.bytes = g.groups[u(m)].bytes / k_;
        msg.mode = mode_;
        msg.start_inputs = {arc(turn[u(m)])};
        msg.tx_done = {arc(turn[u((m + 1) % np)])};
        msg.tx_inputs = tx_inputs;
        msg.deliver = deliver[u(m)];
        start.push_back(b_.message(msg));
    }
    return start;
}

/// Shard s's handling of every message, for update·bytes_m/total each: ps_sync collects the N
/// workers' gradients of a message (`S.grads.LAYER` × N) and replies to all, else each gradient
/// is applied alone (server_apply). `pull_start[i][m]` starts the reply of message m to worker
/// i; returns push_deliver[i][m], where worker i's gradient of message m lands.
std::vector<ArcLists> Lowering::ps_fine_shard(int s, const PsShared& ps, const PsGroups& g,
                                              const std::vector<ArcLists>& pull_start) {
    const ServerSpec& sv = server(s);
    const PlaceId cpu = ps.cpu[u(s)];
    std::vector<ArcLists> push_deliver(u(n_));
    for (std::size_t m = 0; m < g.groups.size(); ++m) {
        const std::string& layer = g.names[m];
        const double share = g.total_bytes > 0 ? g.groups[m].bytes / g.total_bytes : 0;
        const net::Distribution upd = scaled(sv.update, share);
        if (!ps.sync) {
            for (int i = 0; i < n_; ++i) {
                const std::string grad = sn(s) + ".grad." + wn(i) + "." + layer;
                push_deliver[u(i)].push_back(server_apply(
                    s, grad, sn(s) + ".apply." + wn(i) + "." + layer,
                    sn(s) + ".update." + wn(i) + "." + layer, upd,
                    is_zero(upd) ? PlaceId{} : cpu, pull_start[u(i)][m], ps.posted_arc(s)));
            }
            continue;
        }
        PlaceId grads = b_.place(sn(s) + ".grads." + layer);
        Arcs reply;
        for (int i = 0; i < n_; ++i) reply = reply + pull_start[u(i)][m];
        const auto all = static_cast<uint32_t>(n_);
        if (is_zero(upd)) {
            b_.immediate(sn(s) + ".update." + layer, {arc(grads, all)}, reply);
        } else {
            PlaceId applying = b_.place(sn(s) + ".grads." + layer + ".applying");
            b_.immediate(sn(s) + ".apply." + layer, {arc(grads, all), arc(cpu)}, {arc(applying)});
            TransitionId t = b_.cpu_job(sn(s) + ".update." + layer, upd, sv.host,
                                        {arc(applying)}, Arcs{arc(cpu)} + reply);
            sbusy_[u(s)].push_back({t, net::mean(upd)});
        }
        for (int i = 0; i < n_; ++i) push_deliver[u(i)].push_back({arc(grads)});
    }
    return push_deliver;
}

/// Worker i: its push streams `push.W.S` (message m after the backward of its last layer, or
/// after the whole backward without overlap), the forward of each message's first layer gated
/// by `params[m]` × K, ps_ssp's credit, and its local update.
void Lowering::ps_fine_worker(int i, const PsShared& ps, const PsGroups& g,
                              const std::vector<PlaceId>& params,
                              const std::vector<std::vector<ArcLists>>& push_deliver) {
    const std::size_t nl = worker(0).layers.size();
    PlaceId ready = b_.place(wn(i) + ".ready", 1);
    ArcLists gate(nl), bwd_out(nl);
    for (std::size_t m = 0; m < g.groups.size(); ++m) {
        const std::vector<int>& layers = g.groups[m].layers;
        const int first_fwd = *std::min_element(layers.begin(), layers.end());
        gate[u(first_fwd)].push_back(arc(params[m], static_cast<uint32_t>(k_)));
    }
    Arcs last_out;
    for (int s = 0; s < k_; ++s) {
        ArcLists push = ps_stream("push." + wn(i) + "." + sn(s), wnode_[u(i)], snode_[u(s)], g,
                                  push_deliver[u(s)][u(i)], ps.posted_arc(s));
        for (std::size_t m = 0; m < g.groups.size(); ++m) {
            if (spec_.overlap) {
                const int last = g.groups[m].layers.back();
                bwd_out[u(last)] = bwd_out[u(last)] + push[m];
            } else {
                last_out = last_out + push[m];
            }
        }
    }
    Arcs start_in{arc(ready)};
    if (ps.ssp) {
        start_in.push_back(arc(ps.credit[u(i)]));
        last_out.push_back(arc(ps.finished[u(i)]));
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

}  // namespace sgdnet::training
