// Name resolution of the top level: params and lets (with `--set` overrides), layer tables,
// duplicate names, unknown names and definition cycles (docs/language.md §3, §5).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "frontend/ast.hpp"
#include "compiler/compile.hpp"
#include "frontend/diagnostics.hpp"
#include "compiler/eval.hpp"
#include "net/petri_net.hpp"

namespace sgdnet::compiler {

// The front end's types (AST, diagnostics, source ranges) are this library's vocabulary.
using namespace sgdnet::frontend;

/// The expressions of the `--set` overrides, parsed once. Entries whose VALUE does not parse are
/// null (the parse error is reported).
struct Override {
    std::string name;
    ExprPtr value;
    uint32_t file = 0;  // the `--set NAME` source in diags
    bool used = false;
};
/// The evaluated top level of one file.
struct Resolved {
    /// Params (final values, after `--set`), lets and layer tables. Names whose definition
    /// failed are poisoned (see Scope::define_poisoned).
    Scope scope;
    /// Every numeric param's final value in canonical units, in declaration order; net-local
    /// params appear as `NET.NAME` (filled by lower_net).
    std::vector<net::NetParam> params;
    /// Overrides of net-local params (`--set NET.NAME=VALUE`, or an unambiguous `--set NAME`
    /// rewritten to `NET.NAME`), checked to name an existing one.
    std::vector<Override> net_overrides;
};

/// Evaluates the top-level `param`, `let` and `layers` declarations of `ast`.
///
/// Definitions may refer to each other in any order; they are evaluated in dependency order
/// (declaration order among independent ones). A cycle, an unknown name (with "did you mean"),
/// and a name declared twice at the top level (params, lets, layers, hosts, workers, servers,
/// nets, measures) are errors. `options.overrides` replace param values: each VALUE is parsed as an
/// expression from a source named `--set NAME`; overriding a `let`, or a name that is not a
/// param, is an error. Overrides of the form `NET.NAME` are left for lower_net (net-local
/// params); so is an unqualified `NAME` that is not a top-level name when exactly one net
/// declares a param `NAME` (it becomes `NET.NAME`); when several do, it is an error listing the
/// qualified forms. `base_dir` is where relative file names are resolved.
Resolved resolve(const Ast& ast, const CompileOptions& options, const std::string& base_dir,
                 Diagnostics& diags);

std::vector<Override> parse_overrides(const CompileOptions& options, Diagnostics& diags);

/// Names the top-level expression `e` refers to (heads of dotted names), in order of appearance.
void free_names(const Expr& e, std::vector<std::string>& out);

}  // namespace sgdnet::compiler
