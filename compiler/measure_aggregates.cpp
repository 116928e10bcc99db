// Array aggregates of measures: `sum(X)` and `mean(X)` over every element of an array named with
// `[*]` (`sum(throughput(w[*].compute))`, `mean(tokens(net.buf[*]))`), expanded into plain sums.
#include "compiler/measure_aggregates.hpp"

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "compiler/units.hpp"

namespace sgdnet::compiler {

namespace {

ExprPtr make(SourceRange range, auto node) {
    auto e = std::make_unique<Expr>();
    e->range = range;
    e->node = std::move(node);
    return e;
}

ExprPtr number(SourceRange range, double value) { return make(range, NumberLit{value, ""}); }

/// Copies expressions; with `k` set, every `[*]` becomes the index `k`.
struct Copier {
    std::optional<int64_t> k;

    ExprPtr sub(const ExprPtr& p) const { return p ? copy(*p) : nullptr; }

    ExprPtr copy(const Expr& e) const {
        return std::visit([&](const auto& n) { return node(e, n); }, e.node);
    }

    ExprPtr node(const Expr& e, const NumberLit& n) const { return make(e.range, n); }
    ExprPtr node(const Expr& e, const StringLit& s) const { return make(e.range, s); }
    ExprPtr node(const Expr& e, const BoolLit& b) const { return make(e.range, b); }
    ExprPtr node(const Expr& e, const NameRef& n) const {
        NameRef out;
        out.parts = n.parts;
        out.index = sub(n.index);
        for (const auto& p : n.part_indexes) out.part_indexes.push_back(sub(p));
        out.wildcard = n.wildcard;
        if (n.wildcard >= 0 && k) {
            ExprPtr index = number(e.range, static_cast<double>(*k));
            if (static_cast<std::size_t>(n.wildcard) + 1 == n.parts.size())
                out.index = std::move(index);
            else
                out.part_indexes[static_cast<std::size_t>(n.wildcard)] = std::move(index);
            out.wildcard = -1;
        }
        return make(e.range, std::move(out));
    }
    ExprPtr node(const Expr& e, const Unary& u) const {
        return make(e.range, Unary{u.op, sub(u.operand)});
    }
    ExprPtr node(const Expr& e, const Binary& b) const {
        return make(e.range, Binary{b.op, sub(b.lhs), sub(b.rhs)});
    }
    ExprPtr node(const Expr& e, const Conditional& c) const {
        return make(e.range, Conditional{sub(c.cond), sub(c.then_expr), sub(c.else_expr)});
    }
    ExprPtr node(const Expr& e, const Call& c) const {
        Call out{c.callee, c.callee_range, {}};
        for (const Arg& a : c.args) out.args.push_back(Arg{a.name, sub(a.weight), sub(a.value), a.range});
        return make(e.range, std::move(out));
    }
    ExprPtr node(const Expr& e, const ListLit& l) const {
        ListLit out;
        for (const auto& item : l.items) out.items.push_back(sub(item));
        return make(e.range, std::move(out));
    }
};

ExprPtr copy(const Expr& e, const std::optional<int64_t>& k) { return Copier{k}.copy(e); }

/// Calls `f` on every direct sub-expression of `e`.
template <class F>
void for_each_child(const Expr& e, F&& f) {
    auto visit = [&](const ExprPtr& p) {
        if (p) f(*p);
    };
    if (auto* n = std::get_if<NameRef>(&e.node)) {
        for (const auto& p : n->part_indexes) visit(p);
        visit(n->index);
    } else if (auto* u = std::get_if<Unary>(&e.node)) {
        visit(u->operand);
    } else if (auto* b = std::get_if<Binary>(&e.node)) {
        visit(b->lhs);
        visit(b->rhs);
    } else if (auto* c = std::get_if<Conditional>(&e.node)) {
        visit(c->cond);
        visit(c->then_expr);
        visit(c->else_expr);
    } else if (auto* call = std::get_if<Call>(&e.node)) {
        for (const Arg& a : call->args) {
            visit(a.weight);
            visit(a.value);
        }
    } else if (auto* l = std::get_if<ListLit>(&e.node)) {
        for (const auto& item : l->items) visit(item);
    }
}

bool is_aggregate(const Expr& e) {
    auto* c = std::get_if<Call>(&e.node);
    return c && (c->callee == "sum" || c->callee == "mean");
}

/// Every name with `[*]` in `e`, in source order.
void wildcard_refs(const Expr& e, std::vector<const Expr*>& out) {
    if (auto* n = std::get_if<NameRef>(&e.node); n && n->wildcard >= 0) out.push_back(&e);
    for_each_child(e, [&](const Expr& c) { wildcard_refs(c, out); });
}

/// The `[*]` name as written, e.g. `w[*].compute`.
std::string written(const NameRef& n) {
    std::string out;
    for (std::size_t k = 0; k < n.parts.size(); ++k) {
        out += (k == 0 ? "" : ".") + n.parts[k];
        if (n.wildcard == static_cast<int>(k)) out += "[*]";
        else if ((k < n.part_indexes.size() && n.part_indexes[k]) ||
                 (k + 1 == n.parts.size() && n.index))
            out += "[…]";
    }
    return out;
}

class Expander {
public:
    Expander(const Scope& scope, const net::PetriNet& net, Diagnostics& diags)
        : scope_(scope), diags_(diags) {
        for (const auto& p : net.places) names_.push_back(p.name);
        for (const auto& t : net.transitions) names_.push_back(t.name);
    }

    ExprPtr expand(const Expr& e) {
        if (is_aggregate(e)) return aggregate(e, std::get<Call>(e.node));
        if (auto* n = std::get_if<NameRef>(&e.node); n && n->wildcard >= 0) {
            diags_.error(e.range, "`" + written(*n) + "`: `[*]` (every element of an array) is "
                                  "only allowed inside `sum(…)` or `mean(…)` of a measure");
            return nullptr;
        }
        if (!has_aggregate(e)) return copy(e, std::nullopt);
        return rebuild(e);
    }

private:
    const Scope& scope_;
    Diagnostics& diags_;
    std::vector<std::string> names_;

    /// A copy of `e` around its expanded children; null when one of them failed (reported).
    ExprPtr rebuild(const Expr& e) {
        bool ok = true;
        auto sub = [&](const ExprPtr& p) -> ExprPtr {
            if (!p) return nullptr;
            ExprPtr out = expand(*p);
            ok = ok && out != nullptr;
            return out;
        };
        ExprPtr out;
        if (auto* u = std::get_if<Unary>(&e.node)) {
            out = make(e.range, Unary{u->op, sub(u->operand)});
        } else if (auto* b = std::get_if<Binary>(&e.node)) {
            ExprPtr lhs = sub(b->lhs);
            out = make(e.range, Binary{b->op, std::move(lhs), sub(b->rhs)});
        } else if (auto* c = std::get_if<Conditional>(&e.node)) {
            ExprPtr cond = sub(c->cond), then_expr = sub(c->then_expr);
            out = make(e.range, Conditional{std::move(cond), std::move(then_expr),
                                            sub(c->else_expr)});
        } else if (auto* call = std::get_if<Call>(&e.node)) {
            Call copied{call->callee, call->callee_range, {}};
            for (const Arg& a : call->args) {
                ExprPtr weight = sub(a.weight);
                copied.args.push_back(Arg{a.name, std::move(weight), sub(a.value), a.range});
            }
            out = make(e.range, std::move(copied));
        } else {
            // A name's indexes or a list's items: `[*]` or `sum` there is misplaced.
            for_each_child(e, [&](const Expr& part) { ok = expand(part) != nullptr && ok; });
            out = copy(e, std::nullopt);
        }
        return ok ? std::move(out) : nullptr;
    }

    ExprPtr aggregate(const Expr& e, const Call& c) {
        const std::string what = "`" + c.callee + "(…)`";
        if (c.args.size() != 1 || c.args[0].name || c.args[0].weight) {
            diags_.error(e.range, what + " takes one expression, e.g. `" + c.callee +
                                      "(throughput(w[*].compute))`");
            return nullptr;
        }
        const Expr& body = *c.args[0].value;
        bool nested = false;
        for_each_child(body, [&](const Expr& part) {
            nested = nested || has_aggregate_call(part);
        });
        if (is_aggregate(body) || nested) {
            diags_.error(e.range, what + " cannot contain another `sum(…)` or `mean(…)`");
            return nullptr;
        }
        std::vector<const Expr*> refs;
        wildcard_refs(body, refs);
        if (refs.empty()) {
            diags_.error(e.range, what + " needs an array element written with `[*]`, e.g. `" +
                                      c.callee + "(throughput(w[*].compute))`");
            return nullptr;
        }
        std::optional<std::vector<int64_t>> first;
        for (const Expr* r : refs) {
            auto ks = indices(*r);
            if (!ks) return nullptr;
            if (first && *ks != *first) {
                diags_.error(r->range, "`" + written(std::get<NameRef>(r->node)) +
                                           "` has other elements than `" +
                                           written(std::get<NameRef>(refs[0]->node)) +
                                           "` in the same " + what);
                return nullptr;
            }
            if (!first) first = std::move(ks);
        }
        ExprPtr total;
        for (int64_t k : *first) {
            ExprPtr term = copy(body, k);
            total = total ? make(e.range, Binary{Binary::Op::Add, std::move(total), std::move(term)})
                          : std::move(term);
        }
        if (c.callee == "mean")
            total = make(e.range, Binary{Binary::Op::Div, std::move(total),
                                         number(e.range, static_cast<double>(first->size()))});
        return total;
    }

    static bool has_aggregate_call(const Expr& e) {
        if (is_aggregate(e)) return true;
        bool found = false;
        for_each_child(e, [&](const Expr& c) { found = found || has_aggregate_call(c); });
        return found;
    }

    /// The indices of the array that the `[*]` of `r` stands for, increasing.
    std::optional<std::vector<int64_t>> indices(const Expr& r) {
        const auto& n = std::get<NameRef>(r.node);
        Scope idx(&scope_);
        idx.integer_division = true;
        std::string array;
        for (int k = 0; k <= n.wildcard; ++k) {
            array += (k == 0 ? "" : ".") + n.parts[static_cast<std::size_t>(k)];
            const auto uk = static_cast<std::size_t>(k);
            if (k < n.wildcard && uk < n.part_indexes.size() && n.part_indexes[uk]) {
                auto v = evaluate_integer(*n.part_indexes[uk], idx, diags_, "an index");
                if (!v) return std::nullopt;
                array += "[" + std::to_string(*v) + "]";
            }
        }
        std::set<int64_t> found;
        bool plain = false, member = false;
        for (const std::string& name : names_) {
            if (name.compare(0, array.size(), array) != 0) continue;
            if (name.size() == array.size()) plain = true;
            if (name.size() > array.size() && name[array.size()] == '.') member = true;
            if (auto k = index_after(name, array.size())) found.insert(*k);
        }
        if (!found.empty()) return std::vector<int64_t>(found.begin(), found.end());
        if (plain || member) {
            diags_.error(r.range, "`" + array + "` is not an array; `[*]` needs an array of " +
                                      "places, transitions, workers or servers");
        } else {
            diags_.error(r.range, "unknown array `" + array + "` in `" + written(n) + "`" +
                                      did_you_mean(array, array_names()));
        }
        return std::nullopt;
    }

    /// `k` when `name` continues at `at` with `[k]` followed by the end or a `.`.
    static std::optional<int64_t> index_after(const std::string& name, std::size_t at) {
        if (at >= name.size() || name[at] != '[') return std::nullopt;
        const std::size_t close = name.find(']', at);
        if (close == std::string::npos || close == at + 1) return std::nullopt;
        if (close + 1 != name.size() && name[close + 1] != '.') return std::nullopt;
        int64_t k = 0;
        bool negative = false;
        for (std::size_t p = at + 1; p < close; ++p) {
            if (p == at + 1 && name[p] == '-') {
                negative = true;
                continue;
            }
            if (!std::isdigit(static_cast<unsigned char>(name[p]))) return std::nullopt;
            k = k * 10 + (name[p] - '0');
        }
        return negative ? -k : k;
    }

    /// Every array of the net (element names up to their first `[`).
    std::vector<std::string> array_names() const {
        std::set<std::string> out;
        for (const std::string& name : names_)
            if (auto open = name.find('['); open != std::string::npos)
                out.insert(name.substr(0, open));
        return {out.begin(), out.end()};
    }
};

}  // namespace

ExprPtr clone(const Expr& e) { return copy(e, std::nullopt); }

bool has_aggregate(const Expr& e) {
    if (is_aggregate(e)) return true;
    if (auto* n = std::get_if<NameRef>(&e.node); n && n->wildcard >= 0) return true;
    bool found = false;
    for_each_child(e, [&](const Expr& c) { found = found || has_aggregate(c); });
    return found;
}

ExprPtr expand_aggregates(const Expr& e, const Scope& scope, const net::PetriNet& net,
                          Diagnostics& diags) {
    return Expander(scope, net, diags).expand(e);
}

}  // namespace sgdnet::compiler
