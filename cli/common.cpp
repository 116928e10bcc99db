// Helpers of the subcommands: --set pairs, durations, compile and solve options, compiling with
// diagnostics printed to stderr (errors a --set value causes named by it).
#include <cctype>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/set_origin.hpp"
#include "compiler/units.hpp"

namespace sgdnet::cli {

std::optional<std::vector<std::pair<std::string, std::string>>> parse_sets(
    const std::vector<std::string>& sets) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& s : sets) {
        const auto eq = s.find('=');
        std::string name = eq == std::string::npos ? "" : s.substr(0, eq);
        while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) {
            name.pop_back();
        }
        if (eq == std::string::npos || name.empty() || eq + 1 == s.size()) {
            std::cerr << "error: --set expects NAME=VALUE, got '" << s << "'\n";
            return std::nullopt;
        }
        out.emplace_back(name, s.substr(eq + 1));
    }
    return out;
}

std::optional<double> parse_duration(const std::string& text) {
    std::size_t b = 0;
    while (b < text.size() && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
    double value = 0;
    const auto res = std::from_chars(text.data() + b, text.data() + text.size(), value);
    if (res.ec != std::errc{}) {
        std::cerr << "error: invalid duration '" << text << "' (expected e.g. 30s, 2 min)\n";
        return std::nullopt;
    }
    std::string unit(res.ptr, text.data() + text.size());
    unit.erase(0, unit.find_first_not_of(" \t"));
    unit.erase(unit.find_last_not_of(" \t") + 1);
    if (unit.empty()) unit = "s";
    const auto q = compiler::quantity_of(value, unit);
    if (!q || !(q->dim == compiler::Dim::seconds())) {
        std::cerr << "error: invalid duration '" << text << "': '" << unit
                  << "' is not a time unit (ns us ms s min h)\n";
        return std::nullopt;
    }
    if (!(q->value > 0)) {
        std::cerr << "error: invalid duration '" << text << "': must be positive\n";
        return std::nullopt;
    }
    return q->value;
}

std::optional<compiler::CompileOptions> make_compile_options(const std::vector<std::string>& sets,
                                                             const std::string& granularity) {
    compiler::CompileOptions options;
    auto pairs = parse_sets(sets);
    if (!pairs) return std::nullopt;
    options.overrides = std::move(*pairs);
    if (granularity == "fine") options.granularity = compiler::Granularity::Fine;
    if (granularity == "coarse") options.granularity = compiler::Granularity::Coarse;
    return options;
}

std::optional<solver::SolveOptions> make_solve_options(const RunArgs& args) {
    solver::SolveOptions o;
    o.solver = args.solver == "exact"  ? solver::SolverKind::Exact
               : args.solver == "auto" ? solver::SolverKind::Auto
                                       : solver::SolverKind::Sim;
    o.precision = args.precision;
    o.confidence = args.confidence;
    o.seed = args.seed;
    o.threads = args.threads;
    const auto max_time = parse_duration(args.max_time);
    if (!max_time) return std::nullopt;
    o.max_time_s = *max_time;
    o.max_states = args.max_states;
    o.phase_type = args.phase_type;
    o.arithmetic =
        args.arith == "mp" ? solver::Arithmetic::Multiprecision : solver::Arithmetic::Double;
    return o;
}

std::optional<net::PetriNet> compile_and_report(const std::string& file,
                                                const compiler::CompileOptions& options) {
    frontend::Diagnostics diags;
    auto net = compiler::compile_file(file, options, diags);
    if (!diags.has_errors()) {
        std::cerr << diags.render();
        return net;
    }
    OriginRenderer origins(
        [&](const compiler::CompileOptions& o, frontend::Diagnostics& d) {
            compiler::compile_file(file, o, d);
        },
        options);
    std::cerr << origins.render(diags, origins_of("--set", options.overrides));
    return std::nullopt;
}

Status write_output(const std::string& path, const std::string& text) {
    if (path.empty() || path == "-") {
        std::cout << text << std::flush;
        return Status::Ok;
    }
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
        std::cerr << "error: cannot write '" << path << "'\n";
        return Status::InputError;
    }
    return Status::Ok;
}

std::string hms(double s) {
    const long t = static_cast<long>(s + 0.5);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    return buf;
}

std::string point_label(const sweep::SweepPlan& plan, std::size_t k) {
    std::string out;
    for (const auto& p : sweep::point_params(plan, k)) {
        out += (out.empty() ? "" : ", ") + p.name + "=" + shown_value(plan, p);
    }
    return out;
}

std::string shown_value(const sweep::SweepPlan& plan, const sweep::PointParam& p) {
    if (p.value.as_written) return p.value.text;
    for (const auto& swept : plan.params) {
        if (swept.name == p.name && !swept.unit.empty()) {
            return readable(p.value.canonical, swept.unit);
        }
    }
    return p.value.text;
}

std::string point_key(const std::vector<sweep::PointParam>& params) {
    std::string k;
    for (std::size_t d = 0; d < params.size(); ++d) {
        k += (d ? "," : "") + number(params[d].value.canonical);
    }
    return k;
}

}  // namespace sgdnet::cli
