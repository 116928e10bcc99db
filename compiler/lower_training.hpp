// Lowering of the training system (workers, servers, layers, training block) to the net IR.
#pragma once

#include "frontend/ast.hpp"
#include "compiler/compile.hpp"
#include "frontend/diagnostics.hpp"
#include "compiler/eval.hpp"
#include "net/petri_net.hpp"

namespace sgdnet::compiler {

// The front end's types (AST, diagnostics, source ranges) are this library's vocabulary.
using namespace sgdnet::frontend;

/// Lowers the worker/server/layers/training declarations of a resolved, checked AST into `out`
/// (appending places, transitions and the automatic measures of LANGUAGE.md §5.3, steps_per_s first).
/// Does nothing when the AST declares no training system.
void lower_training(const Ast& ast, const Scope& scope, const CompileOptions& options,
                    net::PetriNet& out, Diagnostics& diags);

}  // namespace sgdnet::compiler
