// Lowering of raw stochastic timed Petri nets (docs/language.md §6) and of `measure` declarations
// to the net IR, with arrays expanded.
#include "compiler/lower_net.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "compiler/measure_aggregates.hpp"

namespace sgdnet::compiler {

namespace {

using net::ExprOp;
using Code = net::ExprOp::Code;

bool calls_any(const Expr& e, const std::set<std::string>& names) {
    struct Walker {
        const std::set<std::string>& names;
        bool operator()(const NumberLit&) const { return false; }
        bool operator()(const StringLit&) const { return false; }
        bool operator()(const BoolLit&) const { return false; }
        bool operator()(const NameRef& n) const {
            for (const auto& inner : n.part_indexes)
                if (inner && calls_any(*inner, names)) return true;
            return n.index && calls_any(*n.index, names);
        }
        bool operator()(const Unary& u) const { return calls_any(*u.operand, names); }
        bool operator()(const Binary& b) const {
            return calls_any(*b.lhs, names) || calls_any(*b.rhs, names);
        }
        bool operator()(const Conditional& c) const {
            return calls_any(*c.cond, names) || calls_any(*c.then_expr, names) ||
                   calls_any(*c.else_expr, names);
        }
        bool operator()(const Call& c) const {
            if (names.count(c.callee)) return true;
            for (const Arg& a : c.args)
                if ((a.weight && calls_any(*a.weight, names)) || (a.value && calls_any(*a.value, names)))
                    return true;
            return false;
        }
        bool operator()(const ListLit& l) const {
            for (const auto& item : l.items)
                if (calls_any(*item, names)) return true;
            return false;
        }
    };
    return std::visit(Walker{names}, e.node);
}

const std::set<std::string> kMarkingCalls{"tokens", "prob"};

/// Evaluates a dimensionless constant (booleans as 0/1) for a marking expression or a measure.
std::optional<double> constant(const Expr& e, const Scope& scope, Diagnostics& diags,
                               const std::string& context) {
    auto v = evaluate(e, scope, diags);
    if (!v) return std::nullopt;
    if (auto* b = std::get_if<bool>(&*v)) return *b ? 1.0 : 0.0;
    if (auto* q = std::get_if<Quantity>(&*v); q && q->dim.dimensionless()) return q->value;
    diags.error(e.range, context + " must be dimensionless, got " + kind_name(*v));
    return std::nullopt;
}

class MarkingCompiler {
public:
    MarkingCompiler(const Scope& scope, const PlaceResolver& places, Diagnostics& diags,
                    const NetScopes* nets)
        : scope_(scope), places_(places), diags_(diags), nets_(nets) {}

    bool emit(const Expr& e, std::vector<ExprOp>& code) {
        if (const Scope* net_scope = net_constant_scope(e)) {
            // `NET.NAME`, a net-local param or let: its value.
            auto* ref = std::get_if<NameRef>(&e.node);
            NameRef local;
            local.parts = {ref->parts[1]};
            Expr inner;
            inner.node = std::move(local);
            inner.range = e.range;
            auto c = constant(inner, *net_scope, diags_, "`" + ref->parts[0] + "." +
                                                            ref->parts[1] + "` in a measure");
            if (!c) return false;
            code.push_back(ExprOp{Code::Const, 0, *c});
            return true;
        }
        if (in_prob_) {
            // Inside prob(COND), a name that is not a param, let or index is a place: its tokens.
            if (auto* ref = std::get_if<NameRef>(&e.node); ref && !scope_.find(ref->parts[0])) {
                auto p = places_(e);
                if (!p) return false;
                code.push_back(ExprOp{Code::Tokens, p->value, 0});
                return true;
            }
        }
        if (!depends_on_marking(e)) {
            auto c = constant(e, scope_, diags_, "a marking-dependent expression");
            if (!c) return false;
            code.push_back(ExprOp{Code::Const, 0, *c});
            return true;
        }
        if (auto* c = std::get_if<Call>(&e.node)) return call(e, *c, code);
        if (auto* u = std::get_if<Unary>(&e.node)) {
            if (!emit(*u->operand, code)) return false;
            code.push_back(ExprOp{u->op == Unary::Op::Neg ? Code::Neg : Code::Not, 0, 0});
            return true;
        }
        if (auto* b = std::get_if<Binary>(&e.node)) {
            bool ok = emit(*b->lhs, code);
            ok = emit(*b->rhs, code) && ok;
            if (!ok) return false;
            code.push_back(ExprOp{binary_code(b->op), 0, 0});
            return true;
        }
        if (auto* c = std::get_if<Conditional>(&e.node)) {
            bool ok = emit(*c->cond, code);
            ok = emit(*c->then_expr, code) && ok;
            ok = emit(*c->else_expr, code) && ok;
            if (!ok) return false;
            code.push_back(ExprOp{Code::Select, 0, 0});
            return true;
        }
        diags_.error(e.range, "this expression cannot depend on the marking");
        return false;
    }

private:
    const Scope& scope_;
    const PlaceResolver& places_;
    Diagnostics& diags_;
    const NetScopes* nets_;
    bool in_prob_ = false;

    /// The scope of net NET when `e` is `NET.NAME` (no index) with NAME a param or let of NET
    /// and NET not a name of `scope_`; null otherwise.
    const Scope* net_constant_scope(const Expr& e) const {
        auto* ref = std::get_if<NameRef>(&e.node);
        if (!nets_ || !ref || ref->parts.size() != 2 || ref->index || ref->indexed_inside() ||
            scope_.find(ref->parts[0]))
            return nullptr;
        auto it = nets_->find(ref->parts[0]);
        if (it == nets_->end()) return nullptr;
        const Scope& net_scope = *it->second;
        // Only the net's own names, not the top-level ones it inherits.
        if (!net_scope.find(ref->parts[1]) || scope_.find(ref->parts[1]) == net_scope.find(ref->parts[1]))
            return nullptr;
        return &net_scope;
    }

    bool depends_on_marking(const Expr& e) const {
        if (calls_any(e, kMarkingCalls)) return true;
        if (!in_prob_) return false;
        std::vector<std::string> names;
        free_names(e, names);
        return std::any_of(names.begin(), names.end(),
                           [&](const std::string& n) { return !scope_.find(n); });
    }

    static Code binary_code(Binary::Op op) {
        switch (op) {
            case Binary::Op::Add: return Code::Add;
            case Binary::Op::Sub: return Code::Sub;
            case Binary::Op::Mul: return Code::Mul;
            case Binary::Op::Div: return Code::Div;
            case Binary::Op::Mod: return Code::Mod;
            case Binary::Op::Pow: return Code::Pow;
            case Binary::Op::Eq: return Code::Eq;
            case Binary::Op::Ne: return Code::Ne;
            case Binary::Op::Lt: return Code::Lt;
            case Binary::Op::Le: return Code::Le;
            case Binary::Op::Gt: return Code::Gt;
            case Binary::Op::Ge: return Code::Ge;
            case Binary::Op::And: return Code::And;
            case Binary::Op::Or: return Code::Or;
        }
        return Code::Add;
    }

    bool call(const Expr& e, const Call& c, std::vector<ExprOp>& code) {
        auto positional = [&](std::size_t lo, std::size_t hi) {
            for (const Arg& a : c.args)
                if (a.name || a.weight) {
                    diags_.error(a.range, "`" + c.callee + "` takes positional arguments only");
                    return false;
                }
            if (c.args.size() < lo || c.args.size() > hi) {
                diags_.error(e.range, "wrong number of arguments to `" + c.callee + "`");
                return false;
            }
            return true;
        };
        if (c.callee == "tokens") {
            if (!positional(1, 1)) return false;
            auto p = places_(*c.args[0].value);
            if (!p) return false;
            code.push_back(ExprOp{Code::Tokens, p->value, 0});
            return true;
        }
        if (c.callee == "prob") {
            if (!positional(1, 1)) return false;
            bool outer = in_prob_;
            in_prob_ = true;
            bool ok = emit(*c.args[0].value, code);
            in_prob_ = outer;
            return ok;
        }
        static const std::map<std::string, Code> unary{
            {"abs", Code::Abs},   {"floor", Code::Floor}, {"ceil", Code::Ceil},
            {"round", Code::Round}, {"sqrt", Code::Sqrt}, {"log", Code::Log},
            {"exp", Code::Exp}};
        if (auto it = unary.find(c.callee); it != unary.end()) {
            if (!positional(1, 1) || !emit(*c.args[0].value, code)) return false;
            code.push_back(ExprOp{it->second, 0, 0});
            return true;
        }
        if (c.callee == "min" || c.callee == "max" || c.callee == "pow") {
            bool pow = c.callee == "pow";
            if (!positional(pow ? 2 : 1, pow ? 2 : SIZE_MAX)) return false;
            Code op = pow ? Code::Pow : c.callee == "min" ? Code::Min : Code::Max;
            for (std::size_t k = 0; k < c.args.size(); ++k) {
                if (!emit(*c.args[k].value, code)) return false;
                if (k > 0) code.push_back(ExprOp{op, 0, 0});
            }
            return true;
        }
        diags_.error(e.range, "`" + c.callee + "(…)` cannot be combined with `tokens(…)`");
        return false;
    }
};

/// Element indices of an optional array declarator.
struct Indices {
    bool array = false;
    std::string var;
    int64_t first = 0;
    int64_t count = 1;
};

std::optional<Indices> expand(const std::optional<ArraySpec>& spec, const Scope& scope,
                              Diagnostics& diags) {
    Indices out;
    if (!spec) return out;
    out.array = true;
    out.var = spec->var;
    if (spec->size) {
        auto n = evaluate_integer(*spec->size, scope, diags, "an array size", 1, kMaxArraySize);
        if (!n) return std::nullopt;
        out.count = *n;
        return out;
    }
    auto a = evaluate_integer(*spec->first, scope, diags, "an index range bound",
                              -1'000'000'000, 1'000'000'000);
    auto b = evaluate_integer(*spec->last, scope, diags, "an index range bound",
                              -1'000'000'000, 1'000'000'000);
    if (!a || !b) return std::nullopt;
    if (*b < *a) {
        diags.error(spec->range, "the index range " + std::to_string(*a) + ".." +
                                     std::to_string(*b) + " is empty");
        return std::nullopt;
    }
    if (*b - *a + 1 > kMaxArraySize) {
        diags.error(spec->range, "the index range " + std::to_string(*a) + ".." +
                                     std::to_string(*b) + " has more than " +
                                     std::to_string(kMaxArraySize) + " elements");
        return std::nullopt;
    }
    out.first = *a;
    out.count = *b - *a + 1;
    return out;
}

std::string element_name(const std::string& base, const Indices& ix, int64_t k) {
    return ix.array ? base + "[" + std::to_string(k) + "]" : base;
}

/// A declared place (or place array) of some net.
struct PlaceInfo {
    bool ok = true;  // false: its declaration failed (references fail silently)
    Indices ix;
    uint32_t first_id = 0;
};

class NetLowering {
public:
    NetLowering(const Ast& ast, const Resolved& resolved, net::PetriNet& out, Diagnostics& diags)
        : ast_(ast), resolved_(resolved), out_(out), diags_(diags) {}

    void run() {
        std::vector<const NetDecl*> nets;
        for (const Decl& d : ast_.decls)
            if (auto* n = std::get_if<NetDecl>(&d)) nets.push_back(n);
        for (const NetDecl* n : nets) {
            scopes_.push_back(std::make_unique<Scope>(&resolved_.scope));
            declare(*n, *scopes_.back());
        }
        for (std::size_t k = 0; k < nets.size(); ++k) transitions(*nets[k], *scopes_[k]);
    }

    /// Hands the nets' scopes over (after run()).
    void take_scopes(NetScopes& into) {
        std::vector<const NetDecl*> nets;
        for (const Decl& d : ast_.decls)
            if (auto* n = std::get_if<NetDecl>(&d)) nets.push_back(n);
        for (std::size_t k = 0; k < nets.size() && k < scopes_.size(); ++k)
            into.emplace(nets[k]->name, std::move(scopes_[k]));
    }

private:
    const Ast& ast_;
    const Resolved& resolved_;
    net::PetriNet& out_;
    Diagnostics& diags_;
    std::vector<std::unique_ptr<Scope>> scopes_;
    std::map<std::string, PlaceInfo> places_;  // key: NET.NAME
    std::set<std::string> net_names_;

    // Net-local params, duplicate names, and places.
    void declare(const NetDecl& n, Scope& scope) {
        net_names_.insert(n.name);
        std::map<std::string, SourceRange> seen;
        auto unique = [&](const std::string& name, SourceRange where) {
            auto [it, fresh] = seen.emplace(name, where);
            if (!fresh) {
                diags_.error(where, "`" + name + "` is already defined in net `" + n.name + "`");
                diags_.note(it->second, "first defined here");
            }
            return fresh;
        };
        for (const NetItem& item : n.items) {
            if (auto* p = std::get_if<ParamDecl>(&item)) {
                if (!unique(p->name, p->name_range)) continue;
                const Expr* value = p->value.get();
                std::string qualified = n.name + "." + p->name;
                for (const Override& o : resolved_.net_overrides)
                    if (o.name == qualified && o.value) value = o.value.get();
                auto v = value ? evaluate(*value, scope, diags_) : std::nullopt;
                if (!v) {
                    scope.define_poisoned(p->name, p->name_range);
                    continue;
                }
                if (auto* q = std::get_if<Quantity>(&*v); q && !p->is_let)
                    out_.params.push_back({qualified, q->value, canonical_unit(q->dim)});
                scope.define(p->name, std::move(*v), p->name_range);
            } else if (auto* pl = std::get_if<PlaceDecl>(&item)) {
                if (!unique(pl->name, pl->name_range)) continue;
                place(n, *pl, scope);
            } else if (auto* t = std::get_if<TransitionDecl>(&item)) {
                unique(t->name, t->name_range);
            }
        }
    }

    void place(const NetDecl& n, const PlaceDecl& pl, const Scope& scope) {
        std::string base = n.name + "." + pl.name;
        PlaceInfo& info = places_[base];
        auto ix = expand(pl.array, scope, diags_);
        if (!ix) {
            info.ok = false;
            return;
        }
        info.ix = *ix;
        info.first_id = static_cast<uint32_t>(out_.places.size());
        for (int64_t k = 0; k < ix->count; ++k) {
            int64_t index = ix->first + k;
            Scope es = ix->array ? scope.with_index(ix->var, index) : Scope(&scope);
            net::Place p;
            p.name = element_name(base, *ix, index);
            p.where = pl.range;
            std::size_t before = diags_.error_count();
            if (pl.initial)
                p.initial = static_cast<uint32_t>(
                    evaluate_integer(*pl.initial, es, diags_, "an initial marking", 0, UINT32_MAX)
                        .value_or(0));
            if (pl.bound) {
                auto b = evaluate_integer(*pl.bound, es, diags_, "a bound", 0, UINT32_MAX);
                if (b) p.bound = static_cast<uint32_t>(*b);
            }
            if (p.bound && p.initial > *p.bound && diags_.error_count() == before)
                diags_.error(pl.initial->range, "place `" + p.name + "` starts with " +
                                                    std::to_string(p.initial) +
                                                    " tokens, above its bound " +
                                                    std::to_string(*p.bound));
            out_.places.push_back(std::move(p));
            if (diags_.error_count() > before) {
                info.ok = false;
                // Keep ids dense for the remaining elements so references still resolve.
                for (int64_t r = k + 1; r < ix->count; ++r) {
                    net::Place rest;
                    rest.name = element_name(base, *ix, ix->first + r);
                    rest.where = pl.range;
                    out_.places.push_back(std::move(rest));
                }
                return;
            }
        }
    }

    std::vector<std::string> place_candidates(const std::string& net_name) const {
        std::vector<std::string> out;
        for (const auto& [name, info] : places_)
            if (name.rfind(net_name + ".", 0) == 0) out.push_back(name.substr(net_name.size() + 1));
        return out;
    }

    /// Resolves `P`, `P[k]`, `NET.P`, `NET.P[k]` inside net `n`.
    std::optional<net::PlaceId> resolve_place(const NetDecl& n, const Expr& e, const Scope& scope) {
        auto* ref = std::get_if<NameRef>(&e.node);
        if (ref && ref->wildcard >= 0) {
            diags_.error(e.range, "an arc names one place: `[*]` (every element of an array) is "
                                  "only allowed inside `sum(…)` or `mean(…)` of a measure");
            return std::nullopt;
        }
        if (!ref || ref->parts.size() > 2 || ref->indexed_inside()) {
            diags_.error(e.range, "expected a place name `P`, `P[k]`, `NET.P` or `NET.P[k]`");
            return std::nullopt;
        }
        std::string net_name = ref->parts.size() == 2 ? ref->parts[0] : n.name;
        const std::string& local = ref->parts.back();
        if (ref->parts.size() == 2 && !net_names_.count(net_name)) {
            std::vector<std::string> nets(net_names_.begin(), net_names_.end());
            diags_.error(e.range, "unknown net `" + net_name + "`" + did_you_mean(net_name, nets));
            return std::nullopt;
        }
        auto it = places_.find(net_name + "." + local);
        if (it == places_.end()) {
            diags_.error(e.range, "unknown place `" + local + "` in net `" + net_name + "`" +
                                      did_you_mean(local, place_candidates(net_name)));
            return std::nullopt;
        }
        const PlaceInfo& info = it->second;
        if (!info.ok) return std::nullopt;
        if (!info.ix.array) {
            if (ref->index) {
                diags_.error(e.range, "place `" + local + "` is not an array");
                return std::nullopt;
            }
            return net::PlaceId{info.first_id};
        }
        if (!ref->index) {
            diags_.error(e.range, "place `" + local + "` is an array; write `" + local +
                                      "[INDEX]`");
            return std::nullopt;
        }
        Scope idx(&scope);
        idx.integer_division = true;
        auto k = evaluate_integer(*ref->index, idx, diags_, "an index");
        if (!k) return std::nullopt;
        if (*k < info.ix.first || *k >= info.ix.first + info.ix.count) {
            diags_.error(ref->index->range,
                         "index " + std::to_string(*k) + " is out of the range " +
                             std::to_string(info.ix.first) + ".." +
                             std::to_string(info.ix.first + info.ix.count - 1) + " of `" +
                             local + "`");
            return std::nullopt;
        }
        return net::PlaceId{info.first_id + static_cast<uint32_t>(*k - info.ix.first)};
    }

    void transitions(const NetDecl& n, const Scope& scope) {
        for (const NetItem& item : n.items) {
            auto* t = std::get_if<TransitionDecl>(&item);
            if (!t) continue;
            auto ix = expand(t->array, scope, diags_);
            if (!ix) continue;
            for (int64_t k = 0; k < ix->count; ++k) {
                int64_t index = ix->first + k;
                Scope es = ix->array ? scope.with_index(ix->var, index) : Scope(&scope);
                std::size_t before = diags_.error_count();
                auto tr = transition(n, *t, es);
                tr.name = element_name(n.name + "." + t->name, *ix, index);
                if (diags_.error_count() > before) break;  // one report per declaration
                out_.transitions.push_back(std::move(tr));
            }
        }
    }

    net::Transition transition(const NetDecl& n, const TransitionDecl& t, const Scope& scope) {
        net::Transition tr;
        tr.where = t.range;
        tr.kind = t.immediate ? net::TransitionKind::Immediate : net::TransitionKind::Timed;
        if (!t.immediate && t.delay) {
            if (auto d = evaluate_distribution(*t.delay, scope, diags_)) tr.delay = std::move(*d);
        }
        attributes(n, t, scope, tr);
        arcs(n, t, scope, tr);
        return tr;
    }

    void attributes(const NetDecl& n, const TransitionDecl& t, const Scope& scope,
                    net::Transition& tr) {
        static const std::vector<std::string> timed{"server", "memory", "speed"};
        static const std::vector<std::string> immediate{"priority", "weight"};
        const auto& valid = t.immediate ? immediate : timed;
        std::set<std::string> seen;
        std::optional<SourceRange> explicit_enabling;
        for (const Property& p : t.attributes) {
            if (std::find(valid.begin(), valid.end(), p.name) == valid.end()) {
                const auto& other = t.immediate ? timed : immediate;
                if (std::find(other.begin(), other.end(), p.name) != other.end())
                    diags_.error(p.name_range, "`" + p.name + "` applies to " +
                                                   (t.immediate ? "timed" : "immediate") +
                                                   " transitions only");
                else
                    diags_.error(p.name_range, "unknown attribute `" + p.name + "` of " +
                                                   (t.immediate ? "an immediate" : "a timed") +
                                                   " transition" + did_you_mean(p.name, valid));
                continue;
            }
            if (!seen.insert(p.name).second) {
                diags_.error(p.name_range, "attribute `" + p.name + "` given twice");
                continue;
            }
            const Expr& v = *p.value;
            auto id = identifier(v);
            if (p.name == "server") {
                if (id && (*id == "single" || *id == "infinite")) {
                    tr.servers = *id == "single" ? 1 : net::kInfiniteServers;
                } else if (id && !scope.find(*id)) {
                    diags_.error(v.range, "`server` must be `single`, `infinite` or a positive "
                                          "integer, got `" + *id + "`" +
                                              did_you_mean(*id, {"single", "infinite"}));
                } else if (auto k = evaluate_integer(v, scope, diags_, "a server count", 1,
                                                     net::kInfiniteServers - 1)) {
                    tr.servers = static_cast<uint32_t>(*k);
                }
            } else if (p.name == "memory") {
                if (id && (*id == "enabling" || *id == "age")) {
                    if (*id == "age") tr.memory = net::Memory::Age;
                    else explicit_enabling = v.range;
                } else {
                    diags_.error(v.range, "`memory` must be `enabling` or `age`" +
                                              (id ? did_you_mean(*id, {"enabling", "age"})
                                                  : std::string()));
                }
            } else if (p.name == "speed") {
                PlaceResolver places = [&](const Expr& pe) {
                    return resolve_place(n, pe, scope);
                };
                auto m = compile_marking_expr(v, scope, places, diags_);
                if (m && m->is_constant()) {
                    double s = m->evaluate(nullptr);
                    if (!(s >= 0) || !std::isfinite(s)) {
                        diags_.error(v.range, "`speed` must be >= 0, got " + format_number(s));
                        m.reset();
                    }
                }
                if (m) {
                    tr.speed = std::move(*m);
                    tr.memory = net::Memory::Age;
                }
            } else if (p.name == "priority") {
                if (auto k = evaluate_integer(v, scope, diags_, "a priority", 0, 1'000'000))
                    tr.priority = static_cast<int>(*k);
            } else if (p.name == "weight") {
                if (auto w = evaluate_quantity(v, Dim::none(), scope, diags_)) {
                    if (*w > 0 && std::isfinite(*w))
                        tr.weight = *w;
                    else
                        diags_.error(v.range, "a weight must be > 0, got " + format_number(*w));
                }
            }
        }
        if (tr.speed && explicit_enabling)
            diags_.error(*explicit_enabling,
                         "`speed` implies `memory = age`; remove `memory = enabling`");
    }

    void arcs(const NetDecl& n, const TransitionDecl& t, const Scope& scope, net::Transition& tr) {
        for (const ArcDecl& a : t.arcs) {
            auto p = resolve_place(n, *a.place, scope);
            uint32_t m = 1;
            if (a.multiplicity) {
                auto k = evaluate_integer(*a.multiplicity, scope, diags_, "a multiplicity", 1,
                                          UINT32_MAX);
                if (!k) continue;
                m = static_cast<uint32_t>(*k);
            }
            if (!p) continue;
            auto& list = a.kind == ArcDecl::Kind::In    ? tr.inputs
                         : a.kind == ArcDecl::Kind::Out ? tr.outputs
                                                        : tr.inhibitors;
            auto same = std::find_if(list.begin(), list.end(),
                                     [&](const net::Arc& x) { return x.place == *p; });
            if (same == list.end()) {
                list.push_back(net::Arc{*p, m});
            } else if (a.kind == ArcDecl::Kind::Inhibit) {
                diags_.error(a.range, "two inhibitor arcs from place `" +
                                          out_.places[p->value].name + "`");
            } else {
                same->multiplicity += m;  // `in a; in a;` = `in a*2;`
            }
        }
        if (t.immediate && tr.inputs.empty() && tr.inhibitors.empty() && !t.arcs.empty())
            diags_.error(t.name_range, "immediate transition `" + t.name +
                                           "` has no input or inhibitor arc: it would fire "
                                           "forever in zero time");
    }
};

// --- measures ------------------------------------------------------------------------------

class MeasureLowering {
public:
    MeasureLowering(const Scope& scope, net::PetriNet& out, Diagnostics& diags,
                    const NetScopes* nets)
        : scope_(scope), out_(out), diags_(diags), nets_(nets) {}

    void measure(const MeasureDecl& m) {
        for (const auto& existing : out_.measures) {
            if (existing.name == m.name) {
                diags_.error(m.name_range, "measure `" + m.name + "` is already defined");
                return;
            }
        }
        net::Measure out;
        out.name = m.name;
        out.where = m.range;
        ExprPtr expanded;  // `sum(…)`/`mean(…)` over `[*]` written out
        if (has_aggregate(*m.value)) {
            expanded = expand_aggregates(*m.value, scope_, out_, diags_);
            if (!expanded) return;
        }
        const Expr& e = expanded ? *expanded : *m.value;
        if (calls_any(e, {"throughput"})) {
            if (calls_any(e, kMarkingCalls)) {
                diags_.error(e.range, "a measure cannot mix `throughput(…)` with `tokens(…)` "
                                      "or `prob(…)`");
                return;
            }
            out.kind = net::Measure::Kind::Throughput;
            out.unit = "1/s";
            if (!linear(e, 1.0, out.terms)) return;
        } else if (calls_any(e, kMarkingCalls)) {
            out.kind = net::Measure::Kind::TimeAverage;
            PlaceResolver places = [&](const Expr& pe) { return place(pe); };
            auto code = compile_marking_expr(e, scope_, places, diags_, nets_);
            if (!code) return;
            out.expr = std::move(*code);
            const Call* c = std::get_if<Call>(&m.value->node);
            const bool mean = c && c->callee == "mean";
            if (c && (mean || c->callee == "sum") && !c->args.empty())
                c = std::get_if<Call>(&c->args[0].value->node);  // the measure of each element
            out.unit = c && c->callee == "tokens" ? "tokens" : "";
            out.fraction = c && c->callee == "prob" && (mean || !expanded);
        } else {
            diags_.error(e.range, "a measure must use `throughput(T)`, `tokens(P)` or "
                                  "`prob(COND)`");
            return;
        }
        out_.measures.push_back(std::move(out));
    }

private:
    const Scope& scope_;
    net::PetriNet& out_;
    Diagnostics& diags_;
    const NetScopes* nets_;

    bool linear(const Expr& e, double coef, std::vector<net::Measure::Term>& terms) {
        if (auto* c = std::get_if<Call>(&e.node); c && c->callee == "throughput") {
            if (c->args.size() != 1 || c->args[0].name || c->args[0].weight) {
                diags_.error(e.range, "`throughput` takes one transition");
                return false;
            }
            auto ids = transitions(*c->args[0].value);
            for (auto id : ids) terms.push_back({id, coef});
            return !ids.empty();
        }
        if (auto* u = std::get_if<Unary>(&e.node); u && u->op == Unary::Op::Neg)
            return linear(*u->operand, -coef, terms);
        if (auto* b = std::get_if<Binary>(&e.node)) {
            using Op = Binary::Op;
            bool lt = calls_any(*b->lhs, {"throughput"}), rt = calls_any(*b->rhs, {"throughput"});
            if ((b->op == Op::Add || b->op == Op::Sub) && lt && rt) {
                bool ok = linear(*b->lhs, coef, terms);
                return linear(*b->rhs, b->op == Op::Sub ? -coef : coef, terms) && ok;
            }
            if (b->op == Op::Mul && lt != rt) {
                auto k = constant(lt ? *b->rhs : *b->lhs, scope_, diags_, "a throughput factor");
                return k && linear(lt ? *b->lhs : *b->rhs, coef * *k, terms);
            }
            if (b->op == Op::Div && lt && !rt) {
                auto k = constant(*b->rhs, scope_, diags_, "a throughput divisor");
                if (k && *k == 0) {
                    diags_.error(b->rhs->range, "division by zero");
                    return false;
                }
                return k && linear(*b->lhs, coef / *k, terms);
            }
        }
        diags_.error(e.range, "a throughput measure must be a sum of constant multiples of "
                              "`throughput(T)`");
        return false;
    }

    /// `NET.T`, `NET.T[k]`, or an array `NET.T` (all its elements).
    std::string target_name(const Expr& e, bool& indexed, bool& ok) {
        ok = false;
        auto* ref = std::get_if<NameRef>(&e.node);
        if (!ref) {
            diags_.error(e.range, "expected an element name `NET.ELEMENT` or `NET.ELEMENT[k]`");
            return "";
        }
        // Every index (in the middle, `w[3].ready`, or at the end) is evaluated and written
        // into the name, which then names a generated or declared element.
        Scope idx(&scope_);
        idx.integer_division = true;
        auto index_text = [&](const Expr& ix) -> std::optional<std::string> {
            auto k = evaluate_integer(ix, idx, diags_, "an index");
            if (!k) return std::nullopt;
            return "[" + std::to_string(*k) + "]";
        };
        std::string name;
        for (std::size_t k = 0; k < ref->parts.size(); ++k) {
            name += (k == 0 ? "" : ".") + ref->parts[k];
            if (k < ref->part_indexes.size() && ref->part_indexes[k]) {
                auto text = index_text(*ref->part_indexes[k]);
                if (!text) return "";
                name += *text;
            }
        }
        indexed = ref->index != nullptr;
        if (ref->index) {
            auto text = index_text(*ref->index);
            if (!text) return "";
            name += *text;
        }
        ok = true;
        return name;
    }

    static bool is_element_of(const std::string& element, const std::string& array) {
        if (element.size() < array.size() + 3 || element.compare(0, array.size(), array) != 0 ||
            element[array.size()] != '[' || element.back() != ']')
            return false;
        for (std::size_t k = array.size() + 1; k + 1 < element.size(); ++k)
            if (!std::isdigit(static_cast<unsigned char>(element[k])) && element[k] != '-')
                return false;
        return true;
    }

    std::vector<net::TransitionId> transitions(const Expr& e) {
        bool indexed = false, ok = false;
        std::string name = target_name(e, indexed, ok);
        if (!ok) return {};
        if (auto id = out_.find_transition(name)) return {*id};
        std::vector<net::TransitionId> all;
        if (!indexed)
            for (uint32_t k = 0; k < out_.transitions.size(); ++k)
                if (is_element_of(out_.transitions[k].name, name)) all.push_back({k});
        if (!all.empty()) return all;
        if (out_.find_place(name))
            diags_.error(e.range, "`" + name + "` is a place; `throughput` needs a transition");
        else
            diags_.error(e.range, "unknown transition `" + name + "`" +
                                      did_you_mean(name, transition_names()));
        return {};
    }

    std::optional<net::PlaceId> place(const Expr& e) {
        bool indexed = false, ok = false;
        std::string name = target_name(e, indexed, ok);
        if (!ok) return std::nullopt;
        if (auto id = out_.find_place(name)) return id;
        if (out_.find_transition(name))
            diags_.error(e.range, "`" + name + "` is a transition; `tokens` needs a place");
        else if (!indexed && std::any_of(out_.places.begin(), out_.places.end(),
                                         [&](const net::Place& p) {
                                             return is_element_of(p.name, name);
                                         }))
            diags_.error(e.range, "place `" + name + "` is an array; write `" + name +
                                      "[INDEX]`");
        else
            diags_.error(e.range, "unknown place `" + name + "`" +
                                      did_you_mean(name, place_names()));
        return std::nullopt;
    }

    std::vector<std::string> transition_names() const {
        std::vector<std::string> out;
        for (const auto& t : out_.transitions) out.push_back(t.name);
        return out;
    }
    std::vector<std::string> place_names() const {
        std::vector<std::string> out;
        for (const auto& p : out_.places) out.push_back(p.name);
        return out;
    }
};

}  // namespace

std::optional<net::MarkingExpr> compile_marking_expr(const Expr& e, const Scope& scope,
                                                     const PlaceResolver& places,
                                                     Diagnostics& diags, const NetScopes* nets) {
    net::MarkingExpr out;
    if (!MarkingCompiler(scope, places, diags, nets).emit(e, out.code)) return std::nullopt;
    return out;
}

void lower_nets(const Ast& ast, const Resolved& resolved, net::PetriNet& out, Diagnostics& diags,
                NetScopes* scopes) {
    NetLowering lowering(ast, resolved, out, diags);
    lowering.run();
    if (scopes) lowering.take_scopes(*scopes);
}

void lower_measures(const Ast& ast, const Scope& scope, net::PetriNet& out, Diagnostics& diags,
                    const NetScopes* nets) {
    MeasureLowering lowering(scope, out, diags, nets);
    for (const Decl& d : ast.decls)
        if (auto* m = std::get_if<MeasureDecl>(&d)) lowering.measure(*m);
}

}  // namespace sgdnet::compiler
