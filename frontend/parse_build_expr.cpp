// Parse tree → AST for expressions: literals (numbers with units, strings), names, calls, operators.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "frontend/parse_build.hpp"
#include "frontend/parse_errors.hpp"

namespace sgdnet::frontend::build {

namespace {

/// Units of docs/language.md §3 as the lexer accepts them (used to suggest a spelling).
constexpr std::string_view kUnits[] = {
    "ns",    "us",    "ms",    "s",     "min",   "h",    "B",    "KB",   "MB",   "GB",
    "TB",    "KiB",   "MiB",   "GiB",   "TiB",   "b",    "Kb",   "Mb",   "Gb",   "Tb",
    "bps",   "Kbps",  "Mbps",  "Gbps",  "Tbps",  "B/s",  "KB/s", "MB/s", "GB/s", "TB/s",
    "KiB/s", "MiB/s", "GiB/s", "TiB/s", "Hz",    "/s"};

bool iequal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(a[i])) !=
            std::tolower(static_cast<unsigned char>(b[i]))) {
            return false;
        }
    }
    return true;
}

/// Length of the numeric prefix `D+ (. D+)? ([eE] [+-]? D+)?` of `text`.
std::size_t numeric_prefix(std::string_view text) {
    auto digits = [&](std::size_t i) {
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
        return i;
    };
    std::size_t i = digits(0);
    if (i + 1 < text.size() && text[i] == '.' &&
        std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
        i = digits(i + 1);
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        std::size_t j = i + 1;
        if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
        if (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) i = digits(j);
    }
    return i;
}

ExprPtr make(SourceRange range, decltype(Expr::node) node) {
    auto e = std::make_unique<Expr>();
    e->range = range;
    e->node = std::move(node);
    return e;
}

ExprPtr build_number(Ctx& cx, antlr4::Token* t) {
    const std::string text = t->getText();
    const SourceRange range = range_of(cx, t);
    const std::size_t n = numeric_prefix(text);
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + n, value);
    if (ec != std::errc() || end != text.data() + n) {
        cx.diags.error(range, "number '" + text.substr(0, n) + "' is out of range");
        return nullptr;
    }
    std::size_t u = n;
    while (u < text.size() && (text[u] == ' ' || text[u] == '\t')) ++u;
    std::string unit = text.substr(u);
    if (t->getType() == G::BAD_QUANTITY) {
        std::string msg = "unknown unit '" + unit + "'";
        for (std::string_view known : kUnits) {
            if (iequal(known, unit)) {
                msg += "; did you mean '" + std::string(known) + "'?";
                break;
            }
        }
        if (msg.back() != '?') msg += " (units are listed in docs/language.md §3)";
        SourceRange where = range;
        where.begin.col += static_cast<uint32_t>(u);
        cx.diags.error(where, msg);
        return nullptr;
    }
    return make(range, NumberLit{value, std::move(unit)});
}

/// Resolves `\"`, `\\`, `\n`, `\t` in a string token (quotes included; the closing one may be
/// missing when the lexer already reported an unterminated string).
ExprPtr build_string(Ctx& cx, antlr4::Token* t) {
    const std::string text = t->getText();
    const SourceRange range = range_of(cx, t);
    const bool terminated = t->getType() == G::STRING;
    const std::size_t last = terminated ? text.size() - 1 : text.size();
    std::string value;
    bool ok = true;
    uint32_t col = range.begin.col + 1;  // code-point column of text[i]
    for (std::size_t i = 1; i < last; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c & 0xC0) != 0x80) ++col;
        if (c < 0x20 && c != '\t') {
            SourceRange where = range;
            where.begin.col = where.end.col = col - 1;
            cx.diags.error(where, "control character '" + detail::describe_char(c) +
                                      "' in string");
            ok = false;
            continue;
        }
        if (c != '\\' || i + 1 >= last) {
            value += text[i];
            continue;
        }
        const char e = text[++i];
        ++col;
        switch (e) {
            case '"': value += '"'; break;
            case '\\': value += '\\'; break;
            case 'n': value += '\n'; break;
            case 't': value += '\t'; break;
            default: {
                SourceRange where = range;
                where.begin.col = where.end.col = col - 2;
                const auto ue = static_cast<unsigned char>(e);
                std::string shown = ue >= 0x20 && ue < 0x7F ? std::string(1, e) : "?";
                cx.diags.error(where, "unknown escape sequence '\\" + shown +
                                          "' in string (use \\\" \\\\ \\n or \\t)");
                ok = false;
                value += e;
            }
        }
    }
    if (!ok) return nullptr;
    return make(range, StringLit{std::move(value)});
}

Binary::Op binary_op(size_t type) {
    switch (type) {
        case G::PLUS: return Binary::Op::Add;
        case G::MINUS: return Binary::Op::Sub;
        case G::STAR: return Binary::Op::Mul;
        case G::SLASH: return Binary::Op::Div;
        case G::PERCENT: return Binary::Op::Mod;
        case G::CARET: return Binary::Op::Pow;
        case G::EQ: return Binary::Op::Eq;
        case G::NE: return Binary::Op::Ne;
        case G::LT: return Binary::Op::Lt;
        case G::LE: return Binary::Op::Le;
        case G::GT: return Binary::Op::Gt;
        case G::GE: return Binary::Op::Ge;
        case G::ANDAND: return Binary::Op::And;
        default: return Binary::Op::Or;
    }
}

ExprPtr binary(Ctx& cx, G::ExprContext* c, G::ExprContext* lhs_ctx, G::ExprContext* rhs_ctx,
               size_t op_type) {
    ExprPtr lhs = build_expr(cx, lhs_ctx);
    ExprPtr rhs = build_expr(cx, rhs_ctx);
    if (!lhs || !rhs) return nullptr;
    return make(range_of(cx, c), Binary{binary_op(op_type), std::move(lhs), std::move(rhs)});
}

}  // namespace

SourceRange range_of(const Ctx& cx, const antlr4::Token* t) {
    return SourceRange{cx.file, detail::begin_of(t), detail::end_of(t)};
}

SourceRange range_of(const Ctx& cx, antlr4::ParserRuleContext* c) {
    const antlr4::Token* start = c->getStart();
    const antlr4::Token* stop = c->getStop();
    SourceRange r{cx.file, detail::begin_of(start), detail::begin_of(start)};
    if (stop != nullptr && start != nullptr && stop->getTokenIndex() >= start->getTokenIndex() &&
        stop->getType() != antlr4::Token::EOF) {
        r.end = detail::end_of(stop);
    }
    return r;
}

SourceRange span(const SourceRange& a, const SourceRange& b) { return {a.file, a.begin, b.end}; }

bool complete(antlr4::ParserRuleContext* c) {
    return c != nullptr && c->exception == nullptr && c->getStart() != nullptr &&
           c->getStart()->getType() != antlr4::Token::EOF;
}

std::optional<std::string> build_name(Ctx&, G::NameContext* c) {
    if (!complete(c)) return std::nullopt;
    for (antlr4::tree::ParseTree* child : c->children) {
        if (dynamic_cast<antlr4::tree::ErrorNode*>(child) != nullptr) continue;
        if (auto* t = dynamic_cast<antlr4::tree::TerminalNode*>(child)) return t->getText();
    }
    return std::nullopt;
}

ExprPtr build_expr(Ctx& cx, G::ExprContext* c) {
    if (!complete(c)) return nullptr;
    if (auto* a = dynamic_cast<G::AtomExprContext*>(c)) return build_primary(cx, a->primary());
    if (auto* p = dynamic_cast<G::PowExprContext*>(c)) {
        return binary(cx, c, p->expr(0), p->expr(1), G::CARET);
    }
    if (auto* u = dynamic_cast<G::UnaryExprContext*>(c)) {
        ExprPtr operand = build_expr(cx, u->expr());
        if (!operand || u->op == nullptr) return nullptr;
        const auto op = u->op->getType() == G::NOT ? Unary::Op::Not : Unary::Op::Neg;
        return make(range_of(cx, c), Unary{op, std::move(operand)});
    }
    if (auto* m = dynamic_cast<G::MulExprContext*>(c)) {
        return binary(cx, c, m->expr(0), m->expr(1), m->op->getType());
    }
    if (auto* a = dynamic_cast<G::AddExprContext*>(c)) {
        return binary(cx, c, a->expr(0), a->expr(1), a->op->getType());
    }
    if (auto* r = dynamic_cast<G::RelExprContext*>(c)) {
        return binary(cx, c, r->expr(0), r->expr(1), r->op->getType());
    }
    if (auto* e = dynamic_cast<G::EqExprContext*>(c)) {
        return binary(cx, c, e->expr(0), e->expr(1), e->op->getType());
    }
    if (auto* a = dynamic_cast<G::AndExprContext*>(c)) {
        return binary(cx, c, a->expr(0), a->expr(1), G::ANDAND);
    }
    if (auto* o = dynamic_cast<G::OrExprContext*>(c)) {
        return binary(cx, c, o->expr(0), o->expr(1), G::OROR);
    }
    if (auto* q = dynamic_cast<G::CondExprContext*>(c)) {
        ExprPtr cond = build_expr(cx, q->expr(0));
        ExprPtr then_expr = build_expr(cx, q->expr(1));
        ExprPtr else_expr = build_expr(cx, q->expr(2));
        if (!cond || !then_expr || !else_expr) return nullptr;
        return make(range_of(cx, c),
                    Conditional{std::move(cond), std::move(then_expr), std::move(else_expr)});
    }
    return nullptr;
}

ExprPtr build_primary(Ctx& cx, G::PrimaryContext* c) {
    if (!complete(c)) return nullptr;
    if (auto* n = dynamic_cast<G::NumberLitContext*>(c)) {
        return build_number(cx, n->getStart());
    }
    if (auto* s = dynamic_cast<G::StringLitContext*>(c)) return build_string(cx, s->getStart());
    if (auto* b = dynamic_cast<G::BoolLitContext*>(c)) {
        return make(range_of(cx, c), BoolLit{b->TRUE() != nullptr});
    }
    if (auto* call = dynamic_cast<G::CallExprContext*>(c)) {
        auto callee = build_name(cx, call->name());
        if (!callee || call->RPAREN() == nullptr) return nullptr;
        Call out{*callee, range_of(cx, call->name()), {}};
        for (G::ArgContext* a : call->arg()) {
            if (!complete(a)) return nullptr;
            Arg arg;
            arg.range = range_of(cx, a);
            if (auto* named = dynamic_cast<G::NamedArgContext*>(a)) {
                arg.name = build_name(cx, named->name());
                arg.value = build_expr(cx, named->expr());
                if (!arg.name) return nullptr;
            } else if (auto* plain = dynamic_cast<G::ExprArgContext*>(a)) {
                const auto exprs = plain->expr();
                if (exprs.size() == 2) {
                    arg.weight = build_expr(cx, exprs[0]);
                    arg.value = build_expr(cx, exprs[1]);
                    if (!arg.weight) return nullptr;
                } else if (exprs.size() == 1) {
                    arg.value = build_expr(cx, exprs[0]);
                }
            }
            if (!arg.value) return nullptr;
            out.args.push_back(std::move(arg));
        }
        return make(range_of(cx, c), std::move(out));
    }
    if (auto* n = dynamic_cast<G::NameExprContext*>(c)) return build_name_ref(cx, n->nameRef());
    if (auto* l = dynamic_cast<G::ListLitContext*>(c)) {
        ListLit list;
        for (G::ExprContext* item : l->expr()) {
            ExprPtr e = build_expr(cx, item);
            if (!e) return nullptr;
            list.items.push_back(std::move(e));
        }
        if (l->RBRACK() == nullptr) return nullptr;
        return make(range_of(cx, c), std::move(list));
    }
    if (auto* p = dynamic_cast<G::ParenExprContext*>(c)) return build_expr(cx, p->expr());
    return nullptr;
}

ExprPtr build_name_ref(Ctx& cx, G::NameRefContext* c) {
    if (!complete(c)) return nullptr;
    NameRef ref;
    // Children in order: name ('[' expr ']')? ('.' name ('[' expr ']')?)*; an index belongs to
    // the part before it.
    std::vector<ExprPtr> indexes;
    for (antlr4::tree::ParseTree* child : c->children) {
        if (auto* n = dynamic_cast<G::NameContext*>(child)) {
            auto part = build_name(cx, n);
            if (!part) return nullptr;
            ref.parts.push_back(std::move(*part));
            indexes.emplace_back();
        } else if (auto* x = dynamic_cast<G::ExprContext*>(child)) {
            if (indexes.empty()) return nullptr;
            indexes.back() = build_expr(cx, x);
            if (!indexes.back()) return nullptr;
        } else if (auto* t = dynamic_cast<antlr4::tree::TerminalNode*>(child);
                   t != nullptr && t->getSymbol()->getType() == G::STAR) {
            if (indexes.empty() || ref.wildcard >= 0) {
                cx.diags.error(range_of(cx, t->getSymbol()),
                               "only one `[*]` is allowed in a name");
                return nullptr;
            }
            ref.wildcard = static_cast<int>(indexes.size()) - 1;
        }
    }
    if (ref.parts.empty()) return nullptr;
    if (ref.wildcard >= 0 && static_cast<std::size_t>(ref.wildcard) + 1 < ref.parts.size())
        ref.part_indexes.resize(ref.parts.size() - 1);  // keep the size contract: one per part
    ref.index = std::move(indexes.back());
    indexes.pop_back();
    if (std::any_of(indexes.begin(), indexes.end(), [](const ExprPtr& e) { return e != nullptr; }))
        ref.part_indexes = std::move(indexes);
    return make(range_of(cx, c), std::move(ref));
}

std::optional<Property> build_assignment(Ctx& cx, G::AssignmentContext* c) {
    if (!complete(c)) return std::nullopt;
    auto name = build_name(cx, c->name());
    ExprPtr value = build_expr(cx, c->expr());
    if (!name || !value) return std::nullopt;
    return Property{std::move(*name), range_of(cx, c->name()), std::move(value), range_of(cx, c)};
}

}  // namespace sgdnet::frontend::build
