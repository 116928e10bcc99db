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

std::optional<ArcDecl> build_arc(Ctx& cx, G::ArcContext* c) {
    if (!complete(c) || c->kind == nullptr) return std::nullopt;
    ArcDecl out;
    switch (c->kind->getType()) {
        case G::OUT: out.kind = ArcDecl::Kind::Out; break;
        case G::INHIBIT: out.kind = ArcDecl::Kind::Inhibit; break;
        default: out.kind = ArcDecl::Kind::In; break;
    }
    out.place = build_name_ref(cx, c->nameRef());
    if (!out.place) return std::nullopt;
    if (c->STAR() != nullptr) {
        out.multiplicity = build_primary(cx, c->primary());
        if (!out.multiplicity) return std::nullopt;
    }
    out.range = range_of(cx, c);
    return out;
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
    for (G::ArcContext* a : arcs->arc()) {
        if (auto arc = build_arc(cx, a)) out.arcs.push_back(std::move(*arc));
    }
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
