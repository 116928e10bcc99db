// Canonical, deterministic text form of a PetriNet (`sgdnet compile --emit net`, golden tests).
//
// Layout (one element per line, in id order, so the text follows the IR exactly):
//
//   net NAME
//     places 2, timed 2, immediate 0, arcs 2, measures 1
//   params
//     N = 8
//   places
//     mm1.queue = 0
//     mm1.cap = 1 bound 3
//   transitions
//     timed mm1.arrive ~ exp(rate=1) server single memory enabling
//       out mm1.queue
//     immediate pick priority 2 weight 0.3
//       in a*2
//       inhibit c*3
//   measures
//     thr = throughput(mm1.serve) [1/s]
//
// Sections without elements are omitted. Numbers use the shortest text that reads back exactly.
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "emit/emit.hpp"

namespace sgdnet::emit {

using namespace net;

namespace {

/// Shortest round-trip text of a double (`1`, `0.3`, `1.25e+09`, `inf`, `nan`).
std::string number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

std::string place_name(const PetriNet& net, PlaceId id) {
    if (id.value < net.places.size()) return net.places[id.value].name;
    return "<place #" + std::to_string(id.value) + ">";
}

std::string transition_name(const PetriNet& net, TransitionId id) {
    if (id.value < net.transitions.size()) return net.transitions[id.value].name;
    return "<transition #" + std::to_string(id.value) + ">";
}

std::vector<std::string> place_names(const PetriNet& net) {
    std::vector<std::string> names;
    names.reserve(net.places.size());
    for (const auto& p : net.places) names.push_back(p.name);
    return names;
}

void print_arcs(std::string& out, const PetriNet& net, const char* keyword,
                const std::vector<Arc>& arcs) {
    for (const auto& a : arcs) {
        out += "    ";
        out += keyword;
        out += ' ';
        out += place_name(net, a.place);
        if (a.multiplicity != 1) out += "*" + std::to_string(a.multiplicity);
        out += '\n';
    }
}

std::string servers_text(uint32_t servers) {
    return servers == kInfiniteServers ? "infinite"
           : servers == 1              ? "single"
                                       : std::to_string(servers);
}

std::string measure_text(const PetriNet& net, const Measure& m,
                         const std::vector<std::string>& names) {
    std::string out;
    switch (m.kind) {
        case Measure::Kind::Throughput:
            for (std::size_t k = 0; k < m.terms.size(); ++k) {
                if (k) out += " + ";
                if (m.terms[k].coef != 1) out += number(m.terms[k].coef) + "*";
                out += "throughput(" + transition_name(net, m.terms[k].transition) + ")";
            }
            if (m.terms.empty()) out = "throughput()";
            break;
        case Measure::Kind::MeanInverseThroughput:
            for (std::size_t k = 0; k < m.terms.size(); ++k) {
                if (k) out += " + ";
                out += number(m.terms[k].coef) + "/throughput(" +
                       transition_name(net, m.terms[k].transition) + ")";
            }
            if (m.terms.empty()) out = "mean_inverse_throughput()";
            break;
        case Measure::Kind::TimeAverage:
            out = "average(" + m.expr.to_string(names) + ")";
            break;
    }
    return out;
}

}  // namespace

std::string to_net_text(const PetriNet& net) {
    std::size_t timed = 0, immediate = 0, arcs = 0;
    for (const auto& t : net.transitions) {
        (t.kind == TransitionKind::Timed ? timed : immediate) += 1;
        arcs += t.inputs.size() + t.outputs.size() + t.inhibitors.size();
    }
    const auto names = place_names(net);

    std::string out = "net " + net.name + "\n";
    out += "  places " + std::to_string(net.places.size()) + ", timed " + std::to_string(timed) +
           ", immediate " + std::to_string(immediate) + ", arcs " + std::to_string(arcs) +
           ", measures " + std::to_string(net.measures.size()) + "\n";

    if (!net.params.empty()) {
        out += "params\n";
        for (const auto& p : net.params) out += "  " + p.name + " = " + number(p.value) + "\n";
    }
    if (!net.places.empty()) {
        out += "places\n";
        for (const auto& p : net.places) {
            out += "  " + p.name + " = " + std::to_string(p.initial);
            if (p.bound) out += " bound " + std::to_string(*p.bound);
            out += '\n';
        }
    }
    if (!net.transitions.empty()) {
        out += "transitions\n";
        for (const auto& t : net.transitions) {
            if (t.kind == TransitionKind::Timed) {
                out += "  timed " + t.name + " ~ " + to_string(t.delay) + " server " +
                       servers_text(t.servers) + " memory " +
                       (t.memory == Memory::Age ? "age" : "enabling");
                if (t.speed) out += " speed " + t.speed->to_string(names);
            } else {
                out += "  immediate " + t.name + " priority " + std::to_string(t.priority) +
                       " weight " + number(t.weight);
            }
            out += '\n';
            print_arcs(out, net, "in", t.inputs);
            print_arcs(out, net, "out", t.outputs);
            print_arcs(out, net, "inhibit", t.inhibitors);
        }
    }
    if (!net.measures.empty()) {
        out += "measures\n";
        for (const auto& m : net.measures) {
            out += "  " + m.name + " = " + measure_text(net, m, names);
            if (!m.unit.empty()) out += " [" + m.unit + "]";
            out += '\n';
        }
    }
    return out;
}

}  // namespace sgdnet::emit
