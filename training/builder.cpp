// Net-building helpers of the training lowering: named elements, NIC directions, hosts and
// their CPU jobs, transfers (§5.1).
#include "training/builder.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <utility>

namespace sgdnet::training {
namespace {

using net::ExprOp;
using Code = net::ExprOp::Code;

net::MarkingExpr expr(std::vector<ExprOp> code) {
    net::MarkingExpr e;
    e.code = std::move(code);
    return e;
}
ExprOp konst(double v) { return ExprOp{Code::Const, 0, v}; }
ExprOp tokens(PlaceId p) { return ExprOp{Code::Tokens, p.value, 0}; }
ExprOp op(Code c) { return ExprOp{c, 0, 0}; }

/// The speed of a CPU job on a host of `cores` cores whose jobs in progress are the tokens of
/// `active` (k): min(1, C / k), divided by 1 + interference · (min(k, C) − 1) when the busy
/// cores slow each other, and by 1 + oversubscription · max(0, k − C) / k when jobs outnumber
/// the cores and pay for taking turns (docs/language.md §5.4).
net::MarkingExpr cpu_speed(const HostSpec& host, PlaceId active) {
    std::vector<ExprOp> code{konst(1), konst(host.cores), tokens(active), op(Code::Div),
                             op(Code::Min)};
    auto append = [&code](std::initializer_list<ExprOp> ops) {
        code.insert(code.end(), ops.begin(), ops.end());
    };
    if (host.interference > 0)
        append({konst(1), konst(host.interference), tokens(active), konst(host.cores),
                op(Code::Min), konst(1), op(Code::Sub), op(Code::Mul), op(Code::Add),
                op(Code::Div)});
    if (host.oversubscription > 0)  // max(k, 1) below: no 0 / 0 while the host is idle
        append({konst(1), konst(host.oversubscription), tokens(active), konst(host.cores),
                op(Code::Sub), konst(0), op(Code::Max), tokens(active), konst(1), op(Code::Max),
                op(Code::Div), op(Code::Mul), op(Code::Add), op(Code::Div)});
    return expr(std::move(code));
}

/// Merges arcs to the same place into one arc with the summed multiplicity (first-seen order).
std::vector<Arc> merged(std::vector<Arc> arcs) {
    std::vector<Arc> out;
    for (const Arc& a : arcs) {
        auto it = std::find_if(out.begin(), out.end(), [&](const Arc& o) { return o.place == a.place; });
        if (it == out.end()) {
            out.push_back(a);
        } else {
            it->multiplicity += a.multiplicity;
        }
    }
    return out;
}

void append(std::vector<Arc>& to, const std::vector<Arc>& from) {
    to.insert(to.end(), from.begin(), from.end());
}

std::vector<Arc> operator+(std::vector<Arc> a, const std::vector<Arc>& b) {
    append(a, b);
    return a;
}

}  // namespace

uint32_t share_weight(double ratio, int rank) {
    if (ratio == 1) return 1;
    return static_cast<uint32_t>(std::max(1.0, std::round(kShareScale * std::pow(ratio, rank))));
}

bool is_zero(const net::Distribution& d) {
    const auto* det = std::get_if<net::Det>(&d.v);
    return det != nullptr && det->value_s == 0;
}

net::Distribution scaled(const net::Distribution& d, double factor) {
    if (factor == 1) return d;
    if (const auto* det = std::get_if<net::Det>(&d.v)) return {net::Det{det->value_s * factor}};
    if (const auto* s = std::get_if<net::Scaled>(&d.v)) {
        return {net::Scaled{s->base, s->factor * factor}};
    }
    return {net::Scaled{{d}, factor}};
}

net::Distribution shifted(const net::Distribution& d, double offset) {
    if (offset == 0) return d;
    if (const auto* det = std::get_if<net::Det>(&d.v)) return {net::Det{det->value_s + offset}};
    return {net::Shifted{{d}, offset}};
}

net::Distribution slowed(const net::Distribution& d, double speed) {
    return scaled(d, 1.0 / speed);
}

net::Distribution sum_of(const std::vector<net::Distribution>& parts) {
    double det_total = 0;
    std::vector<net::Distribution> random;
    for (const auto& p : parts) {
        if (const auto* det = std::get_if<net::Det>(&p.v)) {
            det_total += det->value_s;
        } else {
            random.push_back(p);
        }
    }
    if (random.empty()) return {net::Det{det_total}};
    if (det_total > 0) random.push_back({net::Det{det_total}});
    if (random.size() == 1) return random.front();
    return {net::Sum{std::move(random)}};
}

PlaceId Builder::place(const std::string& name, uint32_t initial) {
    net::Place p;
    p.name = name;
    p.initial = initial;
    net_.places.push_back(std::move(p));
    return PlaceId{static_cast<uint32_t>(net_.places.size() - 1)};
}

TransitionId Builder::timed(const std::string& name, net::Distribution delay,
                            std::vector<Arc> in, std::vector<Arc> out, uint32_t servers) {
    net::Transition t;
    t.name = name;
    t.kind = net::TransitionKind::Timed;
    t.delay = std::move(delay);
    t.servers = servers;
    t.inputs = merged(std::move(in));
    t.outputs = merged(std::move(out));
    net_.transitions.push_back(std::move(t));
    return TransitionId{static_cast<uint32_t>(net_.transitions.size() - 1)};
}

TransitionId Builder::immediate(const std::string& name, std::vector<Arc> in,
                                std::vector<Arc> out, double weight) {
    net::Transition t;
    t.name = name;
    t.kind = net::TransitionKind::Immediate;
    t.weight = weight;
    t.inputs = merged(std::move(in));
    t.outputs = merged(std::move(out));
    net_.transitions.push_back(std::move(t));
    return TransitionId{static_cast<uint32_t>(net_.transitions.size() - 1)};
}

TransitionId Builder::step(const std::string& name, const net::Distribution& delay,
                           std::vector<Arc> in, std::vector<Arc> out) {
    if (is_zero(delay)) return immediate(name, std::move(in), std::move(out));
    return timed(name, delay, std::move(in), std::move(out));
}

int Builder::add_host(const HostSpec& host) {
    host_up_.push_back(Direction{host.name + ".up", host.bandwidth_Bps, false, {}, {}, {}});
    host_down_.push_back(Direction{host.name + ".down", host.bandwidth_Bps, false, {}, {}, {}});
    hosts_.push_back(Host{host, {}});
    return static_cast<int>(hosts_.size() - 1);
}

int Builder::add_node(Node node) {
    up_.push_back(Direction{node.name + ".up", node.bandwidth_Bps, false, {}, {}, {}});
    down_.push_back(Direction{node.name + ".down", node.bandwidth_Bps, false, {}, {}, {}});
    nodes_.push_back(std::move(node));
    return static_cast<int>(nodes_.size() - 1);
}

Builder::Direction& Builder::direction(int node, bool up) {
    auto& v = up ? up_ : down_;
    return v[static_cast<std::size_t>(node)];
}

PlaceId Builder::active_place(Direction& d) {
    if (!d.active) d.active = place(d.name + ".active");
    return *d.active;
}

PlaceId Builder::free_place(Direction& d) {
    if (!d.free) d.free = place(d.name + ".free", 1);
    return *d.free;
}

// ---- hosts and CPU jobs ------------------------------------------------------------------

PlaceId Builder::cpu_active(int host) {
    Host& h = hosts_[static_cast<std::size_t>(host)];
    if (!h.active) h.active = place(h.spec.name + ".cpu.active");
    return *h.active;
}

TransitionId Builder::cpu_job(const std::string& name, const net::Distribution& delay,
                              std::optional<int> host, std::vector<Arc> in,
                              std::vector<Arc> out, uint32_t servers) {
    const double cores = host ? hosts_[static_cast<std::size_t>(*host)].spec.cores
                              : std::numeric_limits<double>::infinity();
    if (is_zero(delay)) return immediate(name, std::move(in), std::move(out));
    if (std::isinf(cores)) return timed(name, delay, std::move(in), std::move(out), servers);
    const PlaceId running = place(name + ".running");
    const PlaceId active = cpu_active(*host);
    immediate(name + ".begin", std::move(in), {Arc{running, 1}, Arc{active, 1}});
    const TransitionId t =
        timed(name, delay, {Arc{running, 1}, Arc{active, 1}}, std::move(out), servers);
    // Each of the k jobs in progress gets min(1, C / k) of a core (less with interference);
    // the work left carries over.
    transition(t).speed = cpu_speed(hosts_[static_cast<std::size_t>(*host)].spec, active);
    transition(t).memory = net::Memory::Age;
    return t;
}

std::vector<Arc> Builder::started_cpu_job(const std::string& name, double work_s,
                                          std::optional<int> host, std::vector<Arc> out) {
    const double cores = host ? hosts_[static_cast<std::size_t>(*host)].spec.cores
                              : std::numeric_limits<double>::infinity();
    const PlaceId running = place(name + ".running");
    std::vector<Arc> start{Arc{running, 1}};
    if (!std::isinf(cores)) start.push_back(Arc{cpu_active(*host), 1});
    const TransitionId t = timed(name, net::Distribution{net::Det{work_s}}, start,
                                 std::move(out), net::kInfiniteServers);
    if (!std::isinf(cores)) {
        transition(t).speed =
            cpu_speed(hosts_[static_cast<std::size_t>(*host)].spec, start[1].place);
        transition(t).memory = net::Memory::Age;
    }
    return start;
}

// ---- links -------------------------------------------------------------------------------

bool Builder::has_host_nic(int host) const {
    const HostSpec& h = hosts_[static_cast<std::size_t>(host)].spec;
    return !std::isinf(h.bandwidth_Bps) || h.latency_s > 0;
}

bool Builder::via_host_nic(int node_index, int peer) const {
    const std::optional<int> h = node(node_index).host;
    return h && node(peer).host != h && has_host_nic(*h);
}

LinkEnd Builder::remote_end(int node_index) const {
    const Node& n = node(node_index);
    if (n.host && has_host_nic(*n.host)) {
        const HostSpec& h = hosts_[static_cast<std::size_t>(*n.host)].spec;
        return {h.bandwidth_Bps, h.latency_s};
    }
    return {n.bandwidth_Bps, n.latency_s};
}

LinkEnd Builder::link_end(int node_index, int peer) const {
    if (via_host_nic(node_index, peer)) return remote_end(node_index);
    const Node& n = node(node_index);
    return {n.bandwidth_Bps, n.latency_s};
}

Builder::Route Builder::route(int from, int to) {
    Route r;
    r.ends[0] = link_end(from, to);
    r.ends[1] = link_end(to, from);
    const int ends[2] = {from, to};
    for (int k = 0; k < 2; ++k) {
        if (std::isinf(r.ends[k].bandwidth_Bps)) continue;
        const int peer = ends[1 - k];
        if (via_host_nic(ends[k], peer)) {
            auto& dirs = k == 0 ? host_up_ : host_down_;
            r.dirs[k] = &dirs[static_cast<std::size_t>(*node(ends[k]).host)];
            r.host_nic = true;
        } else {
            r.dirs[k] = &direction(ends[k], k == 0);
        }
    }
    return r;
}

// ---- messages ----------------------------------------------------------------------------

std::vector<Arc> Builder::message(const MessageSpec& m) {
    const double cpu_s = m.bytes > 0 ? m.bytes * costs_.cpu_s_per_byte : 0;
    MessageSpec tx = m;
    std::vector<Arc> fork;
    if (cpu_s > 0) {
        // Both CPU jobs start with the transmission; `M.deliver` waits for the three. One
        // place per part, so that the k-th delivery waits for the k-th end of each (a message
        // sent again before its last delivery, the ring's, has several of each in progress).
        const PlaceId transferred = place(m.name + ".transferred");
        const PlaceId sent = place(m.name + ".cpu.send.done");
        const PlaceId received = place(m.name + ".cpu.recv.done");
        immediate(m.name + ".deliver", {Arc{transferred, 1}, Arc{sent, 1}, Arc{received, 1}},
                  m.deliver);
        fork = started_cpu_job(m.name + ".cpu.send", cpu_s, node(m.from).host, {Arc{sent, 1}});
        append(fork, started_cpu_job(m.name + ".cpu.recv", cpu_s, node(m.to).host,
                                     {Arc{received, 1}}));
        tx.deliver = {Arc{transferred, 1}};
    }
    if (!(costs_.overhead_s > 0)) {
        append(tx.start_inputs, m.tx_inputs);
        return transmission(tx, fork, ".queued");
    }
    // The overhead is paid first, holding the start inputs; its end starts the transmission,
    // which then takes the transmission inputs.
    const PlaceId queued = m.queue ? *m.queue : place(m.name + ".queued");
    tx.queue.reset();
    tx.start_inputs = m.tx_inputs;
    std::vector<Arc> start = transmission(tx, fork, ".overhead.done");
    std::vector<Arc> in{Arc{queued, 1}};
    append(in, m.start_inputs);
    cpu_job(m.name + ".overhead", net::Distribution{net::Det{costs_.overhead_s}},
            node(m.from).host, std::move(in), std::move(start), net::kInfiniteServers);
    return {Arc{queued, 1}};
}

PlaceId Builder::queue_of(const MessageSpec& m, const std::string& suffix) {
    return m.queue ? *m.queue : place(m.name + suffix);
}

std::vector<Arc> Builder::propagation(const MessageSpec& m, double latency_s) {
    if (latency_s <= 0) return m.deliver;
    PlaceId flight = place(m.name + ".flight");
    timed(m.name + ".arrive", net::Distribution{net::Det{latency_s}}, {Arc{flight, 1}},
          m.deliver, net::kInfiniteServers);
    return {Arc{flight, 1}};
}

std::vector<Arc> Builder::untimed_transmission(const MessageSpec& m, const std::vector<Arc>& fork,
                                               const std::string& queue_suffix,
                                               double latency_s) {
    if (m.start_inputs.empty() && m.tx_done.empty()) {
        if (latency_s <= 0) return m.deliver + fork;
        PlaceId queued = queue_of(m, queue_suffix);
        timed(m.name, net::Distribution{net::Det{latency_s}}, {Arc{queued, 1}}, m.deliver,
              net::kInfiniteServers);
        return std::vector<Arc>{Arc{queued, 1}} + fork;
    }
    PlaceId queued = queue_of(m, queue_suffix);
    std::vector<Arc> in{Arc{queued, 1}};
    append(in, m.start_inputs);
    std::vector<Arc> out = m.tx_done;
    append(out, propagation(m, latency_s));
    immediate(m.name, std::move(in), out + fork);
    return {Arc{queued, 1}};
}

std::vector<Arc> Builder::transmission(const MessageSpec& m, const std::vector<Arc>& fork,
                                       const std::string& queue_suffix) {
    Route r = route(m.from, m.to);
    const double bw = std::min(r.ends[0].bandwidth_Bps, r.ends[1].bandwidth_Bps);
    const double tx_s = (m.bytes <= 0 || std::isinf(bw)) ? 0.0 : m.bytes / bw;
    const double lat_s = r.ends[0].latency_s + r.ends[1].latency_s;
    if (tx_s == 0) return untimed_transmission(m, fork, queue_suffix, lat_s);

    for (Direction* d : r.dirs) {
        if (d != nullptr) d->used = true;
    }
    const net::Distribution tx_delay{net::Det{tx_s}};
    DirMode mode = m.mode;
    if (mode == DirMode::Exclusive && r.host_nic) mode = costs_.host_nic_mode;

    switch (mode) {
        case DirMode::Exclusive: {
            PlaceId queued = queue_of(m, queue_suffix);
            std::vector<Arc> in{Arc{queued, 1}};
            append(in, m.start_inputs);
            if (!fork.empty()) {
                // The CPU jobs need a start of their own: `M.start` → `M.sending` → `M`.
                PlaceId sending = place(m.name + ".sending");
                immediate(m.name + ".start", std::move(in),
                          std::vector<Arc>{Arc{sending, 1}} + fork);
                in = {Arc{sending, 1}};
            }
            std::vector<Arc> out = m.tx_done;
            append(out, propagation(m, lat_s));
            TransitionId tx = timed(m.name, tx_delay, std::move(in), std::move(out));
            for (Direction* d : r.dirs) {
                if (d != nullptr) d->busy_terms.push_back({tx, tx_s});
            }
            return {Arc{queued, 1}};
        }
        case DirMode::Fair: {
            // Transmission at rate min(bw_a / k_a, bw_b / k_b) bytes/s, k = active messages of
            // the direction: delay det(S / min(bw_a, bw_b)) run at speed
            // min(bw_a / (min_bw · k_a), bw_b / (min_bw · k_b)); remaining bytes carry over
            // because speed implies age memory.
            // With share weights w (share_weight()), the counter holds the weights of the
            // direction's messages and the share is w / counter instead of 1 / k.
            PlaceId pending = place(m.name + ".sending");
            std::vector<Arc> started{Arc{pending, 1}};
            std::vector<ExprOp> code;
            int terms = 0;
            for (int k = 0; k < 2; ++k) {
                Direction* d = r.dirs[k];
                if (d == nullptr) continue;
                PlaceId act = active_place(*d);
                const int peer = k == 0 ? m.to : m.from;
                const uint32_t w = share_weight(costs_.share_ratio, node(peer).rank);
                started.push_back(Arc{act, w});
                code.push_back(konst(w * d->bandwidth_Bps / bw));
                code.push_back(tokens(act));
                code.push_back(op(Code::Div));
                if (++terms == 2) code.push_back(op(Code::Min));
            }
            std::vector<Arc> out = m.tx_done;
            append(out, propagation(m, lat_s));
            TransitionId tx = timed(m.name, tx_delay, started, std::move(out));
            transition(tx).speed = expr(std::move(code));
            transition(tx).memory = net::Memory::Age;
            if (m.start_inputs.empty()) return started + fork;
            PlaceId queued = queue_of(m, queue_suffix);
            std::vector<Arc> in{Arc{queued, 1}};
            append(in, m.start_inputs);
            immediate(m.name + ".start", std::move(in), started + fork);
            return {Arc{queued, 1}};
        }
        case DirMode::Fifo: {
            // Both directions' `free` tokens are taken at once by an immediate start and given
            // back when transmission ends.
            PlaceId queued = queue_of(m, queue_suffix);
            PlaceId sending = place(m.name + ".sending");
            std::vector<Arc> in{Arc{queued, 1}};
            append(in, m.start_inputs);
            std::vector<Arc> out;
            for (Direction* d : r.dirs) {
                if (d == nullptr) continue;
                PlaceId f = free_place(*d);
                in.push_back(Arc{f, 1});
                out.push_back(Arc{f, 1});
            }
            immediate(m.name + ".start", std::move(in),
                      std::vector<Arc>{Arc{sending, 1}} + fork);
            append(out, m.tx_done);
            append(out, propagation(m, lat_s));
            timed(m.name, tx_delay, {Arc{sending, 1}}, std::move(out));
            return {Arc{queued, 1}};
        }
    }
    return {};
}

void Builder::add_nic_measures() {
    auto add = [&](Direction& d) {
        if (!d.used) return;
        net::Measure m;
        m.name = "util." + d.name;
        m.fraction = true;
        m.unit = "";
        if (d.active) {
            m.kind = net::Measure::Kind::TimeAverage;
            m.expr = expr({tokens(*d.active), konst(0), op(Code::Gt)});
        } else if (d.free) {
            m.kind = net::Measure::Kind::TimeAverage;
            m.expr = expr({konst(1), tokens(*d.free), op(Code::Sub)});
        } else {
            m.kind = net::Measure::Kind::Throughput;
            m.terms = d.busy_terms;
        }
        net_.measures.push_back(std::move(m));
    };
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
        add(up_[n]);
        add(down_[n]);
    }
    for (std::size_t h = 0; h < hosts_.size(); ++h) {
        add(host_up_[h]);
        add(host_down_[h]);
    }
}

void Builder::add_host_measures() {
    for (std::size_t h = 0; h < hosts_.size(); ++h) {
        const double cores = hosts_[h].spec.cores;
        if (std::isinf(cores)) continue;
        // Busy fraction of the cores: min(k, C) of them work while k jobs are in progress.
        const PlaceId active = cpu_active(static_cast<int>(h));
        net::Measure m;
        m.name = "util." + hosts_[h].spec.name;
        m.fraction = true;
        m.kind = net::Measure::Kind::TimeAverage;
        m.expr = expr({tokens(active), konst(cores), op(Code::Min), konst(cores), op(Code::Div)});
        m.unit = "";
        net_.measures.push_back(std::move(m));
    }
}

}  // namespace sgdnet::training
