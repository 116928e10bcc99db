// Small helpers that build Petri nets programmatically for the exact-solver tests.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "net/petri_net.hpp"

namespace sgdnet::test {

/// Incremental construction of a net::PetriNet: places, transitions and measures by name.
struct NetBuilder {
    using Arcs = std::vector<std::pair<uint32_t, uint32_t>>;  // (place, multiplicity)
    net::PetriNet net;

    uint32_t place(const std::string& name, uint32_t initial = 0,
                   std::optional<uint32_t> bound = std::nullopt) {
        net::Place p;
        p.name = name;
        p.initial = initial;
        p.bound = bound;
        net.places.push_back(p);
        return static_cast<uint32_t>(net.places.size() - 1);
    }
    static std::vector<net::Arc> arcs(const Arcs& a) {
        std::vector<net::Arc> out;
        for (auto [p, m] : a) out.push_back({net::PlaceId{p}, m});
        return out;
    }
    /// A timed transition with the given delay distribution.
    uint32_t timed_dist(const std::string& name, net::Distribution d, const Arcs& in,
                        const Arcs& out, const Arcs& inhibit = {}, uint32_t servers = 1) {
        net::Transition t;
        t.name = name;
        t.kind = net::TransitionKind::Timed;
        t.delay = std::move(d);
        t.servers = servers;
        t.inputs = arcs(in);
        t.outputs = arcs(out);
        t.inhibitors = arcs(inhibit);
        net.transitions.push_back(t);
        return static_cast<uint32_t>(net.transitions.size() - 1);
    }
    /// A timed exponential transition of rate `rate` (1/s).
    uint32_t timed(const std::string& name, double rate, const Arcs& in, const Arcs& out,
                   const Arcs& inhibit = {}, uint32_t servers = 1) {
        return timed_dist(name, net::Distribution{net::Exp{rate}}, in, out, inhibit, servers);
    }
    uint32_t immediate(const std::string& name, int priority, double weight, const Arcs& in,
                       const Arcs& out, const Arcs& inhibit = {}) {
        net::Transition t;
        t.name = name;
        t.kind = net::TransitionKind::Immediate;
        t.priority = priority;
        t.weight = weight;
        t.inputs = arcs(in);
        t.outputs = arcs(out);
        t.inhibitors = arcs(inhibit);
        net.transitions.push_back(t);
        return static_cast<uint32_t>(net.transitions.size() - 1);
    }
    void throughput(const std::string& name, std::vector<std::pair<uint32_t, double>> terms,
                    bool inverse = false) {
        net::Measure m;
        m.name = name;
        m.kind = inverse ? net::Measure::Kind::MeanInverseThroughput
                         : net::Measure::Kind::Throughput;
        for (auto [t, c] : terms) m.terms.push_back({net::TransitionId{t}, c});
        m.unit = inverse ? "s" : "1/s";
        net.measures.push_back(m);
    }
    void time_average(const std::string& name, net::MarkingExpr e) {
        net::Measure m;
        m.name = name;
        m.kind = net::Measure::Kind::TimeAverage;
        m.expr = std::move(e);
        net.measures.push_back(m);
    }
    void tokens(const std::string& name, uint32_t p) {
        time_average(name, net::MarkingExpr::tokens(p));
    }
    /// prob(tokens(p) >= k)
    void prob_at_least(const std::string& name, uint32_t p, double k) {
        net::MarkingExpr e;
        e.code.push_back({net::ExprOp::Code::Tokens, p, 0});
        e.code.push_back({net::ExprOp::Code::Const, 0, k});
        e.code.push_back({net::ExprOp::Code::Ge, 0, 0});
        time_average(name, e);
    }
};

/// 1 / tokens(p) as a marking expression (processor-sharing speed).
inline net::MarkingExpr inverse_tokens(uint32_t p) {
    net::MarkingExpr e;
    e.code.push_back({net::ExprOp::Code::Const, 0, 1});
    e.code.push_back({net::ExprOp::Code::Tokens, p, 0});
    e.code.push_back({net::ExprOp::Code::Div, 0, 0});
    return e;
}

/// Value of the measure named `name` in a result.
template <class Result>
double measure(const Result& r, const std::string& name) {
    for (const auto& m : r.measures) {
        if (m.name == name) return m.mean;
    }
    throw std::runtime_error("no measure " + name);
}

}  // namespace sgdnet::test
