// Lowering of raw stochastic timed Petri nets (docs/language.md §6) and of `measure` declarations
// to the net IR, with arrays expanded.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "frontend/ast.hpp"
#include "frontend/diagnostics.hpp"
#include "compiler/eval.hpp"
#include "compiler/resolve.hpp"
#include "net/petri_net.hpp"

namespace sgdnet::compiler {

// The front end's types (AST, diagnostics, source ranges) are this library's vocabulary.
using namespace sgdnet::frontend;

/// Appends every `net NAME { … }` of `ast` to `out`: net-local params (as `NET.NAME` in
/// out.params, with `--set NET.NAME=V` overrides), places (all nets first, so arcs may name
/// places declared later or in other nets), then transitions. Array declarations are expanded
/// into elements `NET.NAME[k]`; every element carries the SourceRange of its declaration.
/// Reports every error it finds (sizes, markings, bounds, arcs, attributes, delays).
/// Per net name, the scope of its params and lets (children of the top-level scope).
using NetScopes = std::map<std::string, std::unique_ptr<Scope>>;

/// As above; when `scopes` is given it receives every net's scope (for measures that name a
/// net-local param as `NET.NAME`).
void lower_nets(const Ast& ast, const Resolved& resolved, net::PetriNet& out, Diagnostics& diags,
                NetScopes* scopes = nullptr);

/// Appends the `measure` declarations of `ast` to `out` (run after every element exists, so
/// measures may name generated elements too). `throughput(T)` and linear combinations of
/// throughputs give Kind::Throughput (an array T without index: the sum over its elements);
/// `tokens(P)`, `prob(COND)` and arithmetic of them give Kind::TimeAverage.
/// `NET.NAME` naming a net-local param or let of `nets` stands for its (dimensionless) value in
/// `tokens`/`prob` measures, e.g. `prob(mm1k.queue >= mm1k.K)`.
void lower_measures(const Ast& ast, const Scope& scope, net::PetriNet& out, Diagnostics& diags,
                    const NetScopes* nets = nullptr);

/// Resolves a place reference (a NameRef expression) to a place id, reporting errors.
using PlaceResolver = std::function<std::optional<net::PlaceId>(const Expr&)>;

/// Compiles a marking-dependent expression (`speed`, a `prob` condition): `tokens(P)` becomes
/// MarkingExpr::Tokens, sub-expressions without `tokens` are evaluated as constants (they must
/// be dimensionless). Booleans are 0/1.
std::optional<net::MarkingExpr> compile_marking_expr(const Expr& e, const Scope& scope,
                                                     const PlaceResolver& places,
                                                     Diagnostics& diags,
                                                     const NetScopes* nets = nullptr);

}  // namespace sgdnet::compiler
