// sgdnet explain's analyses of a solved model (explain.hpp): resources ranked by utilization, the
// bottleneck sentence, what-if sensitivities, the activity of a raw net's elements.
#include "explain/explain.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "explain/invariants.hpp"
#include "solver/solve.hpp"

namespace sgdnet::explain {

std::vector<ResourceUse> rank_resources(const Bounds& bounds, const solver::SolveResult& result) {
    std::map<std::string, const solver::MeasureEstimate*> util;
    for (const auto& m : result.measures)
        if (m.name.rfind("util.", 0) == 0) util[m.name.substr(5)] = &m;
    std::vector<ResourceUse> out;
    for (const auto& r : bounds.resources) {
        ResourceUse use{r, std::nullopt};
        if (auto it = util.find(r.name); it != util.end()) use.utilization = *it->second;
        out.push_back(std::move(use));
    }
    std::stable_sort(out.begin(), out.end(), [](const ResourceUse& a, const ResourceUse& b) {
        if (a.utilization.has_value() != b.utilization.has_value())
            return a.utilization.has_value();
        if (!a.utilization) return a.bound.bound < b.bound.bound;
        // Equal to 0.1% (the estimates' noise): the lesser bound first.
        const double ua = std::round(a.utilization->mean * 1000);
        const double ub = std::round(b.utilization->mean * 1000);
        if (ua != ub) return ua > ub;
        return a.bound.bound < b.bound.bound;
    });
    return out;
}

namespace {

/// `12.4` — three significant digits, as the explanation prints rates.
std::string sig3(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

std::string percent(double fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f%%", 100 * fraction);
    return buf;
}

std::string busy(const ResourceUse& r) {
    return r.utilization ? ", " + percent(r.utilization->mean) + " busy" : "";
}

}  // namespace

std::string bottleneck_sentence(const Bounds& bounds, const std::vector<ResourceUse>& ranked,
                                double steps_per_s) {
    // The resource of least bound, when it is within 5% of the overall bound (the critical path
    // of a step that is mostly one resource's work is that resource's bound plus a little).
    const ResourceUse* binding = nullptr;
    for (const auto& r : ranked)
        if (!binding || r.bound.bound < binding->bound.bound) binding = &r;
    if (binding && !(binding->bound.bound <= 1.05 * bounds.bound)) binding = nullptr;
    // A resource mostly idle is not what limits the model, whatever its bound says.
    if (binding && binding->utilization && binding->utilization->mean < 0.8) binding = nullptr;
    const ResourceUse* busiest =
        ranked.empty() || !ranked.front().utilization ? nullptr : &ranked.front();
    const bool close = std::isfinite(bounds.bound) && steps_per_s >= 0.9 * bounds.bound;
    if (binding && steps_per_s >= 0.9 * binding->bound.bound)
        return "bottleneck: " + binding->bound.what + busy(*binding) + "; bound " +
               sig3(binding->bound.bound) + " steps/s" +
               (binding->bound.bound > 1.001 * bounds.bound
                    ? " (" + sig3(bounds.bound) + " with the rest of the step's critical path)"
                    : "");
    std::string tail = busiest ? "; the busiest resource is " + busiest->bound.what + busy(*busiest)
                               : std::string();
    if (close && busiest && busiest->utilization->mean >= 0.9)
        return "bottleneck: " + busiest->bound.what + busy(*busiest) +
               ", in sequence with the rest of the step's critical path (" + bounds.cycle_what +
               "); bound " + sig3(bounds.bound) + " steps/s";
    if (close)
        return "bottleneck: the step's critical path (" + bounds.cycle_what + "); bound " +
               sig3(bounds.bound) + " steps/s" + tail;
    if (busiest && busiest->utilization->mean >= 0.95)
        return "bottleneck: " + busiest->bound.what + busy(*busiest) + "; " + sig3(steps_per_s) +
               " steps/s is " + percent(steps_per_s / busiest->bound.bound) + " of its bound " +
               sig3(busiest->bound.bound) + " steps/s (busy but not at full rate)";
    if (!std::isfinite(bounds.bound)) return "no resource bounds steps/s" + tail;
    return "no resource saturates: " + sig3(steps_per_s) + " steps/s is " +
           percent(steps_per_s / bounds.bound) + " of the bound " + sig3(bounds.bound) +
           " steps/s" + tail;
}

namespace {

using net::ExprOp;
using net::MarkingExpr;

/// `a` then `b` then `op`: the postfix program of `a op b`.
MarkingExpr binary(MarkingExpr a, const MarkingExpr& b, ExprOp::Code op) {
    a.code.insert(a.code.end(), b.code.begin(), b.code.end());
    a.code.push_back(ExprOp{op, 0, 0});
    return a;
}

/// 1 while `t` is enabled (every input holds its multiplicity, no inhibitor reached): for a
/// timed transition, while its work is in progress.
MarkingExpr enabled(const net::Transition& t) {
    MarkingExpr e = MarkingExpr::constant(1);
    auto tokens_vs = [](uint32_t place, uint32_t m, ExprOp::Code op) {
        return binary(MarkingExpr::tokens(place), MarkingExpr::constant(m), op);
    };
    for (const auto& a : t.inputs)
        e = binary(e, tokens_vs(a.place.value, a.multiplicity, ExprOp::Code::Ge),
                   ExprOp::Code::And);
    for (const auto& a : t.inhibitors)
        e = binary(e, tokens_vs(a.place.value, a.multiplicity, ExprOp::Code::Lt),
                   ExprOp::Code::And);
    return e;
}

/// 1 while some part of the measure `m` is active: a time average's own condition (a fair
/// direction's `active > 0`, a fifo one's `1 − free`), or some transition of a throughput
/// measure (a worker's jobs, an exclusive direction's transmissions) in progress.
MarkingExpr active(const net::PetriNet& net, const net::Measure& m) {
    if (m.kind == net::Measure::Kind::TimeAverage) return m.expr;
    MarkingExpr e = MarkingExpr::constant(0);
    for (const auto& term : m.terms)
        e = binary(e, enabled(net.transition(term.transition)), ExprOp::Code::Or);
    return e;
}

}  // namespace

net::PetriNet with_worker_step_times(const net::PetriNet& net, const training::TrainingSpec& spec) {
    net::PetriNet out = net;
    std::map<std::string, const net::Measure*> by_name;
    for (const auto& m : net.measures) by_name[m.name] = &m;
    const auto steps = by_name.find("steps_per_s");
    if (steps == by_name.end() || steps->second->terms.size() != spec.workers.size()) return out;
    for (std::size_t i = 0; i < spec.workers.size(); ++i) {
        const std::string& w = spec.workers[i].name;
        const net::SourceRange where = steps->second->where;
        out.measures.push_back(net::Measure{"step_time." + w,
                                            net::Measure::Kind::MeanInverseThroughput,
                                            {{steps->second->terms[i].transition, 1.0}},
                                            {},
                                            "s",
                                            where});
        MarkingExpr busy = MarkingExpr::constant(0), comm = MarkingExpr::constant(0);
        if (auto it = by_name.find("util." + w); it != by_name.end())
            busy = active(net, *it->second);
        for (const char* dir : {".up", ".down"})
            if (auto it = by_name.find("util." + w + dir); it != by_name.end())
                comm = binary(comm, active(net, *it->second), ExprOp::Code::Or);
        MarkingExpr idle = busy;
        idle.code.push_back(ExprOp{ExprOp::Code::Not, 0, 0});
        out.measures.push_back(
            net::Measure{"busy." + w, net::Measure::Kind::TimeAverage, {}, busy, "", where, true});
        out.measures.push_back(net::Measure{"exposed_comm." + w,
                                            net::Measure::Kind::TimeAverage,
                                            {},
                                            binary(idle, comm, ExprOp::Code::And),
                                            "",
                                            where,
                                            true});
    }
    return out;
}

net::PetriNet with_explain_measures(const net::PetriNet& net, const training::TrainingSpec& spec) {
    net::PetriNet out = with_worker_step_times(net, spec);
    const Bounds b = training_bounds(spec);
    double compute = 0, update = 0, comm = 0;
    const double n = double(spec.workers.size());
    for (std::size_t i = 0; i < spec.workers.size(); ++i) {
        compute += compute_mean_s(spec.workers[i]) / n;
        update += net::mean(spec.workers[i].update) / n;
        comm += (i < b.exposed_comm_s.size() ? b.exposed_comm_s[i] : 0.0) / n;
    }
    auto constant = [&](const std::string& name, double value, const std::string& unit) {
        if (!std::isfinite(value)) return;
        out.measures.push_back(net::Measure{name,
                                            net::Measure::Kind::TimeAverage,
                                            {},
                                            net::MarkingExpr::constant(value),
                                            unit,
                                            spec.where});
    };
    constant("bound.steps_per_s", b.bound, "1/s");
    constant("bound.cycle_steps_per_s", b.cycle_bound, "1/s");
    constant("part.compute_s", compute, "s");
    constant("part.update_s", update, "s");
    constant("part.exposed_comm_s", comm, "s");
    return out;
}

std::vector<StepParts> step_breakdown(const training::TrainingSpec& spec,
                                      const solver::SolveResult& result) {
    std::map<std::string, const solver::MeasureEstimate*> by_name;
    for (const auto& m : result.measures) by_name[m.name] = &m;
    std::vector<StepParts> out;
    StepParts all{"all"};
    for (std::size_t i = 0; i < spec.workers.size(); ++i) {
        const auto& w = spec.workers[i];
        const auto it = by_name.find("step_time." + w.name);
        if (it == by_name.end()) return {};
        const auto busy = by_name.find("busy." + w.name);
        const auto comm = by_name.find("exposed_comm." + w.name);
        if (busy == by_name.end() || comm == by_name.end()) return {};
        StepParts p{w.name, it->second->mean, it->second->ci_low, it->second->ci_high};
        // The worker's jobs in progress, split between compute and update by their work.
        const double c = compute_mean_s(w), upd = net::mean(w.update);
        const double busy_s = p.step_s * busy->second->mean;
        p.update_s = c + upd > 0 ? busy_s * upd / (c + upd) : 0.0;
        p.compute_s = busy_s - p.update_s;
        p.communication_s = p.step_s * comm->second->mean;
        p.waiting_s = std::max(0.0, p.step_s - busy_s - p.communication_s);
        const double n = double(spec.workers.size());
        all.step_s += p.step_s / n;
        all.compute_s += p.compute_s / n;
        all.update_s += p.update_s / n;
        all.communication_s += p.communication_s / n;
        all.waiting_s += p.waiting_s / n;
        out.push_back(p);
    }
    if (const auto it = by_name.find("step_time"); it != by_name.end()) {
        all.ci_low = it->second->ci_low;
        all.ci_high = it->second->ci_high;
    }
    out.push_back(all);
    return out;
}

namespace {

/// The values to solve a param at: ± fraction, or the nearest other integers when `integral`.
std::pair<double, double> moved(double value, double fraction, bool integral) {
    if (!integral) return {value * (1 - fraction), value * (1 + fraction)};
    const double step = std::max(1.0, std::round(std::fabs(value) * fraction));
    return {value - step, value + step};
}

std::string number_text(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

}  // namespace

std::vector<WhatIf> what_if(const std::vector<compiler::ParamValue>& params,
                            const std::function<std::optional<net::PetriNet>(
                                const std::vector<std::pair<std::string, std::string>>&)>& compile,
                            const solver::SolveOptions& options, double fraction) {
    auto first = [&](const net::PetriNet& net) {
        return solver::simulate(net, options).measures.front().mean;
    };
    std::vector<WhatIf> out;
    const std::optional<net::PetriNet> base_net = compile({});
    if (!base_net || base_net->measures.empty()) return out;
    const double base = first(*base_net);
    for (const auto& p : params) {
        WhatIf w;
        w.param = p.name;
        w.value = p.value;
        w.unit = p.unit.value_or("");
        w.base = base;
        if (!p.unit) {
            w.skipped = "its dimension has no unit to write it with";
        } else if (p.value == 0) {
            w.skipped = "it is 0";
        }
        std::optional<net::PetriNet> low, high;
        for (bool integral : {false, true}) {
            if (!w.skipped.empty()) break;
            if (integral && p.value != std::round(p.value)) break;
            std::tie(w.low_value, w.high_value) = moved(p.value, fraction, integral);
            auto set = [&](double v) {
                return compile({{p.name, number_text(v) + (p.unit->empty() ? "" : " " + *p.unit)}});
            };
            low = set(w.low_value);
            high = set(w.high_value);
            if (low && high) break;
        }
        if (w.skipped.empty() && !(low && high))
            w.skipped = "the model does not compile at ± the change";
        if (!w.skipped.empty()) {
            out.push_back(w);
            continue;
        }
        w.low = first(*low);
        w.high = first(*high);
        w.change_low = (w.low - base) / base;
        w.change_high = (w.high - base) / base;
        w.elasticity = ((w.high - w.low) / base) / ((w.high_value - w.low_value) / p.value);
        out.push_back(w);
    }
    std::stable_sort(out.begin(), out.end(), [](const WhatIf& a, const WhatIf& b) {
        if (a.skipped.empty() != b.skipped.empty()) return a.skipped.empty();
        return std::fabs(a.elasticity) > std::fabs(b.elasticity);
    });
    return out;
}

NetActivity net_activity(const net::PetriNet& net, const solver::SolveOptions& options) {
    net::PetriNet copy = net;
    const std::size_t own = copy.measures.size();
    for (uint32_t t = 0; t < copy.transitions.size(); ++t) {
        net::Measure m{"firings." + copy.transitions[t].name,
                       net::Measure::Kind::Throughput,
                       {{net::TransitionId{t}, 1.0}},
                       {},
                       "1/s",
                       copy.transitions[t].where};
        copy.measures.push_back(std::move(m));
    }
    for (uint32_t p = 0; p < copy.places.size(); ++p) {
        net::Measure m{"tokens." + copy.places[p].name,
                       net::Measure::Kind::TimeAverage,
                       {},
                       net::MarkingExpr::tokens(p),
                       "tokens",
                       copy.places[p].where};
        copy.measures.push_back(std::move(m));
    }
    NetActivity out;
    const StructuralBounds bounds = structural_bounds(net);
    out.invariants_complete = bounds.complete;
    for (const auto& inv : bounds.invariants) {
        std::string text;
        for (const auto& [p, w] : inv.weights)
            text += (text.empty() ? "" : " + ") + (w == 1 ? "" : std::to_string(w) + " ") +
                    net.places[p].name;
        out.invariants.push_back(text + " = " + std::to_string(inv.tokens));
    }
    out.result = solver::simulate(copy, options);
    const std::size_t nt = copy.transitions.size();
    for (std::size_t k = own; k < out.result.measures.size(); ++k) {
        const auto& m = out.result.measures[k];
        const bool firing = k < own + nt;
        const std::string name = m.name.substr(firing ? 8 : 7);
        const auto& bound = firing ? bounds.firings_per_s[k - own] : bounds.place_tokens[k - own - nt];
        (firing ? out.transitions : out.places)
            .push_back({name, m.mean, m.ci_low, m.ci_high, bound});
    }
    auto by_value = [](const ElementActivity& a, const ElementActivity& b) {
        return a.value > b.value;
    };
    std::stable_sort(out.transitions.begin(), out.transitions.end(), by_value);
    std::stable_sort(out.places.begin(), out.places.end(), by_value);
    out.result.measures.resize(own);
    return out;
}

}  // namespace sgdnet::explain
