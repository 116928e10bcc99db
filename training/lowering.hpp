// The Lowering class behind lower_training_spec() (private to training/): one object per call,
// holding the builder and the per-worker bookkeeping the measures need. The shared parts
// (worker compute chains, buckets, measures, the dispatch) are defined in lower.cpp, each
// coordination scheme of docs/language.md §5.2 in its own file: ring.cpp, tree.cpp, gossip.cpp and
// ps.cpp (ps_sync, ps_async, ps_ssp; fine and coarse).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "training/builder.hpp"
#include "training/ddp_buckets.hpp"
#include "training/training_spec.hpp"

namespace sgdnet::training {

using Arcs = std::vector<Arc>;
/// One list of arcs per position (per layer, per message of a stream, per worker, …).
using ArcLists = std::vector<Arcs>;

inline Arcs operator+(Arcs a, const Arcs& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}
inline Arc arc(PlaceId p, uint32_t m = 1) { return Arc{p, m}; }

/// Schemes whose step is global (every worker steps together): the measures count a step once.
inline bool sync_scheme(SyncKind k) {
    return k == SyncKind::PsSync || k == SyncKind::AllreduceRing || k == SyncKind::AllreduceTree;
}

class Lowering {
public:
    Lowering(const TrainingSpec& spec, net::PetriNet& out);

    /// Builds the nodes, the scheme's net and the measures.
    void run();

private:
    /// What the parameter-server variants share (ps.cpp).
    struct PsShared {
        bool sync = false;                      // ps_sync
        bool ssp = false;                       // ps_ssp
        std::vector<PlaceId> credit, finished;  // ps_ssp, per worker
        std::vector<PlaceId> cpu;               // per shard; unset when its update takes no time
        /// protocol = rendezvous, ps_async/ps_ssp: per shard, its one posted receive
        /// (`S.posted`), which a gradient's transmission takes and the shard gives back once it
        /// has applied that gradient; empty otherwise.
        std::vector<PlaceId> posted;
        Arcs posted_arc(int s) const;  // {S.posted}, or none
    };
    /// The messages of fine parameter-server streams: fused tensor groups in gradient-ready
    /// order, each named after its first layer (ps.cpp).
    struct PsGroups {
        std::vector<Bucket> groups;      // bytes > 0 only
        std::vector<std::string> names;  // name of each group's first layer
        double total_bytes = 0;          // every layer's bytes: the server's update shares
    };

    const WorkerSpec& worker(int i) const { return spec_.workers[static_cast<std::size_t>(i)]; }
    const ServerSpec& server(int s) const { return spec_.servers[static_cast<std::size_t>(s)]; }
    const std::string& wn(int i) const { return worker(i).name; }
    const std::string& sn(int s) const { return server(s).name; }
    static std::size_t u(int i) { return static_cast<std::size_t>(i); }

    // ---- workers and buckets (lower.cpp) ----
    net::Distribution coarse_compute_dist(int i) const;
    double comm_estimate(int i) const;
    /// Where the coarse overlap heuristic's backward tail ends (coarse_compute).
    enum class Tail { JoinsStepEnd, GatesNextCompute };
    std::optional<PlaceId> coarse_compute(int i, Arcs in, Arcs out, Tail tail_use);
    void fine_compute(int i, Arcs start_in, const ArcLists& fwd_gate, Arcs first_out,
                      const ArcLists& bwd_out, Arcs last_out);
    void worker_update(int i, Arcs in, Arcs out);
    Arcs step_start(int j, PlaceId ready, DirMode mode);
    std::vector<Bucket> step_buckets() const;
    void bucket_ready_arcs(const std::vector<Bucket>& buckets, const std::vector<PlaceId>& ready,
                           ArcLists& bwd_out, Arcs& last_out) const;
    std::string bucket_prefix(const std::string& scheme, std::size_t bk) const;
    void measures();

    // ---- schemes ----
    void ring();                                              // ring.cpp
    void ring_single(const std::vector<Bucket>& buckets);     // ring.cpp
    void tree();                                              // tree.cpp
    void gossip();                                            // gossip.cpp
    void ps();                                                // ps.cpp, below too
    void ssp_credits(PsShared& ps);
    Arcs server_apply(int s, const std::string& grad_name, const std::string& apply_name,
                      const std::string& update_name, const net::Distribution& update,
                      PlaceId cpu, const Arcs& reply, const Arcs& handled);
    void ps_coarse(const PsShared& ps);
    std::vector<ArcLists> ps_coarse_pulls(const std::vector<PlaceId>& params);
    std::vector<ArcLists> ps_coarse_shards(const PsShared& ps,
                                           const std::vector<ArcLists>& pull_start);
    void ps_coarse_worker(int i, const PsShared& ps, PlaceId params,
                          const std::vector<ArcLists>& push_deliver);
    PsGroups ps_fine_groups() const;
    void ps_fine(const PsShared& ps);
    ArcLists ps_stream(const std::string& prefix, int from, int to, const PsGroups& g,
                       const ArcLists& deliver, const Arcs& tx_inputs = {});
    std::vector<ArcLists> ps_fine_shard(int s, const PsShared& ps, const PsGroups& g,
                                        const std::vector<ArcLists>& pull_start);
    void ps_fine_worker(int i, const PsShared& ps, const PsGroups& g,
                        const std::vector<PlaceId>& params,
                        const std::vector<std::vector<ArcLists>>& push_deliver);

    const TrainingSpec& spec_;
    Builder b_;
    int n_;  // workers
    int k_;  // server shards
    bool fine_;
    DirMode mode_;  // of every message but the ring's
    std::vector<int> wnode_, snode_;
    std::vector<PlaceId> buffers_arrived_;  // step_start(): worker j's copy of the buffers
    std::vector<TransitionId> step_;  // per worker: the transition that starts its step
    std::vector<std::vector<net::Measure::Term>> wbusy_, sbusy_;
};

}  // namespace sgdnet::training
