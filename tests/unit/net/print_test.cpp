// Unit tests of net::print (canonical text) and net::validate (structural invariants).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "net/petri_net.hpp"

using namespace sgdnet::net;

namespace {

/// M/M/1/K-like net: arrivals inhibited at 3 queued jobs, a server, one immediate, two measures.
PetriNet sample_net() {
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

bool has_message(const std::vector<std::string>& errors, const std::string& part) {
    return std::any_of(errors.begin(), errors.end(),
                       [&](const std::string& e) { return e.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("print: canonical layout with header counts, params, places, arcs, measures") {
    const PetriNet n = sample_net();
    const std::vector<std::string> names = {"mm1k.queue", "mm1k.idle"};
    // Distribution and expression texts come from their own (separately tested) printers.
    const std::string expected =
        "net mm1k\n"
        "  places 2, timed 2, immediate 1, arcs 5, measures 3\n"
        "params\n"
        "  K = 3\n"
        "  lambda = 0.5\n"
        "places\n"
        "  mm1k.queue = 0\n"
        "  mm1k.idle = 1 bound 1\n"
        "transitions\n"
        "  timed mm1k.arrive ~ " + to_string(n.transitions[0].delay) +
        " server single memory enabling\n"
        "    out mm1k.queue\n"
        "    inhibit mm1k.queue*3\n"
        "  timed mm1k.serve ~ " + to_string(n.transitions[1].delay) +
        " server infinite memory age speed " + MarkingExpr::tokens(1).to_string(names) + "\n"
        "    in mm1k.queue*2\n"
        "  immediate mm1k.pick priority 2 weight 0.3\n"
        "    in mm1k.idle\n"
        "    out mm1k.idle\n"
        "measures\n"
        "  thr = throughput(mm1k.serve) + 0.5*throughput(mm1k.arrive) [1/s]\n"
        "  qlen = average(" + MarkingExpr::tokens(0).to_string(names) + ") [tokens]\n"
        "  step_time = 0.5/throughput(mm1k.serve) [s]\n";
    CHECK(print(n) == expected);
}

TEST_CASE("print: deterministic, shortest exact numbers, empty sections omitted") {
    PetriNet n;
    n.name = "tiny";
    n.params = {{"bw", 1.25e9}, {"third", 1.0 / 3.0}, {"tenth", 0.1}};
    const std::string text = print(n);
    CHECK(text == print(n));
    // 1/3 needs 16 significant digits to read back exactly; 0.1 needs one.
    CHECK(text ==
          "net tiny\n"
          "  places 0, timed 0, immediate 0, arcs 0, measures 0\n"
          "params\n"
          "  bw = 1.25e+09\n"
          "  third = 0.3333333333333333\n"
          "  tenth = 0.1\n");
    CHECK(std::stod("0.3333333333333333") == 1.0 / 3.0);
}

TEST_CASE("print: K servers are printed as a number") {
    PetriNet n = sample_net();
    n.transitions[0].servers = 4;
    CHECK(print(n).find("timed mm1k.arrive ~ " + to_string(n.transitions[0].delay) +
                        " server 4 memory enabling\n") != std::string::npos);
}

TEST_CASE("validate: a well-formed net has no violations") {
    CHECK(validate(sample_net()).empty());
}

TEST_CASE("validate: names must be unique per kind") {
    PetriNet n = sample_net();
    n.places[1].name = "mm1k.queue";
    n.transitions[2].name = "mm1k.serve";
    n.measures[1].name = "thr";
    const auto errors = validate(n);
    CHECK(has_message(errors, "duplicate place 'mm1k.queue'"));
    CHECK(has_message(errors, "duplicate transition 'mm1k.serve'"));
    CHECK(has_message(errors, "duplicate measure 'thr'"));
    CHECK(errors.size() == 3);
}

TEST_CASE("validate: arcs need ids in range and multiplicities >= 1") {
    PetriNet n = sample_net();
    n.transitions[0].outputs[0].place = PlaceId{7};
    n.transitions[1].inputs[0].multiplicity = 0;
    const auto errors = validate(n);
    CHECK(has_message(errors, "transition 'mm1k.arrive': output arc to place id 7 out of range"));
    CHECK(has_message(errors, "transition 'mm1k.serve': input arc with multiplicity 0"));
    CHECK(errors.size() == 2);
}

TEST_CASE("validate: weights > 0, servers >= 1, initial within bound") {
    PetriNet n = sample_net();
    n.transitions[2].weight = 0;
    n.transitions[0].servers = 0;
    n.places[1].initial = 2;
    const auto errors = validate(n);
    CHECK(has_message(errors, "transition 'mm1k.pick': weight 0 is not positive"));
    CHECK(has_message(errors, "transition 'mm1k.arrive': 0 servers"));
    CHECK(has_message(errors, "place 'mm1k.idle': initial marking 2 exceeds its bound 1"));
    CHECK(errors.size() == 3);
}

TEST_CASE("validate: distribution parameters finite and non-negative, recursively") {
    PetriNet n = sample_net();
    SUBCASE("negative det") {
        n.transitions[0].delay = Distribution{Det{-1}};
        CHECK(has_message(validate(n), "det: invalid value -1"));
    }
    SUBCASE("zero exponential rate") {
        n.transitions[0].delay = Distribution{Exp{0}};
        CHECK(has_message(validate(n), "exp: invalid rate 0"));
    }
    SUBCASE("infinite lognormal mean") {
        n.transitions[0].delay = Distribution{Lognormal{INFINITY, 0.1}};
        CHECK(has_message(validate(n), "lognormal: invalid mean inf"));
    }
    SUBCASE("uniform with high < low") {
        n.transitions[0].delay = Distribution{Uniform{2, 1}};
        CHECK(has_message(validate(n), "uniform: invalid high bound 1"));
    }
    SUBCASE("mixture probabilities must sum to 1 and parts are checked") {
        Mixture m;
        m.probs = {0.5, 0.4};
        m.parts = {Distribution{Det{1}}, Distribution{Gamma{1, -0.5}}};
        n.transitions[0].delay = Distribution{m};
        const auto errors = validate(n);
        CHECK(has_message(errors, "mixture: probabilities sum to 0.9"));
        CHECK(has_message(errors, "gamma: invalid cv -0.5"));
    }
    SUBCASE("scaled by a non-positive factor") {
        Scaled s;
        s.base = {Distribution{Exp{1}}};
        s.factor = 0;
        n.transitions[0].delay = Distribution{s};
        CHECK(has_message(validate(n), "scaled: invalid factor 0"));
    }
    SUBCASE("empty empirical") {
        n.transitions[0].delay = Distribution{Empirical{}};
        CHECK(has_message(validate(n), "empirical: no values"));
    }
}

TEST_CASE("validate: measures and speed expressions reference valid ids") {
    PetriNet n = sample_net();
    n.measures[0].terms[0].transition = TransitionId{9};
    n.measures[1].expr = MarkingExpr::tokens(5);
    n.transitions[1].speed = MarkingExpr::tokens(4);
    n.measures[2].terms.clear();
    const auto errors = validate(n);
    CHECK(has_message(errors, "measure 'thr': transition id 9 out of range (3 transitions)"));
    CHECK(has_message(errors, "measure 'qlen': expression reads place id 5 out of range"));
    CHECK(has_message(errors, "transition 'mm1k.serve' speed: expression reads place id 4"));
    CHECK(has_message(errors, "measure 'step_time': no transitions"));
    CHECK(errors.size() == 4);
}
