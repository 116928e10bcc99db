// Conversions between the public API's plain types (include/sgdnet/) and the libraries' own.
#pragma once

#include <vector>

#include "compiler/compile.hpp"
#include "frontend/diagnostics.hpp"
#include "net/petri_net.hpp"
#include "sgdnet/model.hpp"
#include "sgdnet/result.hpp"
#include "solver/solve_options.hpp"
#include "solver/solve_result.hpp"

namespace sgdnet::api {

/// The diagnostics of a compilation, sorted as rendered, with file names and positions.
std::vector<Diagnostic> diagnostics(const frontend::Diagnostics& diags);

/// The compiler's options of the public ones.
compiler::CompileOptions compile_options(const CompileOptions& options);

/// SolveOptions of RunOptions. Throws std::invalid_argument when an option is out of range
/// (precision or confidence outside (0, 1), a negative or NaN time).
solver::SolveOptions solve_options(const RunOptions& options);

/// The public form of a solver's result.
Result result(const solver::SolveResult& r);

/// The public form of a solver error; its message names the place or transition it concerns and
/// where that is declared (`FILE:LINE:COL`), when it concerns one.
SolveError solve_error(const solver::SolveError& e, const net::PetriNet& net);

}  // namespace sgdnet::api
