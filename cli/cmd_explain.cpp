// `sgdnet explain FILE`: solves a model and prints why it runs as fast as it does — closed-form
// bounds per resource beside simulated utilizations, the bottleneck, what-if sensitivities; for a
// raw net, its busiest transitions and places (docs/explain.md).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "compiler/units.hpp"
#include "explain/explain.hpp"
#include "solver/solve.hpp"
#include "solver/threads.hpp"

namespace sgdnet::cli {

namespace {

using json = nlohmann::ordered_json;

constexpr std::size_t kTextRows = 12;  // rows of each ranked table in the text output

const char* scheme_name(training::SyncKind k) {
    switch (k) {
        case training::SyncKind::PsSync:
            return "ps_sync";
        case training::SyncKind::PsAsync:
            return "ps_async";
        case training::SyncKind::PsSsp:
            return "ps_ssp";
        case training::SyncKind::AllreduceRing:
            return "allreduce_ring";
        case training::SyncKind::AllreduceTree:
            return "allreduce_tree";
        case training::SyncKind::Gossip:
            return "gossip";
    }
    return "?";
}

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

/// `text` padded with spaces to `width` columns (on the left when `right`), at least one space
/// after a left-aligned cell that fills it.
std::string pad(const std::string& text, std::size_t width, bool right = false) {
    if (text.size() >= width) return right ? " " + text : text + " ";
    const std::string fill(width - text.size(), ' ');
    return right ? fill + text : text + fill;
}

/// A time for a table cell: 4 significant digits in a readable unit (`198.8 ms`, `9.012 us`),
/// right-aligned to `width` columns.
std::string time_cell(double seconds, std::size_t width) {
    if (!std::isfinite(seconds)) return pad("-", width, true);
    const compiler::ReadableUnit unit = compiler::readable_unit(seconds, compiler::Dim::seconds());
    return pad(fmt("%.4g", seconds / unit.factor) + " " + unit.name, width, true);
}

std::string g4(double v) { return std::isfinite(v) ? fmt("%.4g", v) : "-"; }
std::string pct(double v) { return fmt("%.1f%%", 100 * v); }
std::string signed_pct(double v) { return fmt("%+.2f%%", 100 * v); }

json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

/// Everything the command computed, for either format.
struct Report {
    std::string model;
    solver::SolveResult result;
    std::optional<training::TrainingSpec> spec;
    explain::Bounds bounds;
    std::vector<explain::ResourceUse> resources;
    std::vector<explain::StepParts> breakdown;  // workers, then "all"
    std::string bottleneck;
    std::optional<explain::NetActivity> activity;
    std::vector<explain::WhatIf> what_if;
    double fraction = 0;
};

void print_what_if(std::ostream& out, const Report& r) {
    if (r.fraction <= 0) return;
    out << "\nwhat-if: each param " << fmt("±%g%%", 100 * r.fraction) << " alone, same seed ("
        << r.result.measures.front().name << " " << g4(r.result.measures.front().mean)
        << " at the base)\n";
    out << pad("param", 22) << pad("value", 14, true) << pad("-change", 12, true)
        << pad("+change", 12, true) << pad("elasticity", 12, true) << "\n";
    for (const auto& w : r.what_if) {
        const auto q = w.unit.empty() ? std::nullopt : compiler::quantity_of(w.value, w.unit);
        out << w.param << std::string(w.param.size() < 22 ? 22 - w.param.size() : 1, ' ')
            << (q ? pad(compiler::format_readable(q->value, q->dim), 14, true)
                  : fmt("%14.6g", w.value));
        if (!w.skipped.empty()) {
            out << "  skipped: " << w.skipped << "\n";
            continue;
        }
        out << pad(signed_pct(w.change_low), 12, true) << pad(signed_pct(w.change_high), 12, true)
            << fmt("%12.3f", w.elasticity) << "\n";
    }
}

void print_training(std::ostream& out, const Report& r) {
    const auto& spec = *r.spec;
    out << "model " << r.model << ": " << scheme_name(spec.sync) << ", " << spec.workers.size()
        << " workers"
        << (spec.servers.empty() ? "" : ", " + std::to_string(spec.servers.size()) + " servers")
        << (spec.granularity == training::Granularity::Fine ? " (fine)" : " (coarse)") << "\n";
    const std::string binding =
        r.bounds.binding == "cycle" ? std::string("critical path") : r.bounds.binding;
    if (r.result.measures.empty()) {
        out << "steps_per_s bound " << g4(r.bounds.bound) << " (" << binding
            << "); not simulated (--bounds-only)\n";
    } else {
        const auto& steps = r.result.measures.front();
        out << "steps_per_s " << g4(steps.mean) << " [" << g4(steps.ci_low) << ", "
            << g4(steps.ci_high) << "] simulated; bound " << g4(r.bounds.bound) << " (" << binding
            << "), " << pct(steps.mean / r.bounds.bound) << " of it\n";
    }
    out << r.bottleneck << "\n\n";
    out << pad("resource", 16) << pad("kind", 9) << pad("demand/step", 14, true)
        << pad("bound steps/s", 14, true) << pad("utilization", 13, true) << "   what\n";
    std::size_t shown = 0;
    for (const auto& u : r.resources) {
        if (shown++ == kTextRows) {
            out << "… " << r.resources.size() - kTextRows << " more (--format json lists all)\n";
            break;
        }
        out << u.bound.name
            << std::string(u.bound.name.size() < 16 ? 16 - u.bound.name.size() : 1, ' ')
            << pad(explain::to_string(u.bound.kind), 9) << time_cell(u.bound.demand_s, 14)
            << fmt("%14.4g", u.bound.bound)
            << pad(u.utilization ? pct(u.utilization->mean) : "-", 13, true) << "   "
            << u.bound.what << "\n";
    }
    out << pad("critical path", 16) << pad("cycle", 9) << time_cell(r.bounds.cycle_s, 14)
        << fmt("%14.4g", r.bounds.cycle_bound) << pad("-", 13, true) << "   " << r.bounds.cycle_what
        << "\n";
}

void print_breakdown(std::ostream& out, const Report& r) {
    if (r.breakdown.empty()) return;
    out << "\nstep time (mean; parts sum to it)\n";
    out << pad("worker", 16) << pad("step", 12, true) << pad("compute", 12, true)
        << pad("exposed comm", 14, true) << pad("waiting", 12, true) << pad("update", 12, true)
        << "\n";
    auto row = [&](const explain::StepParts& p) {
        out << pad(p.worker, 16) << time_cell(p.step_s, 12) << time_cell(p.compute_s, 12)
            << time_cell(p.communication_s, 14) << time_cell(p.waiting_s, 12)
            << time_cell(p.update_s, 12) << "\n";
    };
    row(r.breakdown.back());
    for (std::size_t k = 0; k + 1 < r.breakdown.size(); ++k) {
        if (k == kTextRows) {
            out << "… " << r.breakdown.size() - 1 - kTextRows
                << " more (--format json lists all)\n";
            break;
        }
        row(r.breakdown[k]);
    }
}

void print_activity(std::ostream& out, const Report& r) {
    const auto& a = *r.activity;
    out << "model " << r.model << ": a net without a training system\n";
    for (const auto& m : r.result.measures)
        out << m.name << " " << g4(m.mean) << " [" << g4(m.ci_low) << ", " << g4(m.ci_high)
            << "]\n";
    auto table = [&](const char* title, const char* unit,
                     const std::vector<explain::ElementActivity>& v) {
        out << "\n" << title << "\n       value               bound  element\n";
        for (std::size_t k = 0; k < v.size(); ++k) {
            if (k == kTextRows) {
                out << "… " << v.size() - kTextRows << " more (--format json lists all)\n";
                break;
            }
            const std::string bound =
                v[k].bound ? fmt("%12.4g", *v[k].bound) : std::string(11, ' ') + "-";
            out << fmt("%12.4g", v[k].value) << " " << unit << " " << bound << "  " << v[k].name
                << "\n";
        }
    };
    out << "\nplace invariants (weighted tokens no firing changes)\n";
    if (!a.invariants_complete)
        out << "  not computed: the net is too large for the search\n";
    else if (a.invariants.empty())
        out << "  none: no place is bounded by the structure\n";
    for (const auto& inv : a.invariants) out << "  " << inv << "\n";
    table("transitions by throughput (bound: structural, - when none)", "/s    ", a.transitions);
    table("places by mean tokens (bound: most tokens it can hold)", "tokens", a.places);
}

json to_json(const Report& r) {
    json j;
    j["model"] = r.model;
    json measures = json::array();
    for (const auto& m : r.result.measures)
        measures.push_back(
            {{"name", m.name}, {"mean", m.mean}, {"ci_low", m.ci_low}, {"ci_high", m.ci_high}});
    j["measures"] = measures;
    if (r.spec) {
        j["scheme"] = scheme_name(r.spec->sync);
        j["workers"] = r.spec->workers.size();
        j["bound"] = {{"steps_per_s", finite_or_null(r.bounds.bound)},
                      {"binding", r.bounds.binding},
                      {"cycle_s", r.bounds.cycle_s},
                      {"cycle_steps_per_s", finite_or_null(r.bounds.cycle_bound)},
                      {"cycle", r.bounds.cycle_what}};
        j["bottleneck"] = r.bottleneck;
        json res = json::array();
        for (const auto& u : r.resources) {
            json x{{"name", u.bound.name},
                   {"kind", explain::to_string(u.bound.kind)},
                   {"what", u.bound.what},
                   {"capacity", u.bound.capacity},
                   {"demand_s", u.bound.demand_s},
                   {"bound_steps_per_s", finite_or_null(u.bound.bound)}};
            x["utilization"] = u.utilization ? json{{"mean", u.utilization->mean},
                                                    {"ci_low", u.utilization->ci_low},
                                                    {"ci_high", u.utilization->ci_high}}
                                             : json(nullptr);
            res.push_back(x);
        }
        j["resources"] = res;
        json parts = json::array();
        for (const auto& p : r.breakdown)
            parts.push_back({{"worker", p.worker},
                             {"step_s", p.step_s},
                             {"ci_low", p.ci_low},
                             {"ci_high", p.ci_high},
                             {"compute_s", p.compute_s},
                             {"communication_s", p.communication_s},
                             {"waiting_s", p.waiting_s},
                             {"update_s", p.update_s}});
        j["breakdown"] = parts;
    }
    if (r.activity) {
        auto list = [](const std::vector<explain::ElementActivity>& v) {
            json a = json::array();
            for (const auto& e : v)
                a.push_back({{"name", e.name},
                             {"mean", e.value},
                             {"ci_low", e.ci_low},
                             {"ci_high", e.ci_high},
                             {"bound", e.bound ? json(*e.bound) : json(nullptr)}});
            return a;
        };
        j["transitions"] = list(r.activity->transitions);
        j["places"] = list(r.activity->places);
        j["invariants"] = r.activity->invariants_complete ? json(r.activity->invariants)
                                                          : json(nullptr);
    }
    json what = json::array();
    for (const auto& w : r.what_if) {
        json x{{"param", w.param}, {"value", w.value}};
        if (w.skipped.empty()) {
            x.update({{"low_value", w.low_value},
                      {"high_value", w.high_value},
                      {"low", w.low},
                      {"base", w.base},
                      {"high", w.high},
                      {"change_low", w.change_low},
                      {"change_high", w.change_high},
                      {"elasticity", w.elasticity}});
        } else {
            x["skipped"] = w.skipped;
        }
        what.push_back(x);
    }
    j["what_if"] = {{"fraction", r.fraction}, {"params", what}};
    return j;
}

/// --bounds-only: the closed forms alone, without building or solving the net (any N).
Status explain_bounds_only(const ExplainArgs& args, const compiler::CompileOptions& options) {
    compiler::Diagnostics diags;
    const auto model = compiler::evaluate_file(args.run.file, options, diags);
    std::cerr << diags.render();
    if (!model) return Status::InputError;
    if (!model->training) {
        std::cerr << "error: " << args.run.file
                  << ": --bounds-only needs a training system (workers and a training block)\n";
        return Status::InputError;
    }
    Report r;
    r.model = std::filesystem::path(args.run.file).stem().string();
    r.spec = model->training;
    r.bounds = explain::training_bounds(*r.spec);
    r.resources = explain::rank_resources(r.bounds, r.result);
    const bool cycle = r.bounds.binding == "cycle" || r.resources.empty();
    r.bottleneck = "limit: " +
                   (cycle ? "the step's critical path (" + r.bounds.cycle_what + ")"
                          : r.resources.front().bound.what) +
                   "; bound " + g4(r.bounds.bound) + " steps/s";
    if (args.run.format == "json") {
        std::cout << to_json(r).dump() << "\n";
    } else {
        std::ostringstream out;
        print_training(out, r);
        std::cout << out.str();
    }
    return Status::Ok;
}

}  // namespace

Status cmd_explain(const ExplainArgs& args, Context& ctx) {
    const RunArgs& run = args.run;
    const auto compile_options = make_compile_options(run.sets, run.granularity);
    if (!compile_options) return Status::InputError;
    if (args.bounds_only) return explain_bounds_only(args, *compile_options);
    auto solve_options = make_solve_options(run);
    if (!solve_options) return Status::InputError;
    const solver::ThreadsWarmUp warm_up;  // beside the compile below
    ctx.net = compile_and_report(run.file, *compile_options);
    if (!ctx.net) return Status::InputError;
    const net::PetriNet& net = *ctx.net;
    if (net.measures.empty()) {
        std::cerr << "error: " << run.file << ": the model defines no measure to explain\n";
        return Status::InputError;
    }
    compiler::Diagnostics diags;  // already reported by compile_and_report
    const auto model = compiler::evaluate_file(run.file, *compile_options, diags);
    if (!model) return Status::InputError;

    Report r;
    r.model = net.name;
    r.spec = model->training;
    r.fraction = args.what_if;
    if (r.spec) {
        r.result = solver::solve(explain::with_worker_step_times(net, *r.spec), *solve_options);
        r.bounds = explain::training_bounds(*r.spec);
        r.breakdown = explain::step_breakdown(*r.spec, r.result);
        r.resources = explain::rank_resources(r.bounds, r.result);
        r.bottleneck =
            explain::bottleneck_sentence(r.bounds, r.resources, r.result.measures.front().mean);
    } else {
        solve_options->solver = solver::SolverKind::Sim;
        r.activity = explain::net_activity(net, *solve_options);
        r.result = r.activity->result;
    }
    if (args.what_if > 0) {
        auto compile = [&](const std::vector<std::pair<std::string, std::string>>& extra)
            -> std::optional<net::PetriNet> {
            compiler::CompileOptions o = *compile_options;
            for (const auto& e : extra) o.overrides.push_back(e);
            compiler::Diagnostics quiet;
            return compiler::compile_file(run.file, o, quiet);
        };
        solver::SolveOptions o = *solve_options;
        o.solver = solver::SolverKind::Sim;
        r.what_if = explain::what_if(model->params, compile, o, args.what_if);
    }
    for (const auto& w : r.result.warnings) std::cerr << "warning: " << w << "\n";
    if (run.format == "json") {
        std::cout << to_json(r).dump() << "\n";
    } else {
        std::ostringstream out;
        if (r.spec) {
            print_training(out, r);
            print_breakdown(out, r);
        } else {
            print_activity(out, r);
        }
        print_what_if(out, r);
        std::cout << out.str();
    }
    std::cout << std::flush;
    if (!r.result.precision_reached) {
        std::cerr << "warning: precision " << number(solve_options->precision)
                  << " not reached within --max-time " << run.max_time << "\n";
        return Status::PrecisionNotReached;
    }
    return Status::Ok;
}

bool add_explain_measures(sweep::CompiledSweep& sweep) {
    std::vector<std::vector<std::string>> names;
    for (std::size_t k = 0; k < sweep.nets.size(); ++k) {
        compiler::CompileOptions o = sweep.plan.compile;
        for (const auto& p : sweep::point_params(sweep.plan, k))
            o.overrides.emplace_back(p.name, p.value.text);
        compiler::Diagnostics diags;
        const auto model = compiler::evaluate_file(sweep.plan.model_path, o, diags);
        if (!model) {
            std::cerr << diags.render();
            return false;
        }
        if (model->training)
            sweep.nets[k] = explain::with_explain_measures(sweep.nets[k], *model->training);
        names.emplace_back();
        for (const auto& m : sweep.nets[k].measures) names.back().push_back(m.name);
    }
    std::string error;
    auto columns = sweep::sweep_measure_names(names, error);
    if (!columns) {
        std::cerr << "error: " << sweep.plan.model_path << ": " << error << "\n";
        return false;
    }
    sweep.measure_names = std::move(*columns);
    return true;
}

}  // namespace sgdnet::cli
