// Conversions between the C++ library's types (include/sgdnet/) and the Python objects the sgdnet package builds on.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include "sgdnet/model.hpp"
#include "sgdnet/result.hpp"

namespace sgdnet::python {

namespace py = pybind11;

/// A diagnostic as a dict {severity, file, line, column, message, notes}; severity is "error",
/// "warning" or "note", notes a list of such dicts.
py::dict diagnostic_dict(const Diagnostic& d);

/// Every diagnostic as a list of dicts (diagnostic_dict).
py::list diagnostic_list(const std::vector<Diagnostic>& diagnostics);

/// A result as a dict {solver, measures: [(name, mean, ci_low, ci_high, unit)…], stats: {…},
/// precision_reached, warnings}; exact-only statistics are None for a simulation.
py::dict result_dict(const Result& r);

/// A model's size as a dict {places, timed, immediate, arcs, measures}.
py::dict model_stats_dict(const ModelStats& s);

/// RunOptions of a dict with every field: solver ("sim", "exact", "auto"), precision,
/// confidence, seed, threads, max_time_s, max_states, phase_type, multiprecision (the package's
/// run_arguments checks them). Throws std::invalid_argument on an unknown solver.
RunOptions run_options(const py::dict& d);

/// The Solver called "sim", "exact" or "auto". Throws std::invalid_argument (ValueError) on
/// any other name.
Solver solver_of(const std::string& name);

/// The EmitFormat called "net", "dot", "pnml" or "json". Throws std::invalid_argument.
EmitFormat emit_format_of(const std::string& name);

/// CompileOptions of `--set` pairs and a granularity ("" = the model's, "fine", "coarse").
/// Throws std::invalid_argument on another granularity.
CompileOptions compile_options(std::vector<std::pair<std::string, std::string>> set,
                               const std::string& granularity);

/// The name Python gives a SolveError kind: "deadlock", "bound_exceeded", "unbounded",
/// "state_space_too_large", "not_exponential", "not_ergodic", "invalid".
std::string solve_error_kind(SolveError::Kind kind);

/// Makes CompileError raise sgdnet.ModelError (message, diagnostics) and SolveError raise
/// sgdnet.SolveError (message, kind); both classes live in the package's _errors module.
void register_exception_translators();

}  // namespace sgdnet::python
