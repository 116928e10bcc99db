// Conversions between the public API's plain types (include/sgdnet/) and the libraries' own.
#include "api/convert.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace sgdnet::api {
namespace {

Diagnostic diagnostic(const frontend::Diagnostic& d, const frontend::Diagnostics& diags) {
    Diagnostic out;
    out.severity = d.severity == frontend::Diagnostic::Severity::Error ? Diagnostic::Severity::Error
                   : d.severity == frontend::Diagnostic::Severity::Warning
                       ? Diagnostic::Severity::Warning
                       : Diagnostic::Severity::Note;
    if (d.range.file < diags.file_names().size()) out.file = diags.file_name(d.range.file);
    if (d.range.valid()) {
        out.line = d.range.begin.line;
        out.column = d.range.begin.col;
    }
    out.message = d.message;
    for (const auto& n : d.notes) out.notes.push_back(diagnostic(n, diags));
    return out;
}

std::string where(const net::PetriNet& net, const net::SourceRange& range) {
    if (!range.valid() || range.file >= net.files.size()) return "";
    return " (" + net.files[range.file] + ":" + std::to_string(range.begin.line) + ":" +
           std::to_string(range.begin.col) + ")";
}

}  // namespace

std::vector<Diagnostic> diagnostics(const frontend::Diagnostics& diags) {
    std::vector<Diagnostic> out;
    for (const auto& d : diags.sorted()) out.push_back(diagnostic(d, diags));
    return out;
}

compiler::CompileOptions compile_options(const CompileOptions& options) {
    compiler::CompileOptions out;
    out.overrides = options.set;
    if (options.granularity) {
        out.granularity = *options.granularity == Granularity::Fine ? compiler::Granularity::Fine
                                                                    : compiler::Granularity::Coarse;
    }
    return out;
}

solver::SolveOptions solve_options(const RunOptions& o) {
    if (!(o.precision > 0 && o.precision < 1)) {
        throw std::invalid_argument("precision must be in (0, 1), got " +
                                    std::to_string(o.precision));
    }
    if (!(o.confidence > 0 && o.confidence < 1)) {
        throw std::invalid_argument("confidence must be in (0, 1), got " +
                                    std::to_string(o.confidence));
    }
    if (!(o.max_time_s > 0)) {
        throw std::invalid_argument("max_time_s must be positive, got " +
                                    std::to_string(o.max_time_s));
    }
    solver::SolveOptions s;
    s.solver = o.solver == Solver::Exact  ? solver::SolverKind::Exact
               : o.solver == Solver::Auto ? solver::SolverKind::Auto
                                          : solver::SolverKind::Sim;
    s.precision = o.precision;
    s.confidence = o.confidence;
    s.seed = o.seed;
    s.threads = o.threads;
    s.max_time_s = o.max_time_s;
    s.max_states = o.max_states;
    s.phase_type = o.phase_type;
    s.arithmetic =
        o.multiprecision ? solver::Arithmetic::Multiprecision : solver::Arithmetic::Double;
    return s;
}

Result result(const solver::SolveResult& r) {
    Result out;
    out.solver = r.solver;
    for (const auto& m : r.measures)
        out.measures.push_back({m.name, m.mean, m.ci_low, m.ci_high, m.unit});
    out.stats.replications = r.stats.replications;
    out.stats.events = r.stats.events;
    out.stats.simulated_s = r.stats.simulated_s;
    out.stats.wall_s = r.stats.wall_s;
    out.stats.states = r.stats.states;
    out.stats.residual = r.stats.residual;
    out.stats.iterations = r.stats.iterations;
    out.stats.method = r.stats.method;
    out.precision_reached = r.precision_reached;
    out.warnings = r.warnings;
    return out;
}

SolveError solve_error(const solver::SolveError& e, const net::PetriNet& net) {
    std::string message = e.what();
    if (e.place() && *e.place() < net.places.size()) {
        const auto& p = net.places[*e.place()];
        message += "; place '" + p.name + "'" + where(net, p.where);
    }
    if (e.transition() && *e.transition() < net.transitions.size()) {
        const auto& t = net.transitions[*e.transition()];
        message += "; transition '" + t.name + "'" + where(net, t.where);
    }
    return SolveError(static_cast<SolveError::Kind>(e.kind()), message);
}

}  // namespace sgdnet::api
