// Semantic checks of the training-system declarations (docs/language.md §5; hosts: docs/language.md),
// known properties with "did you mean", values of the right kind and dimension, array sizes,
// placements on hosts; and that a file declares something to solve. Raw nets are checked while
// they are lowered (lower_net.hpp).
#pragma once

#include "frontend/ast.hpp"
#include "compiler/compile.hpp"
#include "frontend/diagnostics.hpp"
#include "compiler/resolve.hpp"

namespace sgdnet::compiler {

// The front end's types (AST, diagnostics, source ranges) are this library's vocabulary.
using namespace sgdnet::frontend;

/// Checks every host, worker, server and training declaration of `ast` against the resolved
/// scope: counts are integers in 1..kMaxArraySize; every property is known (the table of
/// training_properties.hpp; else "did you mean"), given once, and evaluates, for every element
/// index `i`, to a value of its kind (evaluate_property(): distributions for
/// compute/update, a layer table for layers, speed > 0, bandwidth > 0 (a rate), latency >= 0
/// (a time), batch a positive integer, host one element of a `host` declaration (in range, for
/// every element); cores > 0; sync a scheme, granularity fine|coarse, sizes > 0, sharing
/// fair|fifo, overlap a boolean or a number in [0, 1], message_overhead >= 0 (a time), comm_cpu
/// >= 0 (a time per size)). A `training` block needs workers, `ps_*` schemes need servers, hosts
/// need workers, and a file must declare a net or a training system. Warns of a host no worker or
/// server is placed on, and of a host `latency` without `bandwidth`. Reports all errors;
/// evaluation of one property stops at its first failing index.
void check(const Ast& ast, const Resolved& resolved, const CompileOptions& options,
           Diagnostics& diags);

}  // namespace sgdnet::compiler
