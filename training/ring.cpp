// allreduce_ring (docs/language.md §5.2), fine and coarse, as a net.
//
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
//
// Every round's send is a message (Builder::message): it pays the message overhead first
// (holding `w[j].ring.nic`) and the CPU cost of its bytes at both ends. Through a host NIC
// shared by several nodes a direction may carry other messages, so those sends use the
// `sharing` mode instead of Exclusive. Both keep the chunks of j−1 arriving in round order:
// its sends are sequential, and equal CPU jobs started in order on one host end in order.
#include <cstdint>
#include <string>
#include <vector>

#include "training/lowering.hpp"

namespace sgdnet::training {

void Lowering::ring() {
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
            Arcs in{arc(bucket_ready[u(bk)])};
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
        Arcs update_in{arc(done[u(nb - 1)][u(j)]), arc(nic[u(j)])};
        if (fine_) {
            ArcLists gate(worker(j).layers.size());
            ArcLists bwd_out(worker(j).layers.size());
            Arcs last_out;
            bucket_ready_arcs(buckets, bucket_ready, bwd_out, last_out);
            fine_compute(j, step_start(j, ready, DirMode::Exclusive), gate, {arc(nic[u(j)])},
                         bwd_out, last_out);
        } else {
            auto tail = coarse_compute(j, step_start(j, ready, DirMode::Exclusive),
                                       {arc(nic[u(j)]), arc(bucket_ready[0])},
                                       Tail::JoinsStepEnd);
            if (tail) update_in.push_back(arc(*tail));
        }
        worker_update(j, update_in, {arc(ready)});
    }
}

/// A ring of one worker: nothing to reduce; the update follows the compute (and, fine,
/// collects the buckets the backward made ready).
void Lowering::ring_single(const std::vector<Bucket>& buckets) {
    for (int j = 0; j < n_; ++j) {
        PlaceId ready = b_.place(wn(j) + ".ready", 1);
        PlaceId sent = b_.place(wn(j) + ".ring.sent");
        Arcs update_in{arc(sent)};
        if (fine_) {
            std::vector<PlaceId> bucket_ready;
            for (std::size_t bk = 0; bk < buckets.size(); ++bk) {
                bucket_ready.push_back(
                    b_.place(wn(j) + ".bucket" + std::to_string(bk) + ".ready"));
                update_in.push_back(arc(bucket_ready.back()));
            }
            ArcLists gate(worker(j).layers.size());
            ArcLists bwd_out(worker(j).layers.size());
            Arcs last_out;
            bucket_ready_arcs(buckets, bucket_ready, bwd_out, last_out);
            fine_compute(j, {arc(ready)}, gate, {arc(sent)}, bwd_out, last_out);
            worker_update(j, update_in, {arc(ready)});
        } else {
            auto tail = coarse_compute(j, {arc(ready)}, {arc(sent)}, Tail::JoinsStepEnd);
            if (tail) update_in.push_back(arc(*tail));
            worker_update(j, update_in, {arc(ready)});
        }
    }
}

}  // namespace sgdnet::training
