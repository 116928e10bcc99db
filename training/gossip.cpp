// gossip (docs/language.md §5.2), fine and coarse, as a net.
//
// After its compute, worker i picks one of its ring neighbours uniformly (immediates
// `W.pick.NEIGHBOUR`, weight 1 each), sends its model to it and receives the neighbour's
// (`gossip.W.send.NEIGHBOUR`, `gossip.W.recv.NEIGHBOUR`, model_bytes each, concurrently; the
// neighbour's NIC serves them whatever it is doing), then averages (`W.update`).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "training/lowering.hpp"

namespace sgdnet::training {

void Lowering::gossip() {
    for (int i = 0; i < n_; ++i) {
        PlaceId ready = b_.place(wn(i) + ".ready", 1);
        PlaceId exchanged = b_.place(wn(i) + ".gossip.done");
        std::vector<int> nbrs;
        for (int x : {(i + n_ - 1) % n_, (i + 1) % n_}) {
            if (x != i && std::find(nbrs.begin(), nbrs.end(), x) == nbrs.end()) nbrs.push_back(x);
        }
        ArcLists exchange;
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
        Arcs after_compute;
        if (exchange.size() == 1) {
            after_compute = exchange[0];
        } else if (exchange.size() == 2) {
            PlaceId computed = b_.place(wn(i) + ".computed");
            for (std::size_t c = 0; c < 2; ++c) {
                b_.immediate(wn(i) + ".pick." + wn(nbrs[c]), {arc(computed)}, exchange[c]);
            }
            after_compute = {arc(computed)};
        }
        Arcs update_in;
        if (!exchange.empty()) update_in.push_back(arc(exchanged, 2));
        if (fine_) {
            ArcLists none(worker(i).layers.size());
            PlaceId bwd_done = b_.place(wn(i) + ".bwd.done");
            fine_compute(i, {arc(ready)}, none, {}, none,
                         after_compute + Arcs{arc(bwd_done)});
            update_in.push_back(arc(bwd_done));
        } else {
            PlaceId computed_end = b_.place(wn(i) + ".compute.done");
            auto tail = coarse_compute(i, {arc(ready)},
                                       after_compute + Arcs{arc(computed_end)},
                                       Tail::JoinsStepEnd);
            update_in.push_back(arc(computed_end));
            if (tail) update_in.push_back(arc(*tail));
        }
        worker_update(i, update_in, {arc(ready)});
    }
}

}  // namespace sgdnet::training
