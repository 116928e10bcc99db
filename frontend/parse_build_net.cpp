// Parse tree → AST for raw Petri nets (docs/language.md §6): places, transitions, arcs, array specs.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frontend/parse_build.hpp"

namespace sgdnet::frontend::build {

namespace {

std::optional<ArraySpec> build_array(Ctx& cx, G::ArraySpecContext* c) {
    if (!complete(c)) return std::nullopt;
    ArraySpec out;
    out.range = range_of(cx, c);
    if (auto* r = dynamic_cast<G::RangeArrayContext*>(c)) {
        auto var = build_name(cx, r->name());
        out.first = build_expr(cx, r->first);
        out.last = build_expr(cx, r->last);
        if (!var || !out.first || !out.last || r->RBRACK() == nullptr) return std::nullopt;
        out.var = std::move(*var);
        return out;
    }
    if (auto* s = dynamic_cast<G::SizeArrayContext*>(c)) {
        out.var.push_back('i');  // the `[K]` form binds `i`
        out.size = build_expr(cx, s->expr());
        if (!out.size || s->RBRACK() == nullptr) return std::nullopt;
        return out;
    }
    return std::nullopt;
}

std::optional<PlaceDecl> build_place(Ctx& cx, G::PlaceDeclContext* c) {
    if (!complete(c)) return std::nullopt;
    PlaceDecl out;
    auto name = build_name(cx, c->name());
    if (!name) return std::nullopt;
    out.name = std::move(*name);
    out.name_range = range_of(cx, c->name());
    if (c->arraySpec() != nullptr) {
        out.array = build_array(cx, c->arraySpec());
        if (!out.array) return std::nullopt;
    }
    if (c->init != nullptr) {
        out.initial = build_expr(cx, c->init);
        if (!out.initial) return std::nullopt;
    }
    if (c->BOUND() != nullptr) {
        out.bound = build_expr(cx, c->bound);
        if (!out.bound) return std::nullopt;
    }
    out.range = range_of(cx, c);
    return out;
}

/// One arc statement `in a, b*2;` → one ArcDecl per listed place (same kind). An empty element
/// (`in a, ;`, `out a,, b;`) is reported here; the other places of the list are kept.
void build_arcs(Ctx& cx, G::ArcContext* c, std::vector<ArcDecl>& out) {
    if (!complete(c) || c->kind == nullptr) return;
    ArcDecl::Kind kind = ArcDecl::Kind::In;
    switch (c->kind->getType()) {
        case G::OUT: kind = ArcDecl::Kind::Out; break;
        case G::INHIBIT: kind = ArcDecl::Kind::Inhibit; break;
        default: break;
    }
    bool after_comma = false;
    for (antlr4::tree::ParseTree* child : c->children) {
        auto* token = dynamic_cast<antlr4::tree::TerminalNode*>(child);
        const size_t type = token != nullptr ? token->getSymbol()->getType() : 0;
        if (auto* p = dynamic_cast<G::ArcPlaceContext*>(child)) {
            after_comma = false;
            if (!complete(p)) continue;
            ArcDecl arc;
            arc.kind = kind;
            arc.place = build_name_ref(cx, p->nameRef());
            if (!arc.place) continue;
            if (p->STAR() != nullptr) {
                arc.multiplicity = build_primary(cx, p->primary());
                if (!arc.multiplicity) continue;
            }
            arc.range = range_of(cx, p);
            out.push_back(std::move(arc));
        } else if (token != nullptr && (type == G::COMMA || type == G::SEMI)) {
            if (after_comma) {
                cx.diags.error(range_of(cx, token->getSymbol()),
                               "expected a place after ',' in the arc list, found " +
                                   std::string(type == G::SEMI ? "';'" : "','"));
            }
            after_comma = type == G::COMMA;
        }
    }
}

std::optional<Property> build_attribute(Ctx& cx, G::AttributeContext* c) {
    if (!complete(c)) return std::nullopt;
    auto name = build_name(cx, c->name());
    ExprPtr value = build_expr(cx, c->expr());
    if (!name || !value) return std::nullopt;
    return Property{std::move(*name), range_of(cx, c->name()), std::move(value), range_of(cx, c)};
}

/// Shared tail of timed and immediate transitions: array, attributes, arcs.
bool build_transition_parts(Ctx& cx, TransitionDecl& out, G::NameContext* name,
                            G::ArraySpecContext* array,
                            const std::vector<G::AttributeContext*>& attributes,
                            G::ArcBlockContext* arcs) {
    auto n = build_name(cx, name);
    if (!n || !complete(arcs) || arcs->RBRACE() == nullptr) return false;
    out.name = std::move(*n);
    out.name_range = range_of(cx, name);
    if (array != nullptr) {
        out.array = build_array(cx, array);
        if (!out.array) return false;
    }
    for (G::AttributeContext* a : attributes) {
        auto p = build_attribute(cx, a);
        if (!p) return false;
        out.attributes.push_back(std::move(*p));
    }
    for (G::ArcContext* a : arcs->arc()) build_arcs(cx, a, out.arcs);
    return true;
}

std::optional<TransitionDecl> build_transition(Ctx& cx, G::TransitionDeclContext* c) {
    if (!complete(c)) return std::nullopt;
    TransitionDecl out;
    out.range = range_of(cx, c);
    if (auto* t = dynamic_cast<G::TimedTransitionContext*>(c)) {
        out.delay = build_expr(cx, t->expr());
        if (!out.delay) return std::nullopt;
        if (!build_transition_parts(cx, out, t->name(), t->arraySpec(), t->attribute(),
                                    t->arcBlock())) {
            return std::nullopt;
        }
        return out;
    }
    if (auto* i = dynamic_cast<G::ImmediateTransitionContext*>(c)) {
        out.immediate = true;
        if (!build_transition_parts(cx, out, i->name(), i->arraySpec(), i->attribute(),
                                    i->arcBlock())) {
            return std::nullopt;
        }
        return out;
    }
    return std::nullopt;
}

}  // namespace

std::optional<NetDecl> build_net(Ctx& cx, G::NetDeclContext* c) {
    if (!complete(c)) return std::nullopt;
    auto name = build_name(cx, c->name());
    if (!name || c->RBRACE() == nullptr) return std::nullopt;
    NetDecl out;
    out.name = std::move(*name);
    out.name_range = range_of(cx, c->name());
    out.range = range_of(cx, c);
    for (G::NetItemContext* item : c->netItem()) {
        if (!complete(item)) continue;
        if (item->paramDecl() != nullptr) {
            if (auto p = build_param(cx, item->paramDecl())) out.items.emplace_back(std::move(*p));
        } else if (item->placeDecl() != nullptr) {
            if (auto p = build_place(cx, item->placeDecl())) out.items.emplace_back(std::move(*p));
        } else if (item->transitionDecl() != nullptr) {
            if (auto t = build_transition(cx, item->transitionDecl())) {
                out.items.emplace_back(std::move(*t));
            }
        }
    }
    return out;
}

}  // namespace sgdnet::frontend::build
