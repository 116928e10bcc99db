// A small M/M/1/K-like net with every kind of element, shared by the net IR's and the exporters'
// tests.
#pragma once

#include "net/petri_net.hpp"

namespace sgdnet::testing {

/// M/M/1/K-like net: arrivals inhibited at 3 queued jobs, a server, one immediate, two measures.
inline net::PetriNet sample_net() {
    using namespace net;
    PetriNet n;
    n.name = "mm1k";
    n.params = {{"K", 3}, {"lambda", 0.5}};
    n.places = {{"mm1k.queue", 0, std::nullopt, {}}, {"mm1k.idle", 1, 1u, {}}};
    Transition arrive;
    arrive.name = "mm1k.arrive";
    arrive.delay = Distribution{Exp{0.5}};
    arrive.outputs = {{PlaceId{0}, 1}};
    arrive.inhibitors = {{PlaceId{0}, 3}};
    Transition serve;
    serve.name = "mm1k.serve";
    serve.delay = Distribution{Det{0.25}};
    serve.servers = kInfiniteServers;
    serve.memory = Memory::Age;
    serve.speed = MarkingExpr::tokens(1);
    serve.inputs = {{PlaceId{0}, 2}};
    Transition pick;
    pick.name = "mm1k.pick";
    pick.kind = TransitionKind::Immediate;
    pick.priority = 2;
    pick.weight = 0.3;
    pick.inputs = {{PlaceId{1}, 1}};
    pick.outputs = {{PlaceId{1}, 1}};
    n.transitions = {arrive, serve, pick};
    Measure thr;
    thr.name = "thr";
    thr.kind = Measure::Kind::Throughput;
    thr.terms = {{TransitionId{1}, 1}, {TransitionId{0}, 0.5}};
    thr.unit = "1/s";
    Measure q;
    q.name = "qlen";
    q.kind = Measure::Kind::TimeAverage;
    q.expr = MarkingExpr::tokens(0);
    q.unit = "tokens";
    Measure st;
    st.name = "step_time";
    st.kind = Measure::Kind::MeanInverseThroughput;
    st.terms = {{TransitionId{1}, 0.5}};
    st.unit = "s";
    n.measures = {thr, q, st};
    return n;
}

}  // namespace sgdnet::testing
