// Net-building helpers of the training lowering: named places and transitions, NIC directions,
// and messages with the transfer semantics of LANGUAGE.md §5.1.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "training/training_spec.hpp"
#include "net/petri_net.hpp"

namespace sgdnet::training {

using net::Arc;
using net::PlaceId;
using net::TransitionId;

/// How the messages of one NIC direction share it.
/// - Exclusive: the scheme guarantees at most one message at a time (ring rounds); no resource
///   place is needed and the transfer time is simply bytes / min(bw_a, bw_b).
/// - Fair: processor sharing through a `NODE.up.active` counter and the transmission's `speed`.
/// - Fifo: one message at a time through a `NODE.up.free` token.
enum class DirMode { Exclusive, Fair, Fifo };

/// A network endpoint (worker or server NIC).
struct Node {
    std::string name;
    double bandwidth_Bps = kInfiniteBandwidth;
    double latency_s = 0;
};

/// A message to add (LANGUAGE.md §5.1). The initiating transition outputs the arcs returned by
/// Builder::message(); `deliver` receives a token when the message has arrived (after
/// transmission and propagation); `tx_done` when its transmission ends.
struct MessageSpec {
    std::string name;  // e.g. `ring.bucket1.w[2]`
    int from = 0;      // node index (Builder::add_node)
    int to = 0;
    double bytes = 0;
    DirMode mode = DirMode::Fair;
    std::vector<Arc> start_inputs;  // extra places the start must consume (stream order, …)
    std::vector<Arc> tx_done;
    std::vector<Arc> deliver;
    /// The place whose tokens start the message (default: a new `NAME.queued`). A message sent
    /// many times per step (the ring's chunks) is given its own queue of pending sends.
    std::optional<PlaceId> queue;
};

/// Appends named elements to a PetriNet and keeps the NIC bookkeeping needed for the
/// utilization measures of §5.3.
class Builder {
public:
    explicit Builder(net::PetriNet& net) : net_(net) {}

    PlaceId place(const std::string& name, uint32_t initial = 0);
    TransitionId timed(const std::string& name, net::Distribution delay, std::vector<Arc> in,
                       std::vector<Arc> out, uint32_t servers = 1);
    TransitionId immediate(const std::string& name, std::vector<Arc> in, std::vector<Arc> out,
                           double weight = 1);
    /// A timed transition when `delay` is not det(0), an immediate one otherwise.
    TransitionId step(const std::string& name, const net::Distribution& delay,
                      std::vector<Arc> in, std::vector<Arc> out);
    net::Transition& transition(TransitionId id) { return net_.transitions[id.value]; }
    net::PetriNet& net() { return net_; }

    int add_node(Node node);
    const Node& node(int index) const { return nodes_[static_cast<std::size_t>(index)]; }

    /// Adds a message and returns the arcs its initiating transition must output. When the
    /// message takes no time and has no start inputs, those are `deliver` themselves.
    std::vector<Arc> message(const MessageSpec& m);

    /// Utilization measures of every NIC direction that carried a message:
    /// `util.NODE.up` / `util.NODE.down`, in node order.
    void add_nic_measures();

private:
    struct Direction {
        std::string name;  // `w[0].up`
        double bandwidth_Bps = kInfiniteBandwidth;
        bool used = false;
        std::optional<PlaceId> active;  // Fair
        std::optional<PlaceId> free;    // Fifo
        std::vector<net::Measure::Term> busy_terms;  // Exclusive: transmission × its duration
    };
    Direction& direction(int node, bool up);
    PlaceId active_place(Direction& d);
    PlaceId free_place(Direction& d);

    net::PetriNet& net_;
    std::vector<Node> nodes_;
    std::vector<Direction> up_, down_;
};

/// det(0)?
bool is_zero(const net::Distribution& d);
/// `d` divided by `speed` (unchanged when speed == 1).
net::Distribution slowed(const net::Distribution& d, double speed);
/// Sum of the distributions (det when all are det; dropping det(0) parts).
net::Distribution sum_of(const std::vector<net::Distribution>& parts);
/// `d` scaled by factor (unchanged when factor == 1).
net::Distribution scaled(const net::Distribution& d, double factor);

}  // namespace sgdnet::training
