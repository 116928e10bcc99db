// Compilation of the ready-made models of models/, shared by the training tests and benchmarks.
#pragma once

#include <optional>
#include <string>

#include "compiler/compile.hpp"

namespace sgdnet::testing {

/// Compiles models/NAME.sgdnet of the source tree (SGDNET_SOURCE_DIR) with `N = n`; problems
/// go to `diags` (nullopt on an error).
inline std::optional<net::PetriNet> compile_model(const std::string& name, int n,
                                                  compiler::Diagnostics& diags) {
    compiler::CompileOptions opts;
    opts.overrides.push_back({"N", std::to_string(n)});
    return compiler::compile_file(std::string(SGDNET_SOURCE_DIR) + "/models/" + name + ".sgdnet",
                                  opts, diags);
}

}  // namespace sgdnet::testing
