// Constant evaluation of expressions (docs/language.md §3–§4): values, scopes, dimension checks and
// construction of delay distributions in canonical units.
#include "compiler/eval.hpp"

#include "profile/profile_import.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>


namespace sgdnet::compiler {

// ---------------------------------------------------------------------------------------------
// Scope

Scope::Scope(const Scope* parent)
    : base_dir(parent ? parent->base_dir : std::string()),
      integer_division(parent ? parent->integer_division : false),
      parent_(parent) {}

void Scope::define(std::string name, Value value, SourceRange where) {
    entries_[std::move(name)] = Entry{std::move(value), where};
}

void Scope::define_poisoned(std::string name, SourceRange where) {
    entries_[std::move(name)] = Entry{std::nullopt, where};
}

Scope Scope::with_index(const std::string& var, int64_t index) const {
    Scope child(this);
    child.define(var, Quantity{static_cast<double>(index), Dim::none()});
    return child;
}

const std::optional<Value>* Scope::find(std::string_view name) const {
    for (const Scope* s = this; s; s = s->parent_) {
        auto it = s->entries_.find(name);
        if (it != s->entries_.end()) return &it->second.value;
    }
    return nullptr;
}

SourceRange Scope::where(std::string_view name) const {
    for (const Scope* s = this; s; s = s->parent_) {
        auto it = s->entries_.find(name);
        if (it != s->entries_.end()) return it->second.where;
    }
    return {};
}

std::vector<std::string> Scope::names() const {
    std::set<std::string> all;
    for (const Scope* s = this; s; s = s->parent_)
        for (const auto& [n, e] : s->entries_) all.insert(n);
    return {all.begin(), all.end()};
}

std::string kind_name(const Value& v) {
    struct {
        std::string operator()(const Quantity& q) const { return with_article(q.dim); }
        std::string operator()(bool) const { return "a boolean"; }
        std::string operator()(const std::string&) const { return "a string"; }
        std::string operator()(const net::Distribution&) const { return "a distribution"; }
        std::string operator()(const std::shared_ptr<const LayerTable>&) const {
            return "a layer table";
        }
    } visitor;
    return std::visit(visitor, v);
}

namespace {

const std::vector<std::string>& function_names() {
    static const std::vector<std::string> names{
        "min",     "max",       "abs",   "floor",   "ceil",     "round",   "sqrt",
        "log",     "exp",       "pow",   "det",     "uniform",  "normal",  "lognormal",
        "gamma",   "erlang",    "weibull", "empirical", "mixture", "tokens", "throughput",
        "prob",    "profile",   "ps_ssp", "sum",     "mean"};
    return names;
}

bool is_integral(double v) { return std::isfinite(v) && std::abs(v - std::round(v)) <= 1e-9; }

// Floored modulo: the result has the sign of the divisor, so (j - 1) % K wraps to K - 1.
double floored_mod(double a, double b) {
    double r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

std::string value_text(const Quantity& q) { return format_quantity(q); }

/// "; did you mean 5 ms?" when a bare number stands where `expected` is wanted.
std::string unit_hint(double v, Dim expected) {
    std::string u = suggested_unit(expected);
    if (u.empty()) return "";
    return "; did you mean " + format_number(v) + " " + u + "?";
}

class Evaluator {
public:
    Evaluator(const Scope& scope, Diagnostics& diags) : scope_(scope), diags_(diags) {}

    std::optional<Value> eval(const Expr& e) {
        return std::visit([&](const auto& n) { return eval_node(e, n); }, e.node);
    }

    std::optional<Quantity> quantity(const Expr& e, const std::string& context) {
        auto v = eval(e);
        if (!v) return std::nullopt;
        if (auto* q = std::get_if<Quantity>(&*v)) return *q;
        error(e.range, context + " must be a number, got " + kind_name(*v));
        return std::nullopt;
    }

    std::optional<double> quantity_of_dim(const Expr& e, Dim expected, const std::string& what) {
        auto v = eval(e);
        if (!v) return std::nullopt;
        auto* q = std::get_if<Quantity>(&*v);
        if (!q) {
            error(e.range, what + "expected " + with_article(expected) + ", got " + kind_name(*v));
            return std::nullopt;
        }
        if (q->dim != expected) {
            std::string msg = what + "expected " + with_article(expected) + ", got ";
            if (q->dim.dimensionless())
                msg += format_number(q->value) + unit_hint(q->value, expected);
            else
                msg += with_article(q->dim) + " (" + value_text(*q) + ")";
            if (expected == Dim::seconds() / Dim::bytes() && q->dim == Dim::seconds())
                msg += "; a time per byte is written as a ratio, e.g. `0.6 ns / 1 B`";
            error(e.range, msg);
            return std::nullopt;
        }
        return q->value;
    }

    std::optional<bool> boolean(const Expr& e) {
        auto v = eval(e);
        if (!v) return std::nullopt;
        if (auto* b = std::get_if<bool>(&*v)) return *b;
        error(e.range, "expected a boolean (a comparison, `true` or `false`), got " + kind_name(*v));
        return std::nullopt;
    }

    std::optional<net::Distribution> distribution(const Expr& e) {
        auto v = eval(e);
        if (!v) return std::nullopt;
        return to_distribution(e, *v);
    }

    std::optional<net::Distribution> to_distribution(const Expr& e, const Value& v) {
        if (auto* d = std::get_if<net::Distribution>(&v)) return *d;
        if (auto* q = std::get_if<Quantity>(&v)) {
            if (q->dim == Dim::seconds()) {
                if (q->value < 0 || !std::isfinite(q->value)) {
                    error(e.range, "a delay must be a finite time >= 0, got " + value_text(*q));
                    return std::nullopt;
                }
                return net::Distribution{net::Det{q->value}};
            }
            std::string msg = "expected a distribution or a time, got ";
            if (q->dim.dimensionless())
                msg += format_number(q->value) + unit_hint(q->value, Dim::seconds());
            else
                msg += with_article(q->dim) + " (" + value_text(*q) + ")";
            error(e.range, msg);
            return std::nullopt;
        }
        error(e.range, "expected a distribution or a time, got " + kind_name(v));
        return std::nullopt;
    }

    void error(SourceRange r, std::string msg) { diags_.error(r, std::move(msg)); }

private:
    const Scope& scope_;
    Diagnostics& diags_;
    const Expr* rate_numerator_ = nullptr;  // the left side of the `/` being evaluated

    // --- leaves ---------------------------------------------------------------------------

    std::optional<Value> eval_node(const Expr& e, const NumberLit& n) {
        auto q = quantity_of(n.value, n.unit);
        if (!q) {
            std::vector<std::string> names;
            for (auto u : unit_names()) names.emplace_back(u);
            error(e.range, "unknown unit `" + n.unit + "`" + did_you_mean(n.unit, names));
            return std::nullopt;
        }
        if (&e != rate_numerator_) warn_bits(e, n);
        return Value{*q};
    }

    /// `440 Mb` is a size in bits: almost always meant as megabytes. Not in `8 Mb / 1 s` (the
    /// numerator of a division, a rate) nor in `Mbps` (a rate unit).
    void warn_bits(const Expr& e, const NumberLit& n) {
        static const std::map<std::string, std::pair<std::string, std::string>> bits{
            {"b", {"", "B"}},      {"Kb", {"kilo", "KB"}}, {"Mb", {"mega", "MB"}},
            {"Gb", {"giga", "GB"}}, {"Tb", {"tera", "TB"}}};
        auto it = bits.find(n.unit);
        if (it == bits.end()) return;
        const auto& [prefix, bytes] = it->second;
        diags_.warning(e.range, format_number(n.value) + " " + n.unit + " is " + prefix +
                                    "bits (" + format_number(n.value / 8) + " " + bytes +
                                    "); write " + bytes + " for " + prefix + "bytes");
    }
    std::optional<Value> eval_node(const Expr&, const StringLit& s) { return Value{s.value}; }
    std::optional<Value> eval_node(const Expr&, const BoolLit& b) { return Value{b.value}; }
    std::optional<Value> eval_node(const Expr& e, const ListLit&) {
        error(e.range, "a list `[…]` is only allowed as the argument of `empirical`");
        return std::nullopt;
    }

    std::optional<Value> eval_node(const Expr& e, const NameRef& n) {
        const std::string& head = n.parts.front();
        if (n.wildcard >= 0) {
            error(e.range, "`[*]` (every element of an array) is only allowed inside `sum(…)` or "
                           "`mean(…)` of a measure");
            return std::nullopt;
        }
        if (n.indexed_inside()) {
            error(e.range, "`" + head + "[…]." + n.parts[1] +
                               "` names a generated element; only a measure can use it "
                               "(`tokens(…)`, `throughput(…)`, `prob(…)`)");
            return std::nullopt;
        }
        if (n.parts.size() == 1 && !n.index && (head == "true" || head == "false"))
            return Value{head == "true"};
        const std::optional<Value>* found = scope_.find(head);
        if (!found) {
            error(e.range, "unknown name `" + head + "`" + did_you_mean(head, scope_.names()));
            return std::nullopt;
        }
        if (!*found) return std::nullopt;  // poisoned: already reported
        const Value& v = **found;
        if (n.parts.size() == 1) {
            if (n.index) {
                error(e.range, "`" + head + "` is " + kind_name(v) + ", it cannot be indexed");
                return std::nullopt;
            }
            return v;
        }
        auto* table = std::get_if<std::shared_ptr<const LayerTable>>(&v);
        if (!table || n.parts.size() != 2 || n.index) {
            error(e.range, "`" + head + "` is " + kind_name(v) + ", it has no member `" +
                               n.parts[1] + "`");
            return std::nullopt;
        }
        return table_member(e, head, **table, n.parts[1]);
    }

    /// `NAME.compute`, `NAME.update` (distributions), `NAME.message_overhead` (a time),
    /// `NAME.comm_cpu` (a time per size), `NAME.cores`, `NAME.interference`,
    /// `NAME.oversubscription` (numbers), `NAME.buffers` (a size), `NAME.ddp_overhead` and
    /// `NAME.ps_worker_overhead` (times), `NAME.server_update` (a distribution) and
    /// `NAME.aggregate` (a time) of a layer table.
    std::optional<Value> table_member(const Expr& e, const std::string& head, const LayerTable& t,
                                      const std::string& member) {
        static const std::vector<std::string> members{
            "compute", "update", "message_overhead", "comm_cpu", "cores", "interference",
            "oversubscription", "buffers", "ddp_overhead", "ps_worker_overhead",
            "server_update", "aggregate"};
        if (std::find(members.begin(), members.end(), member) == members.end()) {
            error(e.range, "a layer table has the members `compute`, `update`, "
                           "`message_overhead`, `comm_cpu`, `cores`, `interference`, "
                           "`oversubscription`, `buffers`, `ddp_overhead`, `ps_worker_overhead`, "
                           "`server_update` and `aggregate` only, not `" +
                               member + "`" + did_you_mean(member, members));
            return std::nullopt;
        }
        if (member == "server_update") {
            if (t.server_update) return Value{*t.server_update};
            missing_record(e, head, t, member, "server_update_s");
            return std::nullopt;
        }
        if (member == "aggregate")
            return recorded_member(e, head, t, member, t.aggregate_s, Dim::seconds(),
                                   "aggregate_s");
        if (member == "buffers")
            return recorded_member(e, head, t, member, t.buffer_bytes, Dim::bytes(),
                                   "buffer_bytes");
        if (member == "ddp_overhead")
            return recorded_member(e, head, t, member, t.ddp_overhead_s, Dim::seconds(),
                                   "ddp_overhead_s");
        if (member == "ps_worker_overhead")
            return recorded_member(e, head, t, member, t.ps_worker_overhead_s, Dim::seconds(),
                                   "ps_worker_overhead_s");
        const bool distribution = member == "compute" || member == "update";
        const bool defined = distribution ? (member == "compute" ? t.compute : t.update).has_value()
                                          : t.comm.has_value();
        if (!defined && t.profile_file.empty()) {
            error(e.range, "`" + head + "." + member +
                               "` is only defined for a layer table loaded with profile(…)");
            return std::nullopt;
        }
        if (!defined) {
            error(e.range, "`" + head + "." + member + "` needs the `comm_probe` object of the "
                               "profile, and " + t.profile_file + " has none (profile_model.py "
                               "writes it unless run with --no-comm-probe)");
            return std::nullopt;
        }
        if (distribution) return Value{*(member == "compute" ? t.compute : t.update)};
        if (member == "message_overhead")
            return Value{Quantity{t.comm->message_overhead_s, Dim::seconds()}};
        if (member == "comm_cpu")
            return Value{Quantity{t.comm->comm_cpu_s_per_byte, Dim::seconds() / Dim::bytes()}};
        if (member == "cores") return Value{Quantity{t.comm->cores, Dim::none()}};
        const auto& measured =
            member == "interference" ? t.comm->interference : t.comm->oversubscription;
        if (measured) return Value{Quantity{*measured, Dim::none()}};
        const char* why = member == "interference"
                              ? " (profile_model.py measures it where the machine has two CPUs or "
                                "more)"
                              : " (profiles taken before profile_model.py's crowded probe have "
                                "none)";
        error(e.range, "`" + head + "." + member + "` needs `comm_probe." + member + "`, and " +
                           t.profile_file + " has none" + why);
        return std::nullopt;
    }

    /// `NAME.buffers`, `NAME.ddp_overhead`, `NAME.ps_worker_overhead`: the profile's
    /// `buffer_bytes`, `ddp_overhead_s`, `ps_worker_overhead_s`.
    std::optional<Value> recorded_member(const Expr& e, const std::string& head,
                                         const LayerTable& t, const std::string& member,
                                         const std::optional<double>& value, Dim dim,
                                         const std::string& field) {
        if (value) return Value{Quantity{*value, dim}};
        missing_record(e, head, t, member, field);
        return std::nullopt;
    }

    /// The error of a member whose record the profile lacks.
    void missing_record(const Expr& e, const std::string& head, const LayerTable& t,
                        const std::string& member, const std::string& field) {
        error(e.range, "`" + head + "." + member + "` needs the `" + field + "` of the profile" +
                           (t.profile_file.empty()
                                ? std::string(": only a layer table loaded with profile(…) has it")
                                : ", and " + t.profile_file +
                                      " has none (profile_model.py records it)"));
    }

    // --- operators ------------------------------------------------------------------------

    std::optional<Value> eval_node(const Expr& e, const Unary& u) {
        auto v = eval(*u.operand);
        if (!v) return std::nullopt;
        if (u.op == Unary::Op::Neg) {
            if (auto* q = std::get_if<Quantity>(&*v)) return Value{Quantity{-q->value, q->dim}};
            error(e.range, "cannot negate " + kind_name(*v));
            return std::nullopt;
        }
        if (auto* b = std::get_if<bool>(&*v)) return Value{!*b};
        error(e.range, "`!` needs a boolean, got " + kind_name(*v));
        return std::nullopt;
    }

    std::optional<Value> eval_node(const Expr&, const Conditional& c) {
        auto cond = boolean(*c.cond);
        if (!cond) return std::nullopt;
        return eval(*(*cond ? c.then_expr : c.else_expr));
    }

    static bool is_literal_number(const Expr& e) {
        return std::holds_alternative<NumberLit>(e.node) &&
               std::get<NumberLit>(e.node).unit.empty();
    }

    std::optional<Value> eval_node(const Expr& e, const Binary& b) {
        using Op = Binary::Op;
        if (b.op == Op::Div) rate_numerator_ = b.lhs.get();
        auto lv = eval(*b.lhs);
        rate_numerator_ = nullptr;
        auto rv = eval(*b.rhs);
        if (!lv || !rv) return std::nullopt;

        if (b.op == Op::And || b.op == Op::Or) {
            auto* l = std::get_if<bool>(&*lv);
            auto* r = std::get_if<bool>(&*rv);
            if (!l || !r) {
                error(e.range, std::string("`") + to_string(b.op) + "` needs booleans, got " +
                                   kind_name(l ? *rv : *lv));
                return std::nullopt;
            }
            return Value{b.op == Op::And ? (*l && *r) : (*l || *r)};
        }

        bool ld = std::holds_alternative<net::Distribution>(*lv);
        bool rd = std::holds_alternative<net::Distribution>(*rv);
        if (ld || rd) return distribution_arith(e, b, *lv, *rv);

        if (b.op == Op::Eq || b.op == Op::Ne) {
            if (auto* l = std::get_if<bool>(&*lv); l && std::holds_alternative<bool>(*rv))
                return Value{(*l == std::get<bool>(*rv)) == (b.op == Op::Eq)};
            if (auto* l = std::get_if<std::string>(&*lv);
                l && std::holds_alternative<std::string>(*rv))
                return Value{(*l == std::get<std::string>(*rv)) == (b.op == Op::Eq)};
        }

        auto* l = std::get_if<Quantity>(&*lv);
        auto* r = std::get_if<Quantity>(&*rv);
        if (!l || !r) {
            error(e.range, std::string("`") + to_string(b.op) + "` cannot combine " +
                               kind_name(*lv) + " and " + kind_name(*rv));
            return std::nullopt;
        }
        switch (b.op) {
            case Op::Add:
            case Op::Sub:
            case Op::Mod: {
                if (l->dim != r->dim) {
                    std::string msg = std::string("`") + to_string(b.op) + "` needs operands of " +
                                      "the same dimension, got " + with_article(l->dim) +
                                      " and " + with_article(r->dim);
                    if (l->dim.dimensionless() && is_literal_number(*b.lhs))
                        msg += unit_hint(l->value, r->dim);
                    else if (r->dim.dimensionless() && is_literal_number(*b.rhs))
                        msg += unit_hint(r->value, l->dim);
                    error(e.range, msg);
                    return std::nullopt;
                }
                if (b.op == Op::Add) return Value{Quantity{l->value + r->value, l->dim}};
                if (b.op == Op::Sub) return Value{Quantity{l->value - r->value, l->dim}};
                if (r->value == 0) {
                    error(b.rhs->range, "`%` by zero");
                    return std::nullopt;
                }
                return Value{Quantity{floored_mod(l->value, r->value), l->dim}};
            }
            case Op::Mul: return Value{Quantity{l->value * r->value, l->dim * r->dim}};
            case Op::Div: {
                if (r->value == 0) {
                    error(b.rhs->range, "division by zero");
                    return std::nullopt;
                }
                double v = l->value / r->value;
                if (scope_.integer_division && l->dim.dimensionless() &&
                    r->dim.dimensionless() && is_integral(l->value) && is_integral(r->value))
                    v = std::floor(std::round(l->value) / std::round(r->value));
                return Value{Quantity{v, l->dim / r->dim}};
            }
            case Op::Pow: return power(e, *b.rhs, *l, *r);
            default: break;
        }
        // Comparisons. A literal 0 compares with any dimension (`x > 0`).
        Dim dim = l->dim;
        if (l->dim != r->dim) {
            bool zero_ok = (l->value == 0 && l->dim.dimensionless()) ||
                           (r->value == 0 && r->dim.dimensionless());
            if (!zero_ok) {
                std::string msg = std::string("`") + to_string(b.op) +
                                  "` compares values of different dimensions: " +
                                  with_article(l->dim) + " and " + with_article(r->dim);
                if (l->dim.dimensionless() && is_literal_number(*b.lhs))
                    msg += unit_hint(l->value, r->dim);
                else if (r->dim.dimensionless() && is_literal_number(*b.rhs))
                    msg += unit_hint(r->value, l->dim);
                error(e.range, msg);
                return std::nullopt;
            }
        }
        (void)dim;
        double a = l->value, c = r->value;
        switch (b.op) {
            case Op::Eq: return Value{a == c};
            case Op::Ne: return Value{a != c};
            case Op::Lt: return Value{a < c};
            case Op::Le: return Value{a <= c};
            case Op::Gt: return Value{a > c};
            case Op::Ge: return Value{a >= c};
            default: break;
        }
        error(e.range, "internal: unhandled operator");
        return std::nullopt;
    }

    std::optional<Value> power(const Expr& e, const Expr& exponent_expr, Quantity base,
                               Quantity exponent) {
        if (!exponent.dim.dimensionless()) {
            error(exponent_expr.range,
                  "an exponent must be dimensionless, got " + with_article(exponent.dim));
            return std::nullopt;
        }
        if (!base.dim.dimensionless()) {
            if (!is_integral(exponent.value) || std::abs(exponent.value) > 64) {
                error(exponent_expr.range, "raising " + with_article(base.dim) +
                                               " to a power needs an integer exponent, got " +
                                               format_number(exponent.value));
                return std::nullopt;
            }
            int k = static_cast<int>(std::round(exponent.value));
            return Value{Quantity{std::pow(base.value, k), base.dim.pow(k)}};
        }
        double v = std::pow(base.value, exponent.value);
        if (std::isnan(v)) {
            error(e.range, "the power " + format_number(base.value) + " ^ " +
                               format_number(exponent.value) + " is not a real number");
            return std::nullopt;
        }
        return Value{Quantity{v, Dim::none()}};
    }

    std::optional<Value> distribution_arith(const Expr& e, const Binary& b, const Value& lv,
                                            const Value& rv) {
        using Op = Binary::Op;
        auto* ld = std::get_if<net::Distribution>(&lv);
        auto* rd = std::get_if<net::Distribution>(&rv);
        auto* lq = std::get_if<Quantity>(&lv);
        auto* rq = std::get_if<Quantity>(&rv);
        if (b.op == Op::Add) {
            if (ld && rd) return Value{sum(*ld, *rd)};
            const net::Distribution& d = ld ? *ld : *rd;
            const Quantity* q = ld ? rq : lq;
            const Expr& qe = ld ? *b.rhs : *b.lhs;
            if (!q || q->dim != Dim::seconds()) {
                std::string msg = "a distribution can only be shifted by a time, got ";
                if (q && q->dim.dimensionless())
                    msg += format_number(q->value) + unit_hint(q->value, Dim::seconds());
                else
                    msg += kind_name(ld ? rv : lv);
                error(qe.range, msg);
                return std::nullopt;
            }
            if (q->value < 0) {
                error(qe.range, "a distribution shift must be >= 0, got " + value_text(*q));
                return std::nullopt;
            }
            return Value{shift(d, q->value)};
        }
        if (b.op == Op::Mul || (b.op == Op::Div && ld)) {
            if (ld && rd) {
                error(e.range, "two distributions can be added (a sum of independent samples) "
                               "but not multiplied or divided");
                return std::nullopt;
            }
            const net::Distribution& d = ld ? *ld : *rd;
            const Quantity* q = ld ? rq : lq;
            const Expr& qe = ld ? *b.rhs : *b.lhs;
            if (!q || !q->dim.dimensionless()) {
                error(qe.range, "a distribution can only be scaled by a dimensionless factor, got " +
                                    kind_name(ld ? rv : lv));
                return std::nullopt;
            }
            if (!(q->value > 0) || !std::isfinite(q->value)) {
                error(qe.range, std::string("a distribution ") +
                                    (b.op == Op::Div ? "divisor" : "scale factor") +
                                    " must be > 0, got " + format_number(q->value));
                return std::nullopt;
            }
            return Value{scale(d, b.op == Op::Div ? 1.0 / q->value : q->value)};
        }
        error(e.range, std::string("`") + to_string(b.op) + "` is not defined for " +
                           kind_name(lv) + " and " + kind_name(rv) +
                           " (distributions support D * X, D / X, D + T and D1 + D2)");
        return std::nullopt;
    }

    static net::Distribution scale(const net::Distribution& d, double f) {
        if (auto* s = std::get_if<net::Scaled>(&d.v))
            return net::Distribution{net::Scaled{s->base, s->factor * f}};
        return net::Distribution{net::Scaled{{d}, f}};
    }
    static net::Distribution shift(const net::Distribution& d, double t) {
        if (auto* s = std::get_if<net::Shifted>(&d.v))
            return net::Distribution{net::Shifted{s->base, s->offset_s + t}};
        return net::Distribution{net::Shifted{{d}, t}};
    }
    static net::Distribution sum(const net::Distribution& a, const net::Distribution& b) {
        net::Sum s;
        for (const auto* d : {&a, &b}) {
            if (auto* inner = std::get_if<net::Sum>(&d->v))
                s.parts.insert(s.parts.end(), inner->parts.begin(), inner->parts.end());
            else
                s.parts.push_back(*d);
        }
        return net::Distribution{std::move(s)};
    }

    // --- calls ----------------------------------------------------------------------------

    std::optional<Value> eval_node(const Expr& e, const Call& c) {
        const std::string& f = c.callee;
        if (f == "min" || f == "max" || f == "abs" || f == "floor" || f == "ceil" ||
            f == "round" || f == "sqrt" || f == "log" || f == "pow" ||
            (f == "exp" && is_math_exp(c)))
            return math(e, c);
        if (f == "det" || f == "exp" || f == "uniform" || f == "normal" || f == "lognormal" ||
            f == "gamma" || f == "erlang" || f == "weibull" || f == "empirical" ||
            f == "mixture") {
            auto d = make_distribution(e, c);
            if (!d) return std::nullopt;
            return Value{std::move(*d)};
        }
        if (f == "sum" || f == "mean") {
            error(e.range, "`" + f + "(…)` over an array `[*]` is only allowed in measures");
            return std::nullopt;
        }
        if (f == "tokens" || f == "throughput" || f == "prob") {
            error(e.range, "`" + f + "(…)` depends on the marking; it is only allowed in " +
                               (f == "tokens" ? "`speed` and in measures" : "measures"));
            return std::nullopt;
        }
        if (f == "profile") {
            error(e.range, "`profile(…)` is only allowed as `layers NAME = profile(\"file\");`");
            return std::nullopt;
        }
        if (f == "ps_ssp") {
            error(e.range, "`ps_ssp(…)` is a sync scheme; it is only allowed as `sync = …`");
            return std::nullopt;
        }
        error(c.callee_range, "unknown function `" + f + "`" + did_you_mean(f, function_names()));
        return std::nullopt;
    }

    static bool is_math_exp(const Call& c) {
        return c.args.size() == 1 && !c.args[0].name && !c.args[0].weight;
    }

    bool positional_only(const Call& c, std::size_t min_args, std::size_t max_args) {
        for (const Arg& a : c.args) {
            if (a.name || a.weight) {
                error(a.range, "`" + c.callee + "` takes positional arguments only");
                return false;
            }
        }
        if (c.args.size() < min_args || c.args.size() > max_args) {
            std::string n = min_args == max_args ? std::to_string(min_args)
                            : max_args == SIZE_MAX ? "at least " + std::to_string(min_args)
                                                   : std::to_string(min_args) + " or " +
                                                         std::to_string(max_args);
            error(c.callee_range, "`" + c.callee + "` takes " + n + " argument" +
                                      (min_args == 1 && max_args == 1 ? "" : "s") + ", got " +
                                      std::to_string(c.args.size()));
            return false;
        }
        return true;
    }

    std::optional<Value> math(const Expr& e, const Call& c) {
        const std::string& f = c.callee;
        bool variadic = f == "min" || f == "max";
        std::size_t n = variadic ? 1 : (f == "pow" ? 2 : 1);
        if (!positional_only(c, n, variadic ? SIZE_MAX : n)) return std::nullopt;
        std::vector<Quantity> xs;
        bool ok = true;
        for (const Arg& a : c.args) {
            auto q = quantity(*a.value, "an argument of `" + f + "`");
            if (q) xs.push_back(*q); else ok = false;
        }
        if (!ok) return std::nullopt;
        if (variadic) {
            Quantity best = xs[0];
            for (std::size_t k = 1; k < xs.size(); ++k) {
                if (xs[k].dim != best.dim) {
                    error(c.args[k].range, "`" + f + "` needs arguments of one dimension, got " +
                                               with_article(best.dim) + " and " +
                                               with_article(xs[k].dim));
                    return std::nullopt;
                }
                if (f == "min" ? xs[k].value < best.value : xs[k].value > best.value)
                    best = xs[k];
            }
            return Value{best};
        }
        Quantity x = xs[0];
        if (f == "abs") return Value{Quantity{std::abs(x.value), x.dim}};
        if (f == "floor") return Value{Quantity{std::floor(x.value), x.dim}};
        if (f == "ceil") return Value{Quantity{std::ceil(x.value), x.dim}};
        if (f == "round") return Value{Quantity{std::round(x.value), x.dim}};
        if (f == "pow") return power(e, *c.args[1].value, xs[0], xs[1]);
        if (f == "sqrt") {
            if (x.dim.time % 2 != 0 || x.dim.size % 2 != 0) {
                error(e.range, "the square root of " + with_article(x.dim) + " has no dimension");
                return std::nullopt;
            }
            if (x.value < 0) {
                error(e.range, "sqrt of a negative number (" + format_quantity(x) + ")");
                return std::nullopt;
            }
            return Value{Quantity{std::sqrt(x.value), Dim{x.dim.time / 2, x.dim.size / 2}}};
        }
        if (!x.dim.dimensionless()) {
            std::string msg = "`" + f + "` needs a dimensionless argument, got " +
                              with_article(x.dim);
            if (f == "exp" && x.dim == Dim::seconds())
                msg += "; for the exponential distribution write exp(mean = " +
                       format_quantity(x) + ")";
            error(c.args[0].range, msg);
            return std::nullopt;
        }
        if (f == "log") {
            if (!(x.value > 0)) {
                error(e.range, "log of a number <= 0 (" + format_number(x.value) + ")");
                return std::nullopt;
            }
            return Value{Quantity{std::log(x.value), Dim::none()}};
        }
        return Value{Quantity{std::exp(x.value), Dim::none()}};  // exp
    }

    // Distribution arguments: each parameter by name, or positionally in the listed order.
    struct Params {
        std::map<std::string, const Arg*> by_name;
        bool ok = true;
    };
    Params bind(const Call& c, const std::vector<std::string>& params, bool allow_positional) {
        Params p;
        std::size_t next = 0;
        for (const Arg& a : c.args) {
            if (a.weight) {
                error(a.range, "`P: D` arguments are only allowed in `mixture`");
                p.ok = false;
                continue;
            }
            std::string name;
            if (a.name) {
                name = *a.name;
                if (std::find(params.begin(), params.end(), name) == params.end()) {
                    error(a.range, "`" + c.callee + "` has no parameter `" + name + "`" +
                                       did_you_mean(name, params));
                    p.ok = false;
                    continue;
                }
            } else {
                if (!allow_positional || next >= params.size()) {
                    error(a.range, "`" + c.callee + "` takes named arguments: " +
                                       join_params(params));
                    p.ok = false;
                    continue;
                }
                name = params[next];
            }
            ++next;
            if (p.by_name.count(name)) {
                error(a.range, "parameter `" + name + "` of `" + c.callee + "` given twice");
                p.ok = false;
                continue;
            }
            p.by_name[name] = &a;
        }
        return p;
    }
    static std::string join_params(const std::vector<std::string>& params) {
        std::string s;
        for (const auto& n : params) s += (s.empty() ? "" : ", ") + n + " = …";
        return s;
    }
    bool require(const Call& c, const Params& p, const std::vector<std::string>& names) {
        bool ok = true;
        for (const auto& n : names) {
            if (!p.by_name.count(n)) {
                error(c.callee_range, "`" + c.callee + "` needs `" + n + " = …`");
                ok = false;
            }
        }
        return ok;
    }
    std::optional<double> param_dim(const Call& c, const Params& p, const std::string& name,
                                    Dim dim) {
        const Arg* a = p.by_name.at(name);
        return quantity_of_dim(*a->value, dim,
                               "`" + name + "` of `" + c.callee + "`: ");
    }
    /// Reports `name` of `c` unless `ok`.
    bool check(bool ok, const Call& c, const Params& p, const std::string& name,
               const std::string& requirement, double v, Dim dim) {
        if (ok) return true;
        error(p.by_name.at(name)->range, "`" + name + "` of `" + c.callee + "` must be " +
                                             requirement + ", got " +
                                             format_quantity(Quantity{v, dim}));
        return false;
    }

    std::optional<net::Distribution> make_distribution(const Expr& e, const Call& c) {
        const std::string& f = c.callee;
        const Dim T = Dim::seconds(), X = Dim::none();
        if (f == "empirical") return empirical(e, c);
        if (f == "mixture") return mixture(e, c);
        if (f == "exp") {
            Params p = bind(c, {"mean", "rate"}, false);
            if (!p.ok) return std::nullopt;
            bool has_mean = p.by_name.count("mean"), has_rate = p.by_name.count("rate");
            if (has_mean == has_rate) {
                error(c.callee_range, "`exp` needs exactly one of `mean = T` or `rate = F`");
                return std::nullopt;
            }
            if (has_mean) {
                auto m = param_dim(c, p, "mean", T);
                if (!m || !check(*m > 0 && std::isfinite(*m), c, p, "mean", "> 0", *m, T))
                    return std::nullopt;
                return net::Distribution{net::Exp{1.0 / *m}};
            }
            auto r = param_dim(c, p, "rate", Dim::frequency());
            if (!r || !check(*r > 0 && std::isfinite(*r), c, p, "rate", "> 0", *r,
                             Dim::frequency()))
                return std::nullopt;
            return net::Distribution{net::Exp{*r}};
        }
        struct Spec {
            std::vector<std::string> names;
            std::vector<Dim> dims;
        };
        static const std::map<std::string, Spec> specs{
            {"det", {{"value"}, {T}}},
            {"uniform", {{"low", "high"}, {T, T}}},
            {"normal", {{"mean", "sd"}, {T, T}}},
            {"lognormal", {{"mean", "cv"}, {T, X}}},
            {"gamma", {{"mean", "cv"}, {T, X}}},
            {"erlang", {{"k", "mean"}, {X, T}}},
            {"weibull", {{"shape", "scale"}, {X, T}}},
        };
        const Spec& spec = specs.at(f);
        Params p = bind(c, spec.names, true);
        if (!p.ok || !require(c, p, spec.names)) return std::nullopt;
        std::vector<double> v;
        bool ok = true;
        for (std::size_t k = 0; k < spec.names.size(); ++k) {
            auto x = param_dim(c, p, spec.names[k], spec.dims[k]);
            if (!x) ok = false;
            v.push_back(x.value_or(0));
        }
        if (!ok) return std::nullopt;
        auto fin = [&](std::size_t k) {
            return check(std::isfinite(v[k]), c, p, spec.names[k], "finite", v[k], spec.dims[k]);
        };
        for (std::size_t k = 0; k < v.size(); ++k)
            if (!fin(k)) return std::nullopt;
        if (f == "det") {
            if (!check(v[0] >= 0, c, p, "value", ">= 0", v[0], T)) return std::nullopt;
            return net::Distribution{net::Det{v[0]}};
        }
        if (f == "uniform") {
            bool a = check(v[0] >= 0, c, p, "low", ">= 0", v[0], T);
            if (a && !(v[1] >= v[0])) {
                error(e.range, "`uniform(A, B)` needs A <= B, got A = " +
                                   format_quantity({v[0], T}) + " and B = " +
                                   format_quantity({v[1], T}));
                return std::nullopt;
            }
            if (!a) return std::nullopt;
            return net::Distribution{net::Uniform{v[0], v[1]}};
        }
        if (f == "normal") {
            bool a = check(v[0] >= 0, c, p, "mean", ">= 0", v[0], T);
            bool b = check(v[1] >= 0, c, p, "sd", ">= 0", v[1], T);
            if (!a || !b) return std::nullopt;
            if (v[1] == 0) return net::Distribution{net::Det{v[0]}};
            return net::Distribution{net::Normal{v[0], v[1]}};
        }
        if (f == "lognormal" || f == "gamma") {
            bool a = check(v[0] > 0, c, p, "mean", "> 0", v[0], T);
            bool b = check(v[1] >= 0, c, p, "cv", ">= 0", v[1], X);
            if (!a || !b) return std::nullopt;
            if (v[1] == 0) return net::Distribution{net::Det{v[0]}};
            if (f == "gamma") return net::Distribution{net::Gamma{v[0], v[1]}};
            return net::Distribution{net::Lognormal{v[0], v[1]}};
        }
        if (f == "erlang") {
            bool a = check(is_integral(v[0]) && v[0] >= 1 && v[0] <= 1e6, c, p, "k",
                           "an integer in 1..1000000", v[0], X);
            bool b = check(v[1] > 0, c, p, "mean", "> 0", v[1], T);
            if (!a || !b) return std::nullopt;
            return net::Distribution{net::Erlang{static_cast<int>(std::round(v[0])), v[1]}};
        }
        // weibull
        bool a = check(v[0] > 0, c, p, "shape", "> 0", v[0], X);
        bool b = check(v[1] > 0, c, p, "scale", "> 0", v[1], T);
        if (!a || !b) return std::nullopt;
        return net::Distribution{net::Weibull{v[0], v[1]}};
    }

    std::optional<net::Distribution> mixture(const Expr& e, const Call& c) {
        if (c.args.empty()) {
            error(e.range, "`mixture` needs at least one `P: D` component");
            return std::nullopt;
        }
        net::Mixture m;
        bool ok = true;
        double total = 0;
        for (const Arg& a : c.args) {
            if (!a.weight || a.name) {
                error(a.range, "a `mixture` component is written `P: D` (probability: distribution)");
                ok = false;
                continue;
            }
            auto p = quantity_of_dim(*a.weight, Dim::none(), "a mixture probability: ");
            auto d = distribution(*a.value);
            if (p && !(*p >= 0 && *p <= 1)) {
                error(a.weight->range, "a mixture probability must be in [0, 1], got " +
                                           format_number(*p));
                p.reset();
            }
            if (!p || !d) {
                ok = false;
                continue;
            }
            total += *p;
            m.probs.push_back(*p);
            m.parts.push_back(std::move(*d));
        }
        if (!ok) return std::nullopt;
        if (std::abs(total - 1) > 1e-9) {
            error(e.range, "the probabilities of a mixture must sum to 1, they sum to " +
                               format_number(total));
            return std::nullopt;
        }
        return net::Distribution{std::move(m)};
    }

    std::optional<net::Distribution> empirical(const Expr& e, const Call& c) {
        if (c.args.size() != 1 || c.args[0].name || c.args[0].weight) {
            error(e.range, "`empirical` takes one argument: a file name or a list [T, T, …]");
            return std::nullopt;
        }
        const Expr& arg = *c.args[0].value;
        net::Empirical out;
        if (auto* list = std::get_if<ListLit>(&arg.node)) {
            bool ok = true;
            for (const auto& item : list->items) {
                auto v = quantity_of_dim(*item, Dim::seconds(), "an empirical value: ");
                if (v && !(*v >= 0 && std::isfinite(*v))) {
                    error(item->range, "an empirical value must be a time >= 0, got " +
                                           format_quantity({*v, Dim::seconds()}));
                    v.reset();
                }
                if (v) out.values_s.push_back(*v); else ok = false;
            }
            if (!ok) return std::nullopt;
            if (out.values_s.empty()) {
                error(arg.range, "`empirical([])` needs at least one value");
                return std::nullopt;
            }
            return net::Distribution{std::move(out)};
        }
        auto v = eval(arg);
        if (!v) return std::nullopt;
        auto* file = std::get_if<std::string>(&*v);
        if (!file) {
            error(arg.range, "`empirical` needs a file name (a string) or a list [T, T, …], got " +
                                 kind_name(*v));
            return std::nullopt;
        }
        std::filesystem::path path(*file);
        if (path.is_relative() && !scope_.base_dir.empty())
            path = std::filesystem::path(scope_.base_dir) / path;
        std::ifstream in(path);
        if (!in) {
            error(arg.range, "cannot read " + path.string() + ": " + std::strerror(errno));
            return std::nullopt;
        }
        std::string line;
        int line_no = 0;
        while (std::getline(in, line)) {
            ++line_no;
            auto first = line.find_first_not_of(" \t\r");
            if (first == std::string::npos || line[first] == '#') continue;
            const char* begin = line.c_str() + first;
            char* end = nullptr;
            double x = std::strtod(begin, &end);
            std::string rest(end == begin ? begin : end);
            while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back())))
                rest.pop_back();
            auto q = end == begin ? std::nullopt : quantity_of(x, rest);
            if (q && q->dim.dimensionless()) q->dim = Dim::seconds();  // seconds by default
            if (!q || q->dim != Dim::seconds() || !(q->value >= 0) || !std::isfinite(q->value)) {
                error(arg.range, path.string() + ":" + std::to_string(line_no) +
                                     ": expected a time >= 0 (seconds unless a unit is written), "
                                     "got `" + line.substr(first) + "`");
                return std::nullopt;
            }
            out.values_s.push_back(q->value);
        }
        if (out.values_s.empty()) {
            error(arg.range, "empirical file " + path.string() + " holds no values");
            return std::nullopt;
        }
        return net::Distribution{std::move(out)};
    }
};

}  // namespace

std::optional<Value> evaluate(const Expr& e, const Scope& scope, Diagnostics& diags) {
    return Evaluator(scope, diags).eval(e);
}

std::optional<double> evaluate_quantity(const Expr& e, Dim expected, const Scope& scope,
                                        Diagnostics& diags) {
    return Evaluator(scope, diags).quantity_of_dim(e, expected, "");
}

std::optional<int64_t> evaluate_integer(const Expr& e, const Scope& scope, Diagnostics& diags,
                                        std::string_view what, int64_t min, int64_t max) {
    Evaluator ev(scope, diags);
    auto v = ev.eval(e);
    if (!v) return std::nullopt;
    auto* q = std::get_if<Quantity>(&*v);
    std::string w(what);
    if (!q || !q->dim.dimensionless()) {
        ev.error(e.range, w + " must be a dimensionless integer, got " + kind_name(*v));
        return std::nullopt;
    }
    if (!is_integral(q->value)) {
        ev.error(e.range, w + " must be an integer, got " + format_number(q->value));
        return std::nullopt;
    }
    double r = std::round(q->value);
    if (r < static_cast<double>(min) || r > static_cast<double>(max)) {
        std::string range;
        if (max == INT64_MAX)
            range = ">= " + std::to_string(min);
        else if (min == INT64_MIN)
            range = "<= " + std::to_string(max);
        else
            range = "in " + std::to_string(min) + ".." + std::to_string(max);
        ev.error(e.range, w + " must be " + range + ", got " + format_number(r));
        return std::nullopt;
    }
    return static_cast<int64_t>(r);
}

std::optional<bool> evaluate_bool(const Expr& e, const Scope& scope, Diagnostics& diags) {
    return Evaluator(scope, diags).boolean(e);
}

std::optional<net::Distribution> evaluate_distribution(const Expr& e, const Scope& scope,
                                                       Diagnostics& diags) {
    return Evaluator(scope, diags).distribution(e);
}

std::shared_ptr<const LayerTable> evaluate_layers(const Expr& e, const Scope& scope,
                                                  Diagnostics& diags) {
    auto v = evaluate(e, scope, diags);
    if (!v) return nullptr;
    if (auto* t = std::get_if<std::shared_ptr<const LayerTable>>(&*v)) return *t;
    diags.error(e.range, "expected a layer table (the name of a `layers` declaration), got " +
                             kind_name(*v));
    return nullptr;
}

std::optional<std::string> identifier(const Expr& e) {
    auto* n = std::get_if<NameRef>(&e.node);
    if (!n || n->parts.size() != 1 || n->index) return std::nullopt;
    return n->parts[0];
}

std::optional<SyncScheme> evaluate_sync(const Expr& e, const Scope& scope, Diagnostics& diags) {
    using K = SyncKind;
    static const std::vector<std::pair<std::string, K>> schemes{
        {"ps_sync", K::PsSync},         {"ps_async", K::PsAsync},
        {"ps_ssp", K::PsSsp},           {"allreduce_ring", K::AllreduceRing},
        {"allreduce_tree", K::AllreduceTree}, {"gossip", K::Gossip}};
    std::vector<std::string> names;
    for (const auto& [n, k] : schemes) names.push_back(n);
    std::string name;
    const Call* call = std::get_if<Call>(&e.node);
    if (call)
        name = call->callee;
    else if (auto id = identifier(e))
        name = *id;
    else {
        diags.error(e.range, "`sync` must be one of ps_sync, ps_async, ps_ssp(staleness = K), "
                             "allreduce_ring, allreduce_tree, gossip");
        return std::nullopt;
    }
    auto it = std::find_if(schemes.begin(), schemes.end(),
                           [&](const auto& s) { return s.first == name; });
    if (it == schemes.end()) {
        diags.error(call ? call->callee_range : e.range,
                    "unknown sync scheme `" + name + "`" + did_you_mean(name, names));
        return std::nullopt;
    }
    SyncScheme out;
    out.kind = it->second;
    if (out.kind != K::PsSsp) {
        if (call) {
            diags.error(e.range, "`" + name + "` takes no arguments");
            return std::nullopt;
        }
        return out;
    }
    if (!call || call->args.size() != 1 ||
        (call->args[0].name && *call->args[0].name != "staleness") || call->args[0].weight) {
        diags.error(e.range, "`ps_ssp` needs its staleness: `ps_ssp(staleness = K)`");
        return std::nullopt;
    }
    auto k = evaluate_integer(*call->args[0].value, scope, diags, "`staleness`", 0);
    if (!k) return std::nullopt;
    out.staleness = *k;
    return out;
}

// ---------------------------------------------------------------------------------------------
// Layer tables

namespace {

// `layers NAME = profile("file")`: the profile is read by profile::load_profile (both formats,
// tails folded in, JSON-path diagnostics), every message pointing at the `profile(…)` call.
std::optional<LayerTable> table_from_profile(const LayersDecl& decl, const Scope& scope,
                                             Diagnostics& diags) {
    const Expr& pe = *decl.profile;
    const Call* call = std::get_if<Call>(&pe.node);
    if (!call || call->callee != "profile" || call->args.size() != 1 || call->args[0].name ||
        call->args[0].weight) {
        diags.error(pe.range, "a layer table is written `layers NAME { … }` or "
                              "`layers NAME = profile(\"file.json\");`");
        return std::nullopt;
    }
    auto v = evaluate(*call->args[0].value, scope, diags);
    if (!v) return std::nullopt;
    auto* file = std::get_if<std::string>(&*v);
    if (!file) {
        diags.error(call->args[0].range, "`profile` needs a file name, got " + kind_name(*v));
        return std::nullopt;
    }
    std::filesystem::path path(*file);
    if (path.is_relative() && !scope.base_dir.empty())
        path = std::filesystem::path(scope.base_dir) / path;
    auto profile = profile::load_profile(path.string(), diags, pe.range);
    if (!profile) return std::nullopt;
    if (profile->layers.empty()) {
        diags.error(pe.range, "profile " + path.string() +
                                  ": it records no layers (a trace without `layer_fwd:` "
                                  "ranges); use `sgdnet import-profile` for its coarse phases");
        return std::nullopt;
    }
    LayerTable t;
    t.name = decl.name;
    t.where = decl.range;
    for (const profile::ProfiledLayer& l : profile->layers) {
        LayerTable::Layer layer;
        layer.name = l.ident;   // an identifier: generated elements are `W.fwd.IDENT`
        layer.fwd = l.fwd;      // tails folded in: Σ fwd + Σ bwd = NAME.compute
        layer.bwd = l.bwd;
        layer.bytes = l.bytes;
        layer.bwd_order = l.bwd_order;
        layer.where = pe.range;
        t.layers.push_back(std::move(layer));
    }
    t.compute = profile->compute;  // zero_grad + forward (loss included) + backward
    t.update = profile->update;    // optimizer
    t.profile_file = profile->file;
    if (const auto& c = profile->comm_probe)
        t.comm = LayerTable::CommCosts{c->message_overhead_s, c->comm_cpu_s_per_byte, c->cores,
                                       c->interference, c->oversubscription};
    t.buffer_bytes = profile->buffer_bytes;
    t.ddp_overhead_s = profile->ddp_overhead_s;
    t.ps_worker_overhead_s = profile->ps_worker_overhead_s;
    if (profile->server_update)
        t.server_update = profile::fit_distribution(*profile->server_update);
    if (profile->aggregate) t.aggregate_s = profile->aggregate->mean_s;
    return t;
}

// The `order` column: none, or on every row with the values a permutation of 0…L−1.
bool check_orders(const LayerTable& t, const std::vector<SourceRange>& where,
                  const LayersDecl& decl, Diagnostics& diags) {
    const std::size_t n = t.layers.size();
    std::size_t given = 0;
    for (const auto& l : t.layers) given += l.bwd_order.has_value();
    if (given == 0) return true;
    if (given < n) {
        for (const auto& l : t.layers) {
            if (l.bwd_order) continue;
            diags.error(l.where, "layer `" + l.name + "` has no `order`: the gradient-ready "
                                 "order is given on every row of `" + decl.name + "` or on none");
            return false;
        }
    }
    std::vector<int> first(n, -1);
    bool ok = true;
    for (std::size_t k = 0; k < n; ++k) {
        const int o = *t.layers[k].bwd_order;
        if (static_cast<std::size_t>(o) >= n) {
            diags.error(where[k], "`order` of layer `" + t.layers[k].name + "` is " +
                                      std::to_string(o) + ", outside 0.." +
                                      std::to_string(n - 1) + " (the orders of the " +
                                      std::to_string(n) + " layers are a permutation of 0.." +
                                      std::to_string(n - 1) + ")");
            ok = false;
        } else if (first[static_cast<std::size_t>(o)] >= 0) {
            const auto& other = t.layers[static_cast<std::size_t>(first[static_cast<std::size_t>(o)])];
            diags.error(where[k], "`order = " + std::to_string(o) + "` is given to layers `" +
                                      other.name + "` and `" + t.layers[k].name +
                                      "`; the orders must be a permutation of 0.." +
                                      std::to_string(n - 1));
            ok = false;
        } else {
            first[static_cast<std::size_t>(o)] = static_cast<int>(k);
        }
    }
    return ok;
}

}  // namespace

std::optional<LayerTable> build_layer_table(const LayersDecl& decl, const Scope& scope,
                                            Diagnostics& diags) {
    if (decl.profile) return table_from_profile(decl, scope, diags);
    LayerTable t;
    t.name = decl.name;
    t.where = decl.range;
    bool ok = true;
    std::set<std::string> seen;
    static const std::vector<std::string> columns{"fwd", "bwd", "bytes", "order"};
    constexpr std::size_t kRequired = 3;  // fwd, bwd, bytes; `order` is optional
    std::vector<SourceRange> order_where;  // per row: where its `order` value is (if written)
    for (const LayerRow& row : decl.rows) {
        if (!seen.insert(row.name).second) {
            diags.error(row.name_range, "layer `" + row.name + "` is defined twice in `" +
                                            decl.name + "`");
            ok = false;
            continue;
        }
        LayerTable::Layer layer;
        layer.name = row.name;
        layer.where = row.range;
        bool has[4] = {false, false, false, false};
        SourceRange order_at;
        for (const Property& p : row.columns) {
            auto col = std::find(columns.begin(), columns.end(), p.name);
            if (col == columns.end()) {
                diags.error(p.name_range, "unknown layer column `" + p.name + "`" +
                                              did_you_mean(p.name, columns) +
                                              " (columns: fwd, bwd, bytes, order)");
                ok = false;
                continue;
            }
            std::size_t k = static_cast<std::size_t>(col - columns.begin());
            if (has[k]) {
                diags.error(p.name_range, "column `" + p.name + "` given twice");
                ok = false;
                continue;
            }
            has[k] = true;
            if (k < 2) {
                auto d = evaluate_distribution(*p.value, scope, diags);
                if (!d) { ok = false; continue; }
                (k == 0 ? layer.fwd : layer.bwd) = std::move(*d);
            } else if (k == 2) {
                auto b = evaluate_quantity(*p.value, Dim::bytes(), scope, diags);
                if (b && !(*b >= 0 && std::isfinite(*b))) {
                    diags.error(p.value->range, "`bytes` must be >= 0");
                    b.reset();
                }
                if (!b) { ok = false; continue; }
                layer.bytes = *b;
            } else {
                // Position in gradient-ready order (0 = first ready), as import-profile writes.
                auto o = evaluate_integer(*p.value, scope, diags, "`order`", 0, kMaxArraySize);
                if (!o) { ok = false; continue; }
                layer.bwd_order = static_cast<int>(*o);
                order_at = p.value->range;
            }
        }
        for (std::size_t k = 0; k < kRequired; ++k) {
            if (!has[k]) {
                diags.error(row.name_range, "layer `" + row.name + "` needs `" + columns[k] +
                                                " = …`");
                ok = false;
            }
        }
        order_where.push_back(order_at);
        t.layers.push_back(std::move(layer));
    }
    if (ok && t.layers.empty()) {
        diags.error(decl.name_range, "layer table `" + decl.name + "` has no layers");
        ok = false;
    }
    if (ok) ok = check_orders(t, order_where, decl, diags);
    if (!ok) return std::nullopt;
    return t;
}

}  // namespace sgdnet::compiler
