// PNML exporter of the net IR (ISO/IEC 15909-2 P/T net; sgdnet extras in <toolspecific>).
#include <charconv>
#include <cmath>
#include <string>

#include "emit/emit.hpp"

#ifndef SGDNET_VERSION
#define SGDNET_VERSION "0"
#endif

namespace sgdnet::emit {
namespace {

/// Escapes text for XML character data and attribute values.
std::string xml(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string number(double v) {
    if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf");
    char buf[64];
    return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

/// An XML ID (NCName) derived from the net name: letters, digits, `_`, `-`, `.`.
std::string net_id(const std::string& name) {
    std::string id = "net-";
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                        c == '_' || c == '-' || c == '.';
        id += ok ? c : '_';
    }
    return id;
}

std::string name_element(const std::string& name) {
    return "<name><text>" + xml(name) + "</text></name>";
}

const std::string kTool = "<toolspecific tool=\"sgdnet\" version=\"" SGDNET_VERSION "\">";

}  // namespace

std::string to_pnml(const net::PetriNet& net) {
    std::vector<std::string> names;
    for (const auto& p : net.places) names.push_back(p.name);

    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += "<pnml xmlns=\"http://www.pnml.org/version-2009/grammar/pnml\">\n";
    out += "  <net id=\"" + net_id(net.name) +
           "\" type=\"http://www.pnml.org/version-2009/grammar/ptnet\">\n";
    out += "    " + name_element(net.name) + "\n";
    if (!net.params.empty() || !net.measures.empty()) {
        out += "    " + kTool + "\n";
        for (const auto& p : net.params) {
            out += "      <param name=\"" + xml(p.name) + "\" value=\"" + number(p.value) + "\"/>\n";
        }
        for (const auto& m : net.measures) {
            out += "      <measure name=\"" + xml(m.name) + "\" kind=\"" + net::to_string(m.kind) +
                   "\" unit=\"" + xml(m.unit) + "\"";
            if (m.kind == net::Measure::Kind::TimeAverage) {
                out += " expr=\"" + xml(m.expr.to_string(names)) + "\"/>\n";
                continue;
            }
            out += ">\n";
            for (const auto& term : m.terms) {
                out += "        <term transition=\"t" + std::to_string(term.transition.value) +
                       "\" coef=\"" + number(term.coef) + "\"/>\n";
            }
            out += "      </measure>\n";
        }
        out += "    </toolspecific>\n";
    }
    out += "    <page id=\"page0\">\n";
    for (std::size_t k = 0; k < net.places.size(); ++k) {
        const auto& p = net.places[k];
        out += "      <place id=\"p" + std::to_string(k) + "\">" + name_element(p.name);
        out += "<initialMarking><text>" + std::to_string(p.initial) + "</text></initialMarking>";
        if (p.bound) out += kTool + "<bound>" + std::to_string(*p.bound) + "</bound></toolspecific>";
        out += "</place>\n";
    }
    for (std::size_t k = 0; k < net.transitions.size(); ++k) {
        const auto& t = net.transitions[k];
        out += "      <transition id=\"t" + std::to_string(k) + "\">" + name_element(t.name) + "\n";
        out += "        " + kTool + "\n";
        if (t.kind == net::TransitionKind::Timed) {
            out += "          <timed servers=\"" +
                   (t.servers == net::kInfiniteServers ? std::string("infinite")
                                                       : std::to_string(t.servers)) +
                   "\" memory=\"" + (t.memory == net::Memory::Age ? "age" : "enabling") + "\"";
            if (t.speed) out += " speed=\"" + xml(t.speed->to_string(names)) + "\"";
            out += ">\n            <delay mean=\"" + number(net::mean(t.delay)) + "\">" +
                   xml(net::to_string(t.delay)) + "</delay>\n          </timed>\n";
        } else {
            out += "          <immediate priority=\"" + std::to_string(t.priority) +
                   "\" weight=\"" + number(t.weight) + "\"/>\n";
        }
        for (const auto& a : t.inhibitors) {
            out += "          <inhibitor place=\"p" + std::to_string(a.place.value) +
                   "\" multiplicity=\"" + std::to_string(a.multiplicity) + "\"/>\n";
        }
        out += "        </toolspecific>\n      </transition>\n";
    }
    std::size_t arc = 0;
    auto emit_arc = [&](const std::string& from, const std::string& to, uint32_t mult) {
        out += "      <arc id=\"a" + std::to_string(arc++) + "\" source=\"" + from + "\" target=\"" +
               to + "\"><inscription><text>" + std::to_string(mult) +
               "</text></inscription></arc>\n";
    };
    for (std::size_t k = 0; k < net.transitions.size(); ++k) {
        const auto& t = net.transitions[k];
        const std::string tid = "t" + std::to_string(k);
        for (const auto& a : t.inputs) emit_arc("p" + std::to_string(a.place.value), tid, a.multiplicity);
        for (const auto& a : t.outputs) emit_arc(tid, "p" + std::to_string(a.place.value), a.multiplicity);
    }
    out += "    </page>\n  </net>\n</pnml>\n";
    return out;
}

}  // namespace sgdnet::emit
