// Lowering of the training system (hosts, workers, servers, layers, training block) to the net IR.
#pragma once

#include <optional>

#include "frontend/ast.hpp"
#include "compiler/compile.hpp"
#include "frontend/diagnostics.hpp"
#include "compiler/eval.hpp"
#include "net/petri_net.hpp"
#include "training/training_spec.hpp"

namespace sgdnet::compiler {

// The front end's types (AST, diagnostics, source ranges) are this library's vocabulary.
using namespace sgdnet::frontend;

/// Evaluates the host/worker/server/layers/training declarations of a resolved, checked AST into
/// a TrainingSpec: every host element (TrainingSpec::hosts, in declaration order), every worker
/// and server element with its placement, the training block with its defaults and
/// `options.granularity`. Returns nullopt when the AST declares no training system, and after
/// reporting an error (workers without a training block, a missing `sync` or `model_bytes`, fine
/// granularity without layer tables).
std::optional<TrainingSpec> evaluate_training_spec(const Ast& ast, const Scope& scope,
                                                   const CompileOptions& options,
                                                   Diagnostics& diags);

/// Lowers the training system of a resolved, checked AST (evaluate_training_spec, then
/// lower_training_spec) into `out`, appending places, transitions and the automatic measures of
/// docs/language.md §5.3, steps_per_s first. Does nothing when the AST declares no training system.
void lower_training(const Ast& ast, const Scope& scope, const CompileOptions& options,
                    net::PetriNet& out, Diagnostics& diags);

}  // namespace sgdnet::compiler
