// dump(): the developer text form of an AST, one node per line, indented, with line:col ranges.
#include <charconv>
#include <string>
#include <type_traits>
#include <variant>

#include "frontend/ast.hpp"

namespace sgdnet::frontend {

namespace {

std::string format_number(double v) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

std::string quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default: out += c;
        }
    }
    return out + '"';
}

}  // namespace

const char* to_string(Binary::Op op) {
    switch (op) {
        case Binary::Op::Add: return "+";
        case Binary::Op::Sub: return "-";
        case Binary::Op::Mul: return "*";
        case Binary::Op::Div: return "/";
        case Binary::Op::Mod: return "%";
        case Binary::Op::Pow: return "^";
        case Binary::Op::Eq: return "==";
        case Binary::Op::Ne: return "!=";
        case Binary::Op::Lt: return "<";
        case Binary::Op::Le: return "<=";
        case Binary::Op::Gt: return ">";
        case Binary::Op::Ge: return ">=";
        case Binary::Op::And: return "&&";
        case Binary::Op::Or: return "||";
    }
    return "?";
}

namespace {

class Dumper {
public:
    std::string out;

    void line(int depth, const std::string& text, const SourceRange* range = nullptr) {
        out.append(static_cast<std::size_t>(depth) * 2, ' ');
        out += text;
        if (range != nullptr && range->valid()) {
            out += " @" + std::to_string(range->begin.line) + ':' +
                   std::to_string(range->begin.col) + '-' + std::to_string(range->end.line) +
                   ':' + std::to_string(range->end.col);
        }
        out += '\n';
    }

    void expr(int d, const Expr* e) {
        if (e == nullptr) {
            line(d, "<null>");
            return;
        }
        std::visit(
            [&](const auto& n) {
                using T = std::decay_t<decltype(n)>;
                if constexpr (std::is_same_v<T, NumberLit>) {
                    line(d, "number " + format_number(n.value) + (n.unit.empty() ? "" : " " + n.unit),
                         &e->range);
                } else if constexpr (std::is_same_v<T, StringLit>) {
                    line(d, "string " + quote(n.value), &e->range);
                } else if constexpr (std::is_same_v<T, BoolLit>) {
                    line(d, n.value ? "bool true" : "bool false", &e->range);
                } else if constexpr (std::is_same_v<T, NameRef>) {
                    std::string path;
                    for (std::size_t k = 0; k < n.parts.size(); ++k) {
                        path += (k == 0 ? "" : ".") + n.parts[k];
                        if (k < n.part_indexes.size() && n.part_indexes[k]) path += "[]";
                        if (n.wildcard == static_cast<int>(k)) path += "[*]";
                    }
                    line(d, "name " + path + (n.index ? "[]" : ""), &e->range);
                    for (const auto& inner : n.part_indexes)
                        if (inner) expr(d + 1, inner.get());
                    if (n.index) expr(d + 1, n.index.get());
                } else if constexpr (std::is_same_v<T, Unary>) {
                    line(d, n.op == Unary::Op::Neg ? "unary -" : "unary !", &e->range);
                    expr(d + 1, n.operand.get());
                } else if constexpr (std::is_same_v<T, Binary>) {
                    line(d, std::string("binary ") + to_string(n.op), &e->range);
                    expr(d + 1, n.lhs.get());
                    expr(d + 1, n.rhs.get());
                } else if constexpr (std::is_same_v<T, Conditional>) {
                    line(d, "conditional", &e->range);
                    expr(d + 1, n.cond.get());
                    expr(d + 1, n.then_expr.get());
                    expr(d + 1, n.else_expr.get());
                } else if constexpr (std::is_same_v<T, Call>) {
                    line(d, "call " + n.callee, &e->range);
                    for (const Arg& a : n.args) {
                        if (a.name) {
                            line(d + 1, "arg " + *a.name + " =", &a.range);
                        } else if (a.weight) {
                            line(d + 1, "arg weighted", &a.range);
                            expr(d + 2, a.weight.get());
                        } else {
                            line(d + 1, "arg", &a.range);
                        }
                        expr(d + 2, a.value.get());
                    }
                } else if constexpr (std::is_same_v<T, ListLit>) {
                    line(d, "list", &e->range);
                    for (const auto& item : n.items) expr(d + 1, item.get());
                }
            },
            e->node);
    }

    void property(int d, const char* what, const Property& p) {
        line(d, std::string(what) + ' ' + p.name, &p.range);
        expr(d + 1, p.value.get());
    }

    void param(int d, const ParamDecl& p) {
        line(d, std::string(p.is_let ? "let " : "param ") + p.name, &p.range);
        expr(d + 1, p.value.get());
    }

    void array(int d, const std::optional<ArraySpec>& a) {
        if (!a) return;
        if (a->size) {
            line(d, "array " + a->var + " size", &a->range);
            expr(d + 1, a->size.get());
        } else {
            line(d, "array " + a->var + " range", &a->range);
            expr(d + 1, a->first.get());
            expr(d + 1, a->last.get());
        }
    }

    void net_item(int d, const NetItem& item) {
        std::visit(
            [&](const auto& n) {
                using T = std::decay_t<decltype(n)>;
                if constexpr (std::is_same_v<T, ParamDecl>) {
                    param(d, n);
                } else if constexpr (std::is_same_v<T, PlaceDecl>) {
                    line(d, "place " + n.name, &n.range);
                    array(d + 1, n.array);
                    if (n.initial) {
                        line(d + 1, "initial");
                        expr(d + 2, n.initial.get());
                    }
                    if (n.bound) {
                        line(d + 1, "bound");
                        expr(d + 2, n.bound.get());
                    }
                } else if constexpr (std::is_same_v<T, TransitionDecl>) {
                    line(d, (n.immediate ? "immediate " : "transition ") + n.name, &n.range);
                    array(d + 1, n.array);
                    if (n.delay) {
                        line(d + 1, "delay");
                        expr(d + 2, n.delay.get());
                    }
                    for (const Property& p : n.attributes) property(d + 1, "attribute", p);
                    for (const ArcDecl& a : n.arcs) {
                        const char* kind = a.kind == ArcDecl::Kind::In    ? "arc in"
                                           : a.kind == ArcDecl::Kind::Out ? "arc out"
                                                                          : "arc inhibit";
                        line(d + 1, kind, &a.range);
                        expr(d + 2, a.place.get());
                        if (a.multiplicity) {
                            line(d + 2, "multiplicity");
                            expr(d + 3, a.multiplicity.get());
                        }
                    }
                }
            },
            item);
    }

    void decl(const Decl& decl) {
        std::visit(
            [&](const auto& n) {
                using T = std::decay_t<decltype(n)>;
                if constexpr (std::is_same_v<T, ModelDecl>) {
                    line(0, "model " + n.name, &n.range);
                } else if constexpr (std::is_same_v<T, ParamDecl>) {
                    param(0, n);
                } else if constexpr (std::is_same_v<T, LayersDecl>) {
                    line(0, "layers " + n.name, &n.range);
                    for (const LayerRow& r : n.rows) {
                        line(1, "row " + r.name, &r.range);
                        for (const Property& p : r.columns) property(2, "column", p);
                    }
                    if (n.profile) {
                        line(1, "profile");
                        expr(2, n.profile.get());
                    }
                } else if constexpr (std::is_same_v<T, HostDecl>) {
                    line(0, "host " + n.name, &n.range);
                    if (n.count) {
                        line(1, "count");
                        expr(2, n.count.get());
                    }
                    for (const Property& p : n.properties) property(1, "property", p);
                } else if constexpr (std::is_same_v<T, NodeDecl>) {
                    line(0, (n.kind == NodeDecl::Kind::Worker ? "worker " : "server ") + n.name,
                         &n.range);
                    if (n.count) {
                        line(1, "count");
                        expr(2, n.count.get());
                    }
                    for (const Property& p : n.properties) property(1, "property", p);
                } else if constexpr (std::is_same_v<T, TrainingDecl>) {
                    line(0, "training", &n.range);
                    for (const Property& p : n.properties) property(1, "property", p);
                } else if constexpr (std::is_same_v<T, NetDecl>) {
                    line(0, "net " + n.name, &n.range);
                    for (const NetItem& item : n.items) net_item(1, item);
                } else if constexpr (std::is_same_v<T, MeasureDecl>) {
                    line(0, "measure " + n.name, &n.range);
                    expr(1, n.value.get());
                }
            },
            decl);
    }
};

}  // namespace

std::string dump(const Ast& ast) {
    Dumper d;
    for (const Decl& decl : ast.decls) d.decl(decl);
    return d.out;
}

}  // namespace sgdnet::frontend
