// Builders of small nets shared by the solvers' tests and benchmarks (truths: mva.hpp,
// closed_forms.hpp).
#pragma once

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "net/petri_net.hpp"

namespace sgdnet::testing {

using ArcList = std::vector<std::pair<uint32_t, uint32_t>>;  // (place, multiplicity)

/// Builds a net programmatically, one element at a time.
struct NetBuilder {
    using Arcs = ArcList;
    net::PetriNet net;

    explicit NetBuilder(std::string name = "test") { net.name = std::move(name); }

    uint32_t place(const std::string& name, uint32_t initial = 0,
                   std::optional<uint32_t> bound = {}) {
        net.places.push_back({name, initial, bound, {}});
        return static_cast<uint32_t>(net.places.size() - 1);
    }
    static std::vector<net::Arc> arcs(const ArcList& l) {
        std::vector<net::Arc> out;
        for (auto [p, m] : l) out.push_back({net::PlaceId{p}, m});
        return out;
    }
    uint32_t timed(const std::string& name, net::Distribution delay, const ArcList& in,
                   const ArcList& out, const ArcList& inhibit = {}, uint32_t servers = 1,
                   net::Memory memory = net::Memory::Enabling,
                   std::optional<net::MarkingExpr> speed = {}) {
        net::Transition t;
        t.name = name;
        t.kind = net::TransitionKind::Timed;
        t.delay = std::move(delay);
        t.servers = servers;
        t.memory = memory;
        t.speed = std::move(speed);
        t.inputs = arcs(in);
        t.outputs = arcs(out);
        t.inhibitors = arcs(inhibit);
        net.transitions.push_back(std::move(t));
        return static_cast<uint32_t>(net.transitions.size() - 1);
    }
    /// A timed exponential transition of rate `rate` (1/s).
    uint32_t timed(const std::string& name, double rate, const ArcList& in, const ArcList& out,
                   const ArcList& inhibit = {}, uint32_t servers = 1) {
        return timed(name, net::Distribution{net::Exp{rate}}, in, out, inhibit, servers);
    }
    uint32_t immediate(const std::string& name, int priority, double weight, const ArcList& in,
                       const ArcList& out, const ArcList& inhibit = {}) {
        net::Transition t;
        t.name = name;
        t.kind = net::TransitionKind::Immediate;
        t.priority = priority;
        t.weight = weight;
        t.inputs = arcs(in);
        t.outputs = arcs(out);
        t.inhibitors = arcs(inhibit);
        net.transitions.push_back(std::move(t));
        return static_cast<uint32_t>(net.transitions.size() - 1);
    }
    /// Σ coef·throughput(t); with `inverse`, Σ coef / throughput(t) (mean time between firings).
    void throughput(const std::string& name, std::vector<std::pair<uint32_t, double>> terms,
                    bool inverse = false) {
        net::Measure m;
        m.name = name;
        m.kind =
            inverse ? net::Measure::Kind::MeanInverseThroughput : net::Measure::Kind::Throughput;
        for (auto [t, c] : terms) m.terms.push_back({net::TransitionId{t}, c});
        m.unit = inverse ? "s" : "1/s";
        net.measures.push_back(std::move(m));
    }
    void throughput(const std::string& name, uint32_t t) { throughput(name, {{t, 1.0}}); }
    void inverse_throughput(const std::string& name,
                            std::vector<std::pair<uint32_t, double>> terms) {
        throughput(name, std::move(terms), true);
    }
    void average(const std::string& name, net::MarkingExpr e, std::string unit = "tokens") {
        net::Measure m;
        m.name = name;
        m.kind = net::Measure::Kind::TimeAverage;
        m.expr = std::move(e);
        m.unit = std::move(unit);
        net.measures.push_back(std::move(m));
    }
    void tokens(const std::string& name, uint32_t p) { average(name, net::MarkingExpr::tokens(p)); }
    /// prob(tokens(p) >= k)
    void prob_at_least(const std::string& name, uint32_t p, double k) {
        using C = net::ExprOp::Code;
        average(name, {{{C::Tokens, p, 0}, {C::Const, 0, k}, {C::Ge, 0, 0}}}, "");
    }
    /// Places and transitions of a cycle (see cycle()).
    struct Cycle {
        std::vector<uint32_t> places, transitions;
    };
    /// A cycle of single-server exponential stations: place `q<i>` holding initial[i] tokens,
    /// served by transition `s<i>` at rate rates[i] (1/s) into `q<i+1>`, the last into `q0`. A
    /// closed cyclic queueing network (mva.hpp: cyclic_mva) or a token ring.
    Cycle cycle(const std::vector<double>& rates, const std::vector<uint32_t>& initial) {
        Cycle c;
        for (std::size_t i = 0; i < rates.size(); ++i)
            c.places.push_back(place("q" + std::to_string(i), initial[i]));
        for (std::size_t i = 0; i < rates.size(); ++i)
            c.transitions.push_back(timed("s" + std::to_string(i), rates[i], {{c.places[i], 1}},
                                          {{c.places[(i + 1) % rates.size()], 1}}));
        return c;
    }
    /// A birth–death chain as a net: one token on levels `l0`..`lN` (N = birth.size()), first in
    /// `l0`; `up<i>` moves it l_i → l_{i+1} at rate birth[i], `down<i>` back at death[i].
    /// Measures `p<i>` = tokens(l_i) (i = 0..N), then `x<i>` = throughput(up_i) (i < N).
    void birth_death_chain(const std::vector<double>& birth, const std::vector<double>& death) {
        std::vector<uint32_t> lv, up;
        for (std::size_t i = 0; i <= birth.size(); ++i)
            lv.push_back(place("l" + std::to_string(i), i == 0 ? 1 : 0));
        for (std::size_t i = 0; i < birth.size(); ++i) {
            up.push_back(timed("up" + std::to_string(i), birth[i], {{lv[i], 1}}, {{lv[i + 1], 1}}));
            timed("down" + std::to_string(i), death[i], {{lv[i + 1], 1}}, {{lv[i], 1}});
        }
        for (std::size_t i = 0; i < lv.size(); ++i) tokens("p" + std::to_string(i), lv[i]);
        for (std::size_t i = 0; i < up.size(); ++i) throughput("x" + std::to_string(i), up[i]);
    }
    /// A closed cyclic network with every one of `customers` customers in `q0`.
    Cycle cyclic_network(const std::vector<double>& rates, uint32_t customers) {
        std::vector<uint32_t> initial(rates.size(), 0);
        initial[0] = customers;
        return cycle(rates, initial);
    }
};

/// The estimate of the measure named `name` in a result; throws when there is none.
template <class Result>
const auto& estimate(const Result& r, const std::string& name) {
    for (const auto& m : r.measures) {
        if (m.name == name) return m;
    }
    throw std::runtime_error("no measure " + name);
}

/// Value of the measure named `name` in a result.
template <class Result>
double measure(const Result& r, const std::string& name) {
    return estimate(r, name).mean;
}

inline net::Distribution exp_rate(double r) { return {net::Exp{r}}; }
inline net::Distribution det(double v) { return {net::Det{v}}; }

/// Expression builders (postfix programs).
inline net::ExprOp op(net::ExprOp::Code c, uint32_t place = 0, double value = 0) {
    return net::ExprOp{c, place, value};
}
/// tokens(p) > 0 (a `prob(...)` condition).
inline net::MarkingExpr positive(uint32_t p) {
    using C = net::ExprOp::Code;
    return {{op(C::Tokens, p), op(C::Const, 0, 0), op(C::Gt)}};
}
/// 1 / (Σ tokens(p) over `places`).
inline net::MarkingExpr one_over_tokens(const std::vector<uint32_t>& places) {
    using C = net::ExprOp::Code;
    net::MarkingExpr e;
    e.code.push_back(op(C::Const, 0, 1));
    e.code.push_back(op(C::Tokens, places[0]));
    for (std::size_t i = 1; i < places.size(); ++i) {
        e.code.push_back(op(C::Tokens, places[i]));
        e.code.push_back(op(C::Add));
    }
    e.code.push_back(op(C::Div));
    return e;
}

}  // namespace sgdnet::testing
