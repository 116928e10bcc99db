// Conversions between the C++ library's types (include/sgdnet/) and the Python objects the sgdnet package builds on.
#include "python/convert.hpp"

#include <cstdint>
#include <exception>
#include <stdexcept>

#include <pybind11/stl.h>

namespace sgdnet::python {
namespace {

const char* severity_name(Diagnostic::Severity s) {
    switch (s) {
        case Diagnostic::Severity::Error: return "error";
        case Diagnostic::Severity::Warning: return "warning";
        case Diagnostic::Severity::Note: return "note";
    }
    return "error";
}

py::dict stats_dict(const Stats& s) {
    py::dict d;
    d["replications"] = s.replications;
    d["events"] = s.events;
    d["simulated_s"] = s.simulated_s;
    d["wall_s"] = s.wall_s;
    d["states"] = py::cast(s.states);
    d["residual"] = py::cast(s.residual);
    d["iterations"] = py::cast(s.iterations);
    d["method"] = py::cast(s.method);
    return d;
}

/// Sets the Python error to sgdnet._errors.CLASS(*args); pybind11 then raises it.
void set_package_error(const char* cls, const py::tuple& args) {
    const py::object type = py::module_::import("sgdnet._errors").attr(cls);
    const py::object error = type(*args);
    PyErr_SetObject(type.ptr(), error.ptr());
}

}  // namespace

py::dict diagnostic_dict(const Diagnostic& d) {
    py::dict out;
    out["severity"] = severity_name(d.severity);
    out["file"] = d.file;
    out["line"] = d.line;
    out["column"] = d.column;
    out["message"] = d.message;
    out["notes"] = diagnostic_list(d.notes);
    return out;
}

py::list diagnostic_list(const std::vector<Diagnostic>& diagnostics) {
    py::list out;
    for (const Diagnostic& d : diagnostics) out.append(diagnostic_dict(d));
    return out;
}

py::dict result_dict(const Result& r) {
    py::list measures;
    for (const Measure& m : r.measures) {
        measures.append(py::make_tuple(m.name, m.mean, m.ci_low, m.ci_high, m.unit));
    }
    py::dict d;
    d["solver"] = r.solver;
    d["measures"] = measures;
    d["stats"] = stats_dict(r.stats);
    d["precision_reached"] = r.precision_reached;
    d["warnings"] = py::cast(r.warnings);
    return d;
}

py::dict model_stats_dict(const ModelStats& s) {
    py::dict d;
    d["places"] = s.places;
    d["timed"] = s.timed;
    d["immediate"] = s.immediate;
    d["arcs"] = s.arcs;
    d["measures"] = s.measures;
    return d;
}

RunOptions run_options(const py::dict& d) {
    RunOptions o;
    o.solver = solver_of(d["solver"].cast<std::string>());
    o.precision = d["precision"].cast<double>();
    o.confidence = d["confidence"].cast<double>();
    o.seed = d["seed"].cast<uint64_t>();
    o.threads = d["threads"].cast<unsigned>();
    o.max_time_s = d["max_time_s"].cast<double>();
    o.max_states = d["max_states"].cast<uint64_t>();
    o.phase_type = d["phase_type"].cast<bool>();
    o.multiprecision = d["multiprecision"].cast<bool>();
    return o;
}

Solver solver_of(const std::string& name) {
    if (name == "sim") return Solver::Sim;
    if (name == "exact") return Solver::Exact;
    if (name == "auto") return Solver::Auto;
    throw std::invalid_argument("unknown solver '" + name + "'; expected 'auto', 'sim' or 'exact'");
}

EmitFormat emit_format_of(const std::string& name) {
    if (name == "net") return EmitFormat::Net;
    if (name == "dot") return EmitFormat::Dot;
    if (name == "pnml") return EmitFormat::Pnml;
    if (name == "json") return EmitFormat::Json;
    throw std::invalid_argument("unknown emit format '" + name +
                                "'; expected 'net', 'dot', 'pnml' or 'json'");
}

CompileOptions compile_options(std::vector<std::pair<std::string, std::string>> set,
                               const std::string& granularity) {
    CompileOptions options;
    options.set = std::move(set);
    if (granularity == "fine") {
        options.granularity = Granularity::Fine;
    } else if (granularity == "coarse") {
        options.granularity = Granularity::Coarse;
    } else if (!granularity.empty()) {
        throw std::invalid_argument("unknown granularity '" + granularity +
                                    "'; expected 'fine' or 'coarse'");
    }
    return options;
}

std::string solve_error_kind(SolveError::Kind kind) {
    switch (kind) {
        case SolveError::Kind::Deadlock: return "deadlock";
        case SolveError::Kind::BoundExceeded: return "bound_exceeded";
        case SolveError::Kind::Unbounded: return "unbounded";
        case SolveError::Kind::StateSpaceTooLarge: return "state_space_too_large";
        case SolveError::Kind::NotExponential: return "not_exponential";
        case SolveError::Kind::NotErgodic: return "not_ergodic";
        case SolveError::Kind::Invalid: return "invalid";
    }
    return "invalid";
}

void register_exception_translators() {
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const CompileError& e) {
            set_package_error("ModelError",
                              py::make_tuple(e.rendered(), diagnostic_list(e.diagnostics())));
        } catch (const SolveError& e) {
            set_package_error("SolveError", py::make_tuple(e.what(), solve_error_kind(e.kind())));
        }
    });
}

}  // namespace sgdnet::python
