// Net-building helpers of the training lowering: named places and transitions, NIC directions,
// hosts and their CPU jobs, and messages with the transfer semantics of docs/language.md §5.1.
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
///   place is needed and the transfer time is simply bytes / min(bw_a, bw_b). A message through
///   a host NIC with a bandwidth (shared by the host's nodes) cannot be exclusive: it takes the
///   host NICs' mode instead (MessageCosts).
/// - Fair: processor sharing through a `NODE.up.active` counter and the transmission's `speed`;
///   with MessageCosts::share_ratio < 1, discriminatory: each message adds its weight to the
///   counter and progresses at weight / counter of the direction.
/// - Fifo: one message at a time through a `NODE.up.free` token.
enum class DirMode { Exclusive, Fair, Fifo };

/// A network endpoint (worker or server NIC).
struct Node {
    std::string name;
    double bandwidth_Bps = kInfiniteBandwidth;
    double latency_s = 0;
    std::optional<int> host{};  // Builder::add_host index; none: alone on a host of infinite cores
    int rank = 0;               // index among the nodes of its kind (w[3]: 3), for share weights
};

/// What every message costs besides its transfer, and how host NICs are shared.
struct MessageCosts {
    double overhead_s = 0;        // CPU work on the sender's host before the transmission
    double cpu_s_per_byte = 0;    // CPU work per byte at each end, beside the transmission
    DirMode host_nic_mode = DirMode::Fair;  // of messages through a host NIC (never Exclusive)
    double share_ratio = 1;       // Fair: a message's weight on a direction is ratio^(peer rank)
};

/// The integer weight of a message whose peer on a fair direction has rank `rank`:
/// round(kShareScale · ratio^rank), at least 1; 1 when ratio is 1 (equal shares).
uint32_t share_weight(double ratio, int rank);
inline constexpr double kShareScale = 1000;

/// A message to add (docs/language.md §5.1). The initiating transition outputs the arcs returned by
/// Builder::message(); `deliver` receives a token when the message has arrived (after
/// transmission and propagation, and the CPU jobs of its bytes); `tx_done` when its
/// transmission ends.
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
    /// Extra places the transmission must consume when it starts, after the sender's overhead:
    /// a rendezvous's receive, posted by the receiver (docs/language.md §5.1, `protocol`).
    std::vector<Arc> tx_inputs;
};

/// One end of a link: the NIC a node uses towards a peer.
struct LinkEnd {
    double bandwidth_Bps = kInfiniteBandwidth;
    double latency_s = 0;
};

/// Appends named elements to a PetriNet and keeps the NIC and host bookkeeping needed for the
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

    /// Adds a host (its cores and optional NIC); returns its index for Node::host.
    int add_host(const HostSpec& host);
    int add_node(Node node);
    const Node& node(int index) const { return nodes_[static_cast<std::size_t>(index)]; }
    void set_message_costs(const MessageCosts& costs) { costs_ = costs; }
    const MessageCosts& message_costs() const { return costs_; }

    /// A CPU job on `host` (none: a private host of infinite cores) of `delay` at full speed,
    /// consuming `in` and producing `out`; returns the transition that ends it. On a host of
    /// infinite cores it is the plain transition `name` (step(): immediate when det(0)). On a
    /// host of C cores the immediate `NAME.begin` moves `in` to `NAME.running` and one token of
    /// `HOST.cpu.active`, and `NAME` (consuming both) runs at speed min(1, C / k), k the tokens
    /// of `HOST.cpu.active`, with age memory: processor sharing of the host's cores.
    TransitionId cpu_job(const std::string& name, const net::Distribution& delay,
                         std::optional<int> host, std::vector<Arc> in, std::vector<Arc> out,
                         uint32_t servers = 1);

    /// The NIC `node` uses for messages to `peer`: its host's NIC when the two are on different
    /// hosts and its host has one, its own otherwise.
    LinkEnd link_end(int node, int peer) const;
    /// The NIC `node` uses for messages to a node on another host.
    LinkEnd remote_end(int node) const;

    /// Adds a message and returns the arcs its initiating transition must output. When the
    /// message takes no time and has no start inputs, those are `deliver` themselves. The
    /// message pays the MessageCosts (`M.overhead` on the sender's host, then `M.cpu.send` and
    /// `M.cpu.recv` beside the transmission, joined by `M.deliver`), and an end on another
    /// host than its peer goes through its host's NIC when that host has one (link_end()).
    std::vector<Arc> message(const MessageSpec& m);

    /// Utilization measures of every NIC direction that carried a message:
    /// `util.NODE.up` / `util.NODE.down` in node order, then `util.HOST.up` / `.down`.
    void add_nic_measures();
    /// `util.HOST` for every host of finite cores: the time average of min(k, C) / C.
    void add_host_measures();

private:
    struct Direction {
        std::string name;  // `w[0].up`
        double bandwidth_Bps = kInfiniteBandwidth;
        bool used = false;
        std::optional<PlaceId> active;  // Fair
        std::optional<PlaceId> free;    // Fifo
        std::vector<net::Measure::Term> busy_terms;  // Exclusive: transmission × its duration
    };
    struct Host {
        HostSpec spec;
        std::optional<PlaceId> active;  // `HOST.cpu.active`, finite cores only
    };
    /// The NIC directions and ends a message from `from` to `to` goes through.
    struct Route {
        LinkEnd ends[2];
        Direction* dirs[2] = {nullptr, nullptr};  // none: infinite bandwidth
        bool host_nic = false;                    // through a host NIC with a bandwidth
    };
    Direction& direction(int node, bool up);
    PlaceId active_place(Direction& d);
    PlaceId free_place(Direction& d);
    PlaceId cpu_active(int host);
    bool has_host_nic(int host) const;
    bool via_host_nic(int node, int peer) const;
    Route route(int from, int to);
    /// A CPU job whose start is the transition that outputs the returned arcs (cpu_job()
    /// without `NAME.begin`); a job may run several times at once (infinite servers).
    std::vector<Arc> started_cpu_job(const std::string& name, double work_s,
                                     std::optional<int> host, std::vector<Arc> out);
    /// The transmission and propagation of `m` (§5.1); `fork` is output when the transmission
    /// starts; `queue_suffix` names the queue place it creates when it needs one.
    std::vector<Arc> transmission(const MessageSpec& m, const std::vector<Arc>& fork,
                                  const std::string& queue_suffix);
    /// transmission() of a message that takes no transmission time (no bytes, or neither end
    /// limits the bandwidth): an immediate, or only its propagation.
    std::vector<Arc> untimed_transmission(const MessageSpec& m, const std::vector<Arc>& fork,
                                          const std::string& queue_suffix, double latency_s);
    /// The place whose tokens start the transmission: `m.queue`, or a new `NAME` + suffix.
    PlaceId queue_of(const MessageSpec& m, const std::string& suffix);
    /// What the end of a transmission outputs: `m.deliver`, or with a latency a token in
    /// `NAME.flight`, from which `NAME.arrive` ~ det(latency) (infinite server: the links are
    /// free meanwhile) delivers.
    std::vector<Arc> propagation(const MessageSpec& m, double latency_s);

    net::PetriNet& net_;
    std::vector<Node> nodes_;
    std::vector<Host> hosts_;
    std::vector<Direction> up_, down_;            // per node
    std::vector<Direction> host_up_, host_down_;  // per host
    MessageCosts costs_;
};

/// det(0)?
bool is_zero(const net::Distribution& d);
/// `d` divided by `speed` (unchanged when speed == 1).
net::Distribution slowed(const net::Distribution& d, double speed);
/// Sum of the distributions (det when all are det; dropping det(0) parts).
net::Distribution sum_of(const std::vector<net::Distribution>& parts);
/// `d` scaled by factor (unchanged when factor == 1).
net::Distribution scaled(const net::Distribution& d, double factor);
/// `d` + `offset` seconds (unchanged when offset == 0; a det stays a det).
net::Distribution shifted(const net::Distribution& d, double offset);

}  // namespace sgdnet::training
