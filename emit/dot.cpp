// Graphviz DOT exporter of the net IR (`sgdnet compile --emit dot`).
#include <charconv>
#include <cmath>
#include <string>

#include "emit/emit.hpp"

namespace sgdnet::emit {
namespace {

/// Escapes text for a double-quoted DOT string (`"` and `\`); newlines become DOT's `\n`.
std::string quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string number(double v) {
    if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf");
    char buf[64];
    return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

/// Long delay texts (big empirical tables) are cut so the box stays readable.
std::string shorten(std::string s, std::size_t max = 60) {
    if (s.size() <= max) return s;
    s.resize(max - 3);
    return s + "...";
}

std::string pid(net::PlaceId p) { return "p" + std::to_string(p.value); }

void edge(std::string& out, const std::string& from, const std::string& to, uint32_t mult,
          const char* extra) {
    out += "  " + from + " -> " + to;
    std::string attrs = extra;
    if (mult != 1) {
        if (!attrs.empty()) attrs += ", ";
        attrs += "label=" + quote(std::to_string(mult));
    }
    if (!attrs.empty()) out += " [" + attrs + "]";
    out += ";\n";
}

}  // namespace

std::string to_dot(const net::PetriNet& net) {
    std::vector<std::string> names;
    for (const auto& p : net.places) names.push_back(p.name);

    std::string out = "digraph " + quote(net.name) + " {\n";
    out += "  rankdir=LR;\n";
    out += "  node [fontname=\"Helvetica\", fontsize=10];\n";
    out += "  edge [fontname=\"Helvetica\", fontsize=9];\n";
    for (std::size_t k = 0; k < net.places.size(); ++k) {
        const auto& p = net.places[k];
        std::string label = p.name + "\n" + std::to_string(p.initial);
        if (p.bound) label += " (bound " + std::to_string(*p.bound) + ")";
        out += "  p" + std::to_string(k) + " [shape=circle, label=" + quote(label) + "];\n";
    }
    for (std::size_t k = 0; k < net.transitions.size(); ++k) {
        const auto& t = net.transitions[k];
        const std::string id = "t" + std::to_string(k);
        if (t.kind == net::TransitionKind::Timed) {
            std::string label = t.name + "\n" + shorten(net::to_string(t.delay));
            if (t.servers == net::kInfiniteServers) {
                label += "\nserver infinite";
            } else if (t.servers != 1) {
                label += "\nserver " + std::to_string(t.servers);
            }
            if (t.speed) label += "\nspeed " + shorten(t.speed->to_string(names));
            if (t.memory == net::Memory::Age && !t.speed) label += "\nmemory age";
            out += "  " + id + " [shape=box, label=" + quote(label) + "];\n";
        } else {
            std::string label = t.name;
            if (t.priority != 1) label += "\npriority " + std::to_string(t.priority);
            if (t.weight != 1) label += "\nweight " + number(t.weight);
            out += "  " + id +
                   " [shape=box, style=filled, fillcolor=black, fixedsize=true, width=0.08, "
                   "height=0.5, label=\"\", xlabel=" +
                   quote(label) + "];\n";
        }
    }
    for (std::size_t k = 0; k < net.transitions.size(); ++k) {
        const auto& t = net.transitions[k];
        const std::string id = "t" + std::to_string(k);
        for (const auto& a : t.inputs) edge(out, pid(a.place), id, a.multiplicity, "");
        for (const auto& a : t.outputs) edge(out, id, pid(a.place), a.multiplicity, "");
        for (const auto& a : t.inhibitors) {
            edge(out, pid(a.place), id, a.multiplicity, "arrowhead=odot");
        }
    }
    out += "}\n";
    return out;
}

}  // namespace sgdnet::emit
