// Parse tree → AST for top-level declarations: model, param/let, measure, layers, host,
// worker/server, training (docs/language.md §3, §5); nets are in parse_build_net.cpp.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frontend/parse_build.hpp"

namespace sgdnet::frontend::build {

namespace {

std::optional<ModelDecl> build_model(Ctx& cx, G::ModelDeclContext* c) {
    auto name = build_name(cx, c->name());
    if (!name) return std::nullopt;
    return ModelDecl{std::move(*name), range_of(cx, c)};
}

std::optional<MeasureDecl> build_measure(Ctx& cx, G::MeasureDeclContext* c) {
    auto name = build_name(cx, c->name());
    ExprPtr value = build_expr(cx, c->expr());
    if (!name || !value) return std::nullopt;
    return MeasureDecl{std::move(*name), range_of(cx, c->name()), std::move(value),
                       range_of(cx, c)};
}

/// Properties of a `{ NAME = EXPR; … }` block; a property with a syntax error is left out.
std::vector<Property> build_properties(Ctx& cx, const std::vector<G::PropertyStmtContext*>& stmts) {
    std::vector<Property> out;
    for (G::PropertyStmtContext* s : stmts) {
        if (!complete(s)) continue;
        if (auto p = build_assignment(cx, s->assignment())) {
            p->range = range_of(cx, s);
            out.push_back(std::move(*p));
        }
    }
    return out;
}

std::optional<LayerRow> build_layer_row(Ctx& cx, G::LayerRowContext* c) {
    if (!complete(c) || !complete(c->layerName())) return std::nullopt;
    LayerRow row;
    G::LayerNameContext* n = c->layerName();
    if (n->STRING() != nullptr) {
        std::string text = n->STRING()->getText();
        row.name = text.size() >= 2 ? text.substr(1, text.size() - 2) : text;
    } else if (auto name = build_name(cx, n->name())) {
        row.name = std::move(*name);
    } else {
        return std::nullopt;
    }
    row.name_range = range_of(cx, n);
    bool first = true;
    antlr4::tree::ParseTree* before = nullptr;
    for (antlr4::tree::ParseTree* child : c->children) {
        auto* a = dynamic_cast<G::AssignmentContext*>(child);
        if (a == nullptr) {
            before = child;
            continue;
        }
        auto* comma = dynamic_cast<antlr4::tree::TerminalNode*>(before);
        if (!first && (comma == nullptr || comma->getSymbol()->getType() != G::COMMA)) {
            const SourceRange prev = row.columns.empty() ? range_of(cx, a) : row.columns.back().range;
            cx.diags.error(SourceRange{cx.file, prev.end, prev.end},
                           "expected ',' between the columns of a layer row");
        }
        first = false;
        before = child;
        auto p = build_assignment(cx, a);
        if (!p) return std::nullopt;
        row.columns.push_back(std::move(*p));
    }
    row.range = range_of(cx, c);
    return row;
}

std::optional<LayersDecl> build_layers(Ctx& cx, G::LayersDeclContext* c) {
    LayersDecl out;
    out.range = range_of(cx, c);
    if (auto* table = dynamic_cast<G::LayerTableContext*>(c)) {
        auto name = build_name(cx, table->name());
        if (!name || table->RBRACE() == nullptr) return std::nullopt;
        out.name = std::move(*name);
        out.name_range = range_of(cx, table->name());
        for (G::LayerRowContext* r : table->layerRow()) {
            if (auto row = build_layer_row(cx, r)) out.rows.push_back(std::move(*row));
        }
        return out;
    }
    if (auto* profile = dynamic_cast<G::LayerProfileContext*>(c)) {
        auto name = build_name(cx, profile->name());
        out.profile = build_expr(cx, profile->expr());
        if (!name || !out.profile) return std::nullopt;
        out.name = std::move(*name);
        out.name_range = range_of(cx, profile->name());
        return out;
    }
    return std::nullopt;
}

/// What a host and a worker/server declaration share, `NAME[COUNT] { PROPERTY = EXPR; … }`,
/// into `out`; false when a part is missing (the parser reported it).
template <class Decl, class Context>
bool build_array_decl(Ctx& cx, Context* c, Decl& out) {
    auto name = build_name(cx, c->name());
    if (!name || c->RBRACE() == nullptr) return false;
    out.name = std::move(*name);
    out.name_range = range_of(cx, c->name());
    if (c->LBRACK() != nullptr) {
        out.count = build_expr(cx, c->expr());
        if (!out.count) return false;
    }
    out.properties = build_properties(cx, c->propertyStmt());
    out.range = range_of(cx, c);
    return true;
}

std::optional<HostDecl> build_host(Ctx& cx, G::HostDeclContext* c) {
    HostDecl out;
    if (!build_array_decl(cx, c, out)) return std::nullopt;
    return out;
}

std::optional<NodeDecl> build_node(Ctx& cx, G::NodeDeclContext* c) {
    NodeDecl out;
    out.kind = c->SERVER() != nullptr ? NodeDecl::Kind::Server : NodeDecl::Kind::Worker;
    if (!build_array_decl(cx, c, out)) return std::nullopt;
    return out;
}

std::optional<TrainingDecl> build_training(Ctx& cx, G::TrainingDeclContext* c) {
    if (c->RBRACE() == nullptr) return std::nullopt;
    return TrainingDecl{build_properties(cx, c->propertyStmt()), range_of(cx, c)};
}

template <typename T>
std::optional<Decl> wrap(std::optional<T> v) {
    if (!v) return std::nullopt;
    return Decl{std::move(*v)};
}

}  // namespace

std::optional<ParamDecl> build_param(Ctx& cx, G::ParamDeclContext* c) {
    if (!complete(c)) return std::nullopt;
    auto name = build_name(cx, c->name());
    ExprPtr value = build_expr(cx, c->expr());
    if (!name || !value) return std::nullopt;
    return ParamDecl{c->LET() != nullptr, std::move(*name), range_of(cx, c->name()),
                     std::move(value), range_of(cx, c)};
}

std::optional<Decl> build_decl(Ctx& cx, G::DeclContext* c) {
    if (!complete(c)) return std::nullopt;
    if (complete(c->modelDecl())) return wrap(build_model(cx, c->modelDecl()));
    if (complete(c->paramDecl())) return wrap(build_param(cx, c->paramDecl()));
    if (complete(c->layersDecl())) return wrap(build_layers(cx, c->layersDecl()));
    if (complete(c->hostDecl())) return wrap(build_host(cx, c->hostDecl()));
    if (complete(c->nodeDecl())) return wrap(build_node(cx, c->nodeDecl()));
    if (complete(c->trainingDecl())) return wrap(build_training(cx, c->trainingDecl()));
    if (complete(c->netDecl())) return wrap(build_net(cx, c->netDecl()));
    if (complete(c->measureDecl())) return wrap(build_measure(cx, c->measureDecl()));
    return std::nullopt;
}

}  // namespace sgdnet::frontend::build
