// Net-building helpers of the training lowering: named elements, NIC directions, transfers (§5.1).
#include "training/builder.hpp"

#include <algorithm>
#include <cmath>
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

}  // namespace

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

std::vector<Arc> Builder::message(const MessageSpec& m) {
    const Node& a = node(m.from);
    const Node& b = node(m.to);
    const double bw = std::min(a.bandwidth_Bps, b.bandwidth_Bps);
    const double tx_s = (m.bytes <= 0 || std::isinf(bw)) ? 0.0 : m.bytes / bw;
    const double lat_s = a.latency_s + b.latency_s;

    auto queued_place = [&]() { return m.queue ? *m.queue : place(m.name + ".queued"); };
    // Propagation: `NAME.flight` → `NAME.arrive` ~ det(latency), infinite server (links free).
    auto after_tx = [&]() -> std::vector<Arc> {
        if (lat_s <= 0) return m.deliver;
        PlaceId flight = place(m.name + ".flight");
        timed(m.name + ".arrive", net::Distribution{net::Det{lat_s}}, {Arc{flight, 1}}, m.deliver,
              net::kInfiniteServers);
        return {Arc{flight, 1}};
    };

    if (tx_s == 0) {
        if (m.start_inputs.empty() && m.tx_done.empty()) {
            if (lat_s <= 0) return m.deliver;
            PlaceId queued = queued_place();
            timed(m.name, net::Distribution{net::Det{lat_s}}, {Arc{queued, 1}}, m.deliver,
                  net::kInfiniteServers);
            return {Arc{queued, 1}};
        }
        PlaceId queued = queued_place();
        std::vector<Arc> in{Arc{queued, 1}};
        append(in, m.start_inputs);
        std::vector<Arc> out = m.tx_done;
        append(out, after_tx());
        immediate(m.name, std::move(in), std::move(out));
        return {Arc{queued, 1}};
    }

    Direction* dirs[2] = {nullptr, nullptr};
    if (!std::isinf(a.bandwidth_Bps)) dirs[0] = &direction(m.from, true);
    if (!std::isinf(b.bandwidth_Bps)) dirs[1] = &direction(m.to, false);
    for (Direction* d : dirs) {
        if (d != nullptr) d->used = true;
    }
    const net::Distribution tx_delay{net::Det{tx_s}};

    switch (m.mode) {
        case DirMode::Exclusive: {
            PlaceId queued = queued_place();
            std::vector<Arc> in{Arc{queued, 1}};
            append(in, m.start_inputs);
            std::vector<Arc> out = m.tx_done;
            append(out, after_tx());
            TransitionId tx = timed(m.name, tx_delay, std::move(in), std::move(out));
            for (Direction* d : dirs) {
                if (d != nullptr) d->busy_terms.push_back({tx, tx_s});
            }
            return {Arc{queued, 1}};
        }
        case DirMode::Fair: {
            // Transmission at rate min(bw_a / k_a, bw_b / k_b) bytes/s, k = active messages of
            // the direction: delay det(S / min(bw_a, bw_b)) run at speed
            // min(bw_a / (min_bw · k_a), bw_b / (min_bw · k_b)); remaining bytes carry over
            // because speed implies age memory.
            PlaceId pending = place(m.name + ".sending");
            std::vector<Arc> started{Arc{pending, 1}};
            std::vector<ExprOp> code;
            int terms = 0;
            for (Direction* d : dirs) {
                if (d == nullptr) continue;
                PlaceId act = active_place(*d);
                started.push_back(Arc{act, 1});
                code.push_back(konst(d->bandwidth_Bps / bw));
                code.push_back(tokens(act));
                code.push_back(op(Code::Div));
                if (++terms == 2) code.push_back(op(Code::Min));
            }
            std::vector<Arc> out = m.tx_done;
            append(out, after_tx());
            TransitionId tx = timed(m.name, tx_delay, started, std::move(out));
            transition(tx).speed = expr(std::move(code));
            transition(tx).memory = net::Memory::Age;
            if (m.start_inputs.empty()) return started;
            PlaceId queued = queued_place();
            std::vector<Arc> in{Arc{queued, 1}};
            append(in, m.start_inputs);
            immediate(m.name + ".start", std::move(in), started);
            return {Arc{queued, 1}};
        }
        case DirMode::Fifo: {
            // Both directions' `free` tokens are taken at once by an immediate start and given
            // back when transmission ends.
            PlaceId queued = queued_place();
            PlaceId sending = place(m.name + ".sending");
            std::vector<Arc> in{Arc{queued, 1}};
            append(in, m.start_inputs);
            std::vector<Arc> out;
            for (Direction* d : dirs) {
                if (d == nullptr) continue;
                PlaceId f = free_place(*d);
                in.push_back(Arc{f, 1});
                out.push_back(Arc{f, 1});
            }
            immediate(m.name + ".start", std::move(in), {Arc{sending, 1}});
            append(out, m.tx_done);
            append(out, after_tx());
            timed(m.name, tx_delay, {Arc{sending, 1}}, std::move(out));
            return {Arc{queued, 1}};
        }
    }
    return {};
}

void Builder::add_nic_measures() {
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
        for (Direction* d : {&up_[n], &down_[n]}) {
            if (!d->used) continue;
            net::Measure m;
            m.name = "util." + d->name;
            m.unit = "";
            if (d->active) {
                m.kind = net::Measure::Kind::TimeAverage;
                m.expr = expr({tokens(*d->active), konst(0), op(Code::Gt)});
            } else if (d->free) {
                m.kind = net::Measure::Kind::TimeAverage;
                m.expr = expr({konst(1), tokens(*d->free), op(Code::Sub)});
            } else {
                m.kind = net::Measure::Kind::Throughput;
                m.terms = d->busy_terms;
            }
            net_.measures.push_back(std::move(m));
        }
    }
}

}  // namespace sgdnet::training
