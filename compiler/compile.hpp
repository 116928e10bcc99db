// The compiler's public entry point: text → checked AST → Petri net IR.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/diagnostics.hpp"
#include "net/petri_net.hpp"
#include "training/kinds.hpp"
#include "training/training_spec.hpp"

namespace sgdnet::compiler {

// The front end's types (AST, diagnostics, source ranges) and the training kinds and specs are
// this library's vocabulary.
using namespace sgdnet::frontend;
using namespace sgdnet::training;

struct CompileOptions {
    /// `--set NAME=VALUE` pairs; VALUE uses the language's expression syntax (units included).
    std::vector<std::pair<std::string, std::string>> overrides;
    /// `--granularity`, overriding the training block's.
    std::optional<training::Granularity> granularity;
};

/// Runs the whole pipeline (parse → build AST → resolve → check → lower → validate) on `text`,
/// registered under `display_name` (used in diagnostics; relative paths inside the file, e.g.
/// `empirical("x.txt")`, `profile("p.json")`, are resolved against its directory).
/// Returns the net, or nullopt when `diags` has errors.
std::optional<net::PetriNet> compile(std::string_view text, const std::string& display_name,
                                     const CompileOptions& options, Diagnostics& diags);

/// Reads `path` and compiles it; an unreadable file is a diagnostic.
std::optional<net::PetriNet> compile_file(const std::string& path, const CompileOptions& options,
                                          Diagnostics& diags);

/// A top-level numeric param as resolved (after `--set`): its value in canonical units and the
/// unit to write after a number to give it back (`s`, `B`, `B/s`, `/s`; "" when dimensionless;
/// nullopt for a dimension no unit names, e.g. time per size).
struct ParamValue {
    std::string name;
    double value = 0;
    std::optional<std::string> unit;
};

/// What a file evaluates to before any net is built: its params, and its training system as
/// lower_training_spec() receives it (each worker's compute, each message's bytes and ends, each
/// shard's update), for analyses that must not re-read them from the net's element names.
struct EvaluatedModel {
    std::vector<ParamValue> params;                 // declaration order
    std::optional<training::TrainingSpec> training;  // none: no training system
};

/// Parses, resolves, checks and evaluates `path` (parse → resolve → check →
/// evaluate_training_spec). Returns nullopt when `diags` has errors.
std::optional<EvaluatedModel> evaluate_file(const std::string& path, const CompileOptions& options,
                                            Diagnostics& diags);

}  // namespace sgdnet::compiler
