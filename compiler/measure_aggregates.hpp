// Array aggregates of measures: `sum(X)` and `mean(X)` over every element of an array named with
// `[*]` (`sum(throughput(w[*].compute))`, `mean(tokens(net.buf[*]))`), expanded into plain sums.
#pragma once

#include "compiler/eval.hpp"
#include "frontend/ast.hpp"
#include "frontend/diagnostics.hpp"
#include "net/petri_net.hpp"

namespace sgdnet::compiler {

using namespace sgdnet::frontend;

/// A deep copy of `e`.
ExprPtr clone(const Expr& e);

/// True when `e` names something with `[*]` or calls `sum`/`mean`.
bool has_aggregate(const Expr& e);

/// A copy of the measure expression `e` in which every `sum(X)` is X₀ + X₁ + … and every
/// `mean(X)` is (X₀ + X₁ + …) / n, Xₖ being X with each `[*]` replaced by the index k; the
/// indices are those of the elements of `net` (places and transitions) that the first `[*]` name
/// reaches, in increasing order. Every `[*]` of one X must reach the same indices. Reports, and
/// returns null: `[*]` outside `sum`/`mean`, `sum`/`mean` without `[*]` or nested, `[*]` on a name
/// that is not an array of the net.
ExprPtr expand_aggregates(const Expr& e, const Scope& scope, const net::PetriNet& net,
                          Diagnostics& diags);

}  // namespace sgdnet::compiler
