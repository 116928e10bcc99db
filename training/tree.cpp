// allreduce_tree (docs/language.md §5.2), fine and coarse, as a net.
//
// Binary tree rooted at worker 0 (children of j: 2j+1, 2j+2). For each bucket, node j > 0
// sends its reduced gradient to its parent once its own gradient is ready and both children's
// have arrived (and, for b > 0, its bucket b−1 reduce transmission has ended: buckets in
// order); the root, once it has its children's, broadcasts down; a node forwards the
// broadcast to its children on arrival. A worker updates when every bucket came back.
#include <cstdint>
#include <string>
#include <vector>

#include "training/lowering.hpp"

namespace sgdnet::training {

void Lowering::tree() {
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
    std::vector<ArcLists> bcast_start(u(nb),
                                                           ArcLists(u(n_)));
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
        Arcs first_start;
        // Reverse bucket order so each reduce knows its successor's start arcs.
        Arcs next_start;
        for (int bk = nb - 1; bk >= 0; --bk) {
            Arcs cond;
            if (fine_) cond.push_back(arc(bucket_ready[u(j)][u(bk)]));
            for (int c : children(j)) cond.push_back(arc(up_arrived[u(bk)][u(c)]));
            if (j == 0) {
                PlaceId turn = b_.place(bucket_prefix("tree", u(bk)) + ".root.turn");
                Arcs out{arc(done[0])};
                for (int c : children(0)) out = out + bcast_start[u(bk)][u(c)];
                out = out + next_start;
                b_.immediate(bucket_prefix("tree", u(bk)) + ".root", cond + Arcs{arc(turn)},
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
        Arcs update_in{arc(done[u(j)], static_cast<uint32_t>(nb))};
        if (fine_) {
            ArcLists gate(worker(j).layers.size());
            ArcLists bwd_out(worker(j).layers.size());
            Arcs last_out;
            bucket_ready_arcs(buckets, bucket_ready[u(j)], bwd_out, last_out);
            fine_compute(j, step_start(j, ready[u(j)], mode_), gate, first_start, bwd_out,
                         last_out);
        } else {
            auto tail = coarse_compute(j, step_start(j, ready[u(j)], mode_), first_start,
                                       Tail::JoinsStepEnd);
            if (tail) update_in.push_back(arc(*tail));
        }
        worker_update(j, update_in, {arc(ready[u(j)])});
    }
}

}  // namespace sgdnet::training
