// Parse tree → AST: one build_<rule> per grammar rule, typed returns, split by topic into
// parse_build_expr.cpp (expressions), parse_build_decl.cpp (top level, training system) and
// parse_build_net.cpp (raw Petri nets). Parts that syntax errors left incomplete are dropped
// (the error is already reported), so every pointer the AST contract requires is non-null.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "frontend/ast.hpp"
#include "frontend/diagnostics.hpp"

#include "SgdNetParser.h"  // ANTLR last: it undefines EOF.

namespace sgdnet::frontend::build {

using G = sgdnet_grammar::SgdNetParser;

/// State shared by the builders: where to report (bad units, escapes) and the file index.
struct Ctx {
    Diagnostics& diags;
    uint32_t file;
};

/// Source range of a token / of a rule context (begin of its first token to end of its last).
SourceRange range_of(const Ctx& cx, const antlr4::Token* t);
SourceRange range_of(const Ctx& cx, antlr4::ParserRuleContext* c);
/// Range from the start of `a` to the end of `b`.
SourceRange span(const SourceRange& a, const SourceRange& b);
/// True when the rule context was parsed without failing (no exception, has a real token).
bool complete(antlr4::ParserRuleContext* c);

std::optional<std::string> build_name(Ctx& cx, G::NameContext* c);
ExprPtr build_expr(Ctx& cx, G::ExprContext* c);
ExprPtr build_primary(Ctx& cx, G::PrimaryContext* c);
ExprPtr build_name_ref(Ctx& cx, G::NameRefContext* c);
std::optional<Property> build_assignment(Ctx& cx, G::AssignmentContext* c);

std::optional<Decl> build_decl(Ctx& cx, G::DeclContext* c);
std::optional<ParamDecl> build_param(Ctx& cx, G::ParamDeclContext* c);
std::optional<NetDecl> build_net(Ctx& cx, G::NetDeclContext* c);

}  // namespace sgdnet::frontend::build
