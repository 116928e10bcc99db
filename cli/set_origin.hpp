// Diagnostics with their origin on the command line: an error that a `--set NAME=VALUE` (or
// `--fix`) value causes is reported as `error: --set NAME=VALUE: …`, with a note where the file
// uses the value, rather than only at that line of the file.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/compile.hpp"
#include "frontend/diagnostics.hpp"

namespace sgdnet::cli {

/// One override as the command line gave it.
struct SetOrigin {
    std::string option;  // "--set" or "--fix"
    std::string name;    // NAME
    std::string value;   // VALUE, the text handed to the compiler
    std::string shown;   // VALUE for people when not `value` (a swept `1250000000 B/s`: `10 Gbps`)
    /// `--set NAME=VALUE`, with the value as shown.
    std::string text() const { return option + " " + name + "=" + (shown.empty() ? value : shown); }
};

/// Compiles the model with `options`, adding its diagnostics to `diags` (used to compile it
/// again without some overrides).
using CompileFn =
    std::function<void(const compiler::CompileOptions& options, frontend::Diagnostics& diags)>;

/// Renders the diagnostics of a compilation with overrides, each error with its origin:
///
///   * an error in a VALUE itself (syntax, unit) or about a NAME (unknown param, a `let`):
///     `error: --set bw=25Gbbps: unknown unit 'Gbbps' …`, then the option with a caret under the
///     column at fault;
///   * an error in the file that the file alone does not have (compiled again without the
///     overrides): `error: --set bw=-25Gbps: `bandwidth` must be > 0, got -25 Gbps`, then
///     `FILE:LINE:COL: note: the value of `bw` is used here` with the source line. When several
///     overrides are given, the error is the one of the override that alone causes it (compiled
///     with each alone), or of all of them when none does alone;
///   * every other diagnostic (the file's own errors, warnings) as the compiler renders it.
///
/// The extra compilations happen only when there are errors, and are cached: one object serves
/// every point of a sweep.
class OriginRenderer {
public:
    /// `compile` compiles the model; `base` is the options without any override (granularity).
    OriginRenderer(CompileFn compile, compiler::CompileOptions base);

    /// The diagnostics `diags` of compiling with `base` plus `origins` (in that order) as
    /// overrides, one rendered block per diagnostic (its notes included), in the compiler's
    /// order. `point`, when not empty (`N=3, bw=-25 Gbps`), is named by every error an
    /// override with option "--set" causes: `error: --set bw=-25Gbps (at sweep point N=3,
    /// bw=-25 Gbps): …`.
    std::vector<std::string> blocks(const frontend::Diagnostics& diags,
                                    const std::vector<SetOrigin>& origins,
                                    const std::string& point = "");
    /// blocks() joined.
    std::string render(const frontend::Diagnostics& diags, const std::vector<SetOrigin>& origins,
                       const std::string& point = "");

    /// An error of a compilation: file name, line, column, message.
    using ErrorKey = std::tuple<std::string, uint32_t, uint32_t, std::string>;

private:
    /// The errors of compiling with `base_` plus `overrides`, cached by their text.
    const std::set<ErrorKey>& errors_with(const std::vector<SetOrigin>& overrides);
    /// Indexes into `origins` of the overrides that cause the file error `key`; empty when the
    /// file has it without them.
    std::vector<std::size_t> causes(const ErrorKey& key, const std::vector<SetOrigin>& origins);

    CompileFn compile_;
    compiler::CompileOptions base_;
    std::map<std::string, std::set<ErrorKey>> cache_;
};

/// The overrides `sets` (NAME, VALUE pairs of --set) as origins of option `option`.
std::vector<SetOrigin> origins_of(const std::string& option,
                                  const std::vector<std::pair<std::string, std::string>>& sets);

}  // namespace sgdnet::cli
