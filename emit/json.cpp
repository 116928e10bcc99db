// JSON exporter of the whole net IR (`sgdnet compile --emit json`).
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "net/overloaded.hpp"
#include "emit/emit.hpp"

namespace sgdnet::emit {
namespace {

using nlohmann::json;
using net::Overloaded;


json range_json(const net::PetriNet& n, const net::SourceRange& r) {
    if (!r.valid()) return nullptr;
    json j;
    j["file"] = r.file < n.files.size() ? json(n.files[r.file]) : json(r.file);
    j["begin"] = {r.begin.line, r.begin.col};
    j["end"] = {r.end.line, r.end.col};
    return j;
}

json dist_json(const net::Distribution& d) {
    return std::visit(
        Overloaded{
            [](const net::Det& x) { return json{{"type", "det"}, {"value_s", x.value_s}}; },
            [](const net::Exp& x) { return json{{"type", "exp"}, {"rate_per_s", x.rate_per_s}}; },
            [](const net::Uniform& x) {
                return json{{"type", "uniform"}, {"low_s", x.low_s}, {"high_s", x.high_s}};
            },
            [](const net::Normal& x) {
                return json{{"type", "normal"}, {"mean_s", x.mean_s}, {"sd_s", x.sd_s}};
            },
            [](const net::Lognormal& x) {
                return json{{"type", "lognormal"}, {"mean_s", x.mean_s}, {"cv", x.cv}};
            },
            [](const net::Gamma& x) {
                return json{{"type", "gamma"}, {"mean_s", x.mean_s}, {"cv", x.cv}};
            },
            [](const net::Erlang& x) {
                return json{{"type", "erlang"}, {"k", x.k}, {"mean_s", x.mean_s}};
            },
            [](const net::Weibull& x) {
                return json{{"type", "weibull"}, {"shape", x.shape}, {"scale_s", x.scale_s}};
            },
            [](const net::Empirical& x) {
                return json{{"type", "empirical"}, {"values_s", x.values_s}};
            },
            [](const net::Mixture& x) {
                json parts = json::array();
                for (const auto& p : x.parts) parts.push_back(dist_json(p));
                return json{{"type", "mixture"}, {"probs", x.probs}, {"parts", parts}};
            },
            [](const net::Scaled& x) {
                return json{{"type", "scaled"},
                            {"base", x.base.empty() ? json(nullptr) : dist_json(x.base.front())},
                            {"factor", x.factor}};
            },
            [](const net::Shifted& x) {
                return json{{"type", "shifted"},
                            {"base", x.base.empty() ? json(nullptr) : dist_json(x.base.front())},
                            {"offset_s", x.offset_s}};
            },
            [](const net::Sum& x) {
                json parts = json::array();
                for (const auto& p : x.parts) parts.push_back(dist_json(p));
                return json{{"type", "sum"}, {"parts", parts}};
            },
        },
        d.v);
}

const char* op_name(net::ExprOp::Code c) {
    static const char* const kNames[] = {
        "const", "tokens", "neg",  "not",   "add",  "sub",   "mul",  "div",  "mod",  "pow",
        "min",   "max",    "eq",   "ne",    "lt",   "le",    "gt",   "ge",   "and",  "or",
        "abs",   "floor",  "ceil", "round", "sqrt", "log",   "exp",  "select"};
    const auto k = static_cast<std::size_t>(c);
    return k < std::size(kNames) ? kNames[k] : "unknown";
}

json expr_json(const net::MarkingExpr& e, const std::vector<std::string>& names) {
    json code = json::array();
    for (const auto& op : e.code) {
        json o{{"op", op_name(op.code)}};
        if (op.code == net::ExprOp::Code::Const) o["value"] = op.value;
        if (op.code == net::ExprOp::Code::Tokens) o["place"] = op.place;
        code.push_back(o);
    }
    return json{{"text", e.to_string(names)}, {"postfix", code}};
}

json arcs_json(const std::vector<net::Arc>& arcs) {
    json a = json::array();
    for (const auto& arc : arcs) a.push_back({{"place", arc.place.value}, {"multiplicity", arc.multiplicity}});
    return a;
}

}  // namespace

std::string to_json(const net::PetriNet& n) {
    std::vector<std::string> names;
    for (const auto& p : n.places) names.push_back(p.name);

    json j;
    j["name"] = n.name;
    j["files"] = n.files;
    json params = json::object();
    for (const auto& p : n.params) params[p.name] = p.value;
    j["params"] = params;

    json places = json::array();
    for (std::size_t k = 0; k < n.places.size(); ++k) {
        const auto& p = n.places[k];
        places.push_back({{"id", k},
                          {"name", p.name},
                          {"initial", p.initial},
                          {"bound", p.bound ? json(*p.bound) : json(nullptr)},
                          {"where", range_json(n, p.where)}});
    }
    j["places"] = places;

    json transitions = json::array();
    for (std::size_t k = 0; k < n.transitions.size(); ++k) {
        const auto& t = n.transitions[k];
        json o{{"id", k}, {"name", t.name}};
        if (t.kind == net::TransitionKind::Timed) {
            o["kind"] = "timed";
            o["delay"] = dist_json(t.delay);
            o["delay_text"] = net::to_string(t.delay);
            o["servers"] = t.servers == net::kInfiniteServers ? json("infinite") : json(t.servers);
            o["memory"] = t.memory == net::Memory::Age ? "age" : "enabling";
            o["speed"] = t.speed ? expr_json(*t.speed, names) : json(nullptr);
        } else {
            o["kind"] = "immediate";
            o["priority"] = t.priority;
            o["weight"] = t.weight;
        }
        o["inputs"] = arcs_json(t.inputs);
        o["outputs"] = arcs_json(t.outputs);
        o["inhibitors"] = arcs_json(t.inhibitors);
        o["where"] = range_json(n, t.where);
        transitions.push_back(std::move(o));
    }
    j["transitions"] = transitions;

    json measures = json::array();
    for (const auto& m : n.measures) {
        json o{{"name", m.name}, {"kind", net::to_string(m.kind)}, {"unit", m.unit}};
        if (m.kind == net::Measure::Kind::TimeAverage) {
            o["expr"] = expr_json(m.expr, names);
        } else {
            json terms = json::array();
            for (const auto& term : m.terms) {
                terms.push_back({{"transition", term.transition.value}, {"coef", term.coef}});
            }
            o["terms"] = terms;
        }
        o["where"] = range_json(n, m.where);
        measures.push_back(std::move(o));
    }
    j["measures"] = measures;
    return j.dump(2) + "\n";
}

}  // namespace sgdnet::emit
