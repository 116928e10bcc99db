// Structural invariants of a PetriNet: names, ids, multiplicities, weights, servers,
// distribution parameters and measures (the last step of compile()).
#include <charconv>
#include <cmath>
#include <string>
#include <unordered_set>
#include <variant>
#include <vector>

#include "net/overloaded.hpp"
#include "net/petri_net.hpp"

namespace sgdnet::net {
namespace {


/// Shortest round-trip text of a double, for messages.
std::string num(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

bool finite_nonneg(double v) { return std::isfinite(v) && v >= 0; }

/// Appends a message for every invalid parameter of `d`; `who` names the transition.
void check_distribution(const Distribution& d, const std::string& who,
                        std::vector<std::string>& errors) {
    auto bad = [&](const std::string& what) {
        errors.push_back("transition '" + who + "': " + what);
    };
    auto need = [&](bool ok, const char* dist, const char* param, double v) {
        if (!ok) bad(std::string(dist) + ": invalid " + param + " " + num(v));
    };
    std::visit(Overloaded{
                   [&](const Det& x) { need(finite_nonneg(x.value_s), "det", "value", x.value_s); },
                   [&](const Exp& x) {
                       need(std::isfinite(x.rate_per_s) && x.rate_per_s > 0, "exp", "rate",
                            x.rate_per_s);
                   },
                   [&](const Uniform& x) {
                       need(finite_nonneg(x.low_s), "uniform", "low bound", x.low_s);
                       need(finite_nonneg(x.high_s) && x.high_s >= x.low_s, "uniform",
                            "high bound", x.high_s);
                   },
                   [&](const Normal& x) {
                       need(finite_nonneg(x.mean_s), "normal", "mean", x.mean_s);
                       need(finite_nonneg(x.sd_s), "normal", "sd", x.sd_s);
                   },
                   [&](const Lognormal& x) {
                       need(finite_nonneg(x.mean_s), "lognormal", "mean", x.mean_s);
                       need(finite_nonneg(x.cv), "lognormal", "cv", x.cv);
                   },
                   [&](const Gamma& x) {
                       need(finite_nonneg(x.mean_s), "gamma", "mean", x.mean_s);
                       need(finite_nonneg(x.cv), "gamma", "cv", x.cv);
                   },
                   [&](const Erlang& x) {
                       need(x.k >= 1, "erlang", "k", x.k);
                       need(finite_nonneg(x.mean_s), "erlang", "mean", x.mean_s);
                   },
                   [&](const Weibull& x) {
                       need(std::isfinite(x.shape) && x.shape > 0, "weibull", "shape", x.shape);
                       need(finite_nonneg(x.scale_s), "weibull", "scale", x.scale_s);
                   },
                   [&](const Empirical& x) {
                       if (x.values_s.empty()) bad("empirical: no values");
                       for (double v : x.values_s) need(finite_nonneg(v), "empirical", "value", v);
                   },
                   [&](const Mixture& x) {
                       if (x.parts.empty()) bad("mixture: no components");
                       if (x.probs.size() != x.parts.size()) {
                           bad("mixture: " + std::to_string(x.probs.size()) +
                               " probabilities for " + std::to_string(x.parts.size()) +
                               " components");
                       }
                       double sum = 0;
                       for (double p : x.probs) {
                           need(finite_nonneg(p) && p <= 1, "mixture", "probability", p);
                           sum += p;
                       }
                       if (!x.probs.empty() && std::abs(sum - 1) > 1e-9) {
                           bad("mixture: probabilities sum to " + num(sum) + ", not 1");
                       }
                       for (const auto& part : x.parts) check_distribution(part, who, errors);
                   },
                   [&](const Scaled& x) {
                       need(std::isfinite(x.factor) && x.factor > 0, "scaled", "factor",
                            x.factor);
                       if (x.base.size() != 1) bad("scaled: base must be exactly one distribution");
                       for (const auto& b : x.base) check_distribution(b, who, errors);
                   },
                   [&](const Shifted& x) {
                       need(finite_nonneg(x.offset_s), "shifted", "offset", x.offset_s);
                       if (x.base.size() != 1) {
                           bad("shifted: base must be exactly one distribution");
                       }
                       for (const auto& b : x.base) check_distribution(b, who, errors);
                   },
                   [&](const Sum& x) {
                       if (x.parts.empty()) bad("sum: no parts");
                       for (const auto& part : x.parts) check_distribution(part, who, errors);
                   },
               },
               d.v);
}

void check_expr(const MarkingExpr& e, std::size_t places, const std::string& who,
                std::vector<std::string>& errors) {
    for (const auto& op : e.code) {
        if (op.code == ExprOp::Code::Tokens && op.place >= places) {
            errors.push_back(who + ": expression reads place id " + std::to_string(op.place) +
                             " out of range (" + std::to_string(places) + " places)");
        }
    }
}

void check_arcs(const std::vector<Arc>& arcs, const char* kind, std::size_t places,
                const std::string& who, std::vector<std::string>& errors) {
    for (const auto& a : arcs) {
        if (a.place.value >= places) {
            errors.push_back("transition '" + who + "': " + kind + " arc to place id " +
                             std::to_string(a.place.value) + " out of range (" +
                             std::to_string(places) + " places)");
        }
        if (a.multiplicity < 1) {
            errors.push_back("transition '" + who + "': " + kind + " arc with multiplicity 0");
        }
    }
}

}  // namespace

std::vector<std::string> validate(const PetriNet& net) {
    std::vector<std::string> errors;
    const std::size_t np = net.places.size(), nt = net.transitions.size();

    std::unordered_set<std::string> seen;
    for (const auto& p : net.params) {
        if (!seen.insert(p.name).second) errors.push_back("duplicate param '" + p.name + "'");
        if (!std::isfinite(p.value)) {
            errors.push_back("param '" + p.name + "' is not finite");
        }
    }

    seen.clear();
    for (const auto& p : net.places) {
        if (p.name.empty()) errors.push_back("place with an empty name");
        if (!seen.insert(p.name).second) errors.push_back("duplicate place '" + p.name + "'");
        if (p.bound && p.initial > *p.bound) {
            errors.push_back("place '" + p.name + "': initial marking " +
                             std::to_string(p.initial) + " exceeds its bound " +
                             std::to_string(*p.bound));
        }
    }

    seen.clear();
    for (const auto& t : net.transitions) {
        if (t.name.empty()) errors.push_back("transition with an empty name");
        if (!seen.insert(t.name).second) errors.push_back("duplicate transition '" + t.name + "'");
        check_arcs(t.inputs, "input", np, t.name, errors);
        check_arcs(t.outputs, "output", np, t.name, errors);
        check_arcs(t.inhibitors, "inhibitor", np, t.name, errors);
        if (t.kind == TransitionKind::Timed) {
            if (t.servers < 1) errors.push_back("transition '" + t.name + "': 0 servers");
            check_distribution(t.delay, t.name, errors);
            if (t.speed) check_expr(*t.speed, np, "transition '" + t.name + "' speed", errors);
        } else {
            if (!(std::isfinite(t.weight) && t.weight > 0)) {
                errors.push_back("transition '" + t.name + "': weight " + num(t.weight) +
                                 " is not positive");
            }
        }
    }

    seen.clear();
    for (const auto& m : net.measures) {
        if (m.name.empty()) errors.push_back("measure with an empty name");
        if (!seen.insert(m.name).second) errors.push_back("duplicate measure '" + m.name + "'");
        const std::string who = "measure '" + m.name + "'";
        if (m.kind == Measure::Kind::TimeAverage) {
            if (m.expr.code.empty()) errors.push_back(who + ": empty expression");
            check_expr(m.expr, np, who, errors);
        } else {
            if (m.terms.empty()) errors.push_back(who + ": no transitions");
            for (const auto& term : m.terms) {
                if (term.transition.value >= nt) {
                    errors.push_back(who + ": transition id " +
                                     std::to_string(term.transition.value) + " out of range (" +
                                     std::to_string(nt) + " transitions)");
                }
                if (!std::isfinite(term.coef)) errors.push_back(who + ": coefficient not finite");
            }
        }
    }
    return errors;
}

}  // namespace sgdnet::net
