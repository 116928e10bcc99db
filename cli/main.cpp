// The `sgdnet` command (docs/language.md §7): CLI11 subcommands; the only catch site and the only place
// that chooses exit codes (0 ok, 2 input wrong, 3 model cannot be solved, 4 precision not reached).
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "solver/solve_result.hpp"

#ifndef SGDNET_VERSION
#define SGDNET_VERSION "0"
#endif

namespace {

using namespace sgdnet::cli;

constexpr int kExitOk = 0;
constexpr int kExitInternal = 1;
constexpr int kExitInput = 2;
constexpr int kExitUnsolvable = 3;
constexpr int kExitPrecision = 4;
constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it

int exit_code(Status s) {
    switch (s) {
        case Status::Ok: return kExitOk;
        case Status::InputError: return kExitInput;
        case Status::PrecisionNotReached: return kExitPrecision;
        case Status::Interrupted: return kExitInterrupted;
    }
    return kExitInternal;
}

/// The exit code once standard output is flushed: a failed write (a full disk, a closed output)
/// is an error like an unwritable `-o` file (exit 2), even when the command itself succeeded.
int with_output_flushed(int code) {
    std::cout.flush();
    if (std::cout) return code;
    std::cerr << "error: cannot write to standard output (disk full, or the output closed)\n";
    return code == kExitOk || code == kExitPrecision ? kExitInput : code;
}

/// `FILE:LINE:COL: note: …` pointing at the net element a SolveError names, when known.
void print_solve_error_notes(const sgdnet::solver::SolveError& e, const Context& ctx) {
    if (!ctx.net) return;
    const auto& net = *ctx.net;
    auto note = [&](const sgdnet::net::SourceRange& where, const std::string& what) {
        if (!where.valid()) return;
        const std::string file = where.file < net.files.size() ? net.files[where.file] : "?";
        std::cerr << file << ":" << where.begin.line << ":" << where.begin.col << ": note: "
                  << what << " is declared here\n";
    };
    if (e.place() && *e.place() < net.places.size()) {
        const auto& p = net.places[*e.place()];
        note(p.where, "place '" + p.name + "'");
    }
    if (e.transition() && *e.transition() < net.transitions.size()) {
        const auto& t = net.transitions[*e.transition()];
        note(t.where, "transition '" + t.name + "'");
    }
}

void add_solve_options(CLI::App* cmd, RunArgs& a, bool with_set = true) {
    if (with_set) {
        cmd->add_option("--set", a.sets,
                        "Override a param: NAME=VALUE (units allowed, e.g. bw=25Gbps)")
            ->allow_extra_args(false);
    }
    cmd->add_option("--granularity", a.granularity, "Override the training granularity")
        ->check(CLI::IsMember({"fine", "coarse"}));
    cmd->add_option("--solver", a.solver, "sim (Monte Carlo), exact (CTMC) or auto")
        ->check(CLI::IsMember({"sim", "exact", "auto"}))
        ->capture_default_str();
    cmd->add_option("--precision", a.precision,
                    "Stop when the CI relative half-width of the first measure is at most this")
        ->check(CLI::Range(1e-9, 1.0))
        ->capture_default_str();
    cmd->add_option("--confidence", a.confidence, "Confidence level of the intervals")
        ->check(CLI::Range(0.5, 0.999999))
        ->capture_default_str();
    cmd->add_option("--seed", a.seed, "Random seed (same seed, same numbers)")
        ->capture_default_str();
    cmd->add_option("--threads", a.threads, "Worker threads (0 = every core)")
        ->capture_default_str();
    cmd->add_option("--max-time", a.max_time,
                    "Wall-clock budget of the simulation, with a unit (30s, 2 min)")
        ->capture_default_str();
    cmd->add_option("--max-states", a.max_states, "Largest state space of the exact solver")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    cmd->add_flag("--phase-type", a.phase_type,
                  "Exact solver: replace non-exponential delays by moment-matched phase types");
    cmd->add_option("--arith", a.arith, "Exact solver arithmetic: double or mp (multiprecision)")
        ->check(CLI::IsMember({"double", "mp"}))
        ->capture_default_str();
}

/// The `compile` subcommand: FILE, --emit, -o, --set, --granularity.
CLI::App* add_compile(CLI::App& app, CompileArgs& a) {
    auto* compile = app.add_subcommand("compile", "Compile a model and print its Petri net");
    compile->add_option("FILE", a.file, "Model file (.sgdnet)")->required();
    compile->add_option("--emit", a.emit, "Output form: net, dot, pnml or json")
        ->check(CLI::IsMember({"net", "dot", "pnml", "json"}))
        ->capture_default_str();
    compile->add_option("-o,--output", a.output, "Write to this file (default stdout)");
    compile->add_option("--set", a.sets, "Override a param: NAME=VALUE")->allow_extra_args(false);
    compile->add_option("--granularity", a.granularity, "Override the training granularity")
        ->check(CLI::IsMember({"fine", "coarse"}));
    return compile;
}

/// The `fmt` subcommand: FILE and -i.
CLI::App* add_fmt(CLI::App& app, FmtArgs& a) {
    auto* fmt = app.add_subcommand("fmt", "Print a model file in canonical layout");
    fmt->add_option("FILE", a.file, "Model file (.sgdnet)")->required();
    fmt->add_flag("-i,--in-place", a.in_place, "Rewrite the file instead of printing it");
    return fmt;
}

/// The `explain` subcommand: the run options, --format text|json and --what-if.
CLI::App* add_explain(CLI::App& app, ExplainArgs& a) {
    a.run.format = "text";
    auto* explain = app.add_subcommand(
        "explain", "Why a model runs as fast as it does: bounds, bottleneck, what-if (docs/explain.md)");
    explain->add_option("FILE", a.run.file, "Model file (.sgdnet)")->required();
    add_solve_options(explain, a.run);
    explain->add_option("--format", a.run.format, "Output: text or json")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    explain->add_option("--what-if", a.what_if,
                        "Relative change of each param for the what-if table (0: none)")
        ->check(CLI::Range(0.0, 0.9))
        ->capture_default_str();
    explain->add_flag("--bounds-only", a.bounds_only,
                      "Only the closed-form bounds: no net is built or solved (any N)");
    return explain;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"sgdnet: models of distributed SGD training compiled to stochastic timed Petri "
                 "nets, solved by simulation or exactly.",
                 "sgdnet"};
    app.set_version_flag("--version", std::string("sgdnet ") + SGDNET_VERSION);
    app.require_subcommand(1);
    app.footer("Exit codes: 0 ok, 2 input wrong, 3 model cannot be solved, 4 precision not "
               "reached. See docs/cli.md.");

    CheckArgs check_args;
    auto* check = app.add_subcommand("check", "Compile files and print their diagnostics only");
    check->add_option("FILE", check_args.files, "Model files (.sgdnet)")->required();

    CompileArgs compile_args;
    auto* compile = add_compile(app, compile_args);

    RunArgs run_args;
    auto* run = app.add_subcommand("run", "Compile a model and solve its steady-state measures");
    run->add_option("FILE", run_args.file, "Model file (.sgdnet)")->required();
    add_solve_options(run, run_args);
    run->add_option("--format", run_args.format, "Output: table, json or csv")
        ->check(CLI::IsMember({"table", "json", "csv"}))
        ->capture_default_str();

    ImportProfileArgs import_args;
    auto* import_profile = app.add_subcommand(
        "import-profile", "Turn a PyTorch profile (layer JSON or profiler trace) into a layer table");
    import_profile->add_option("PROFILE", import_args.file, "Profile file (.json)")->required();
    import_profile->add_option("-o,--output", import_args.output,
                               "Write to this file (default stdout)");
    import_profile->add_option("--name", import_args.name,
                               "Name of the layer table (default: the file's stem)");

    SweepArgs sweep_args;
    sweep_args.run.format = "csv";
    auto* sweep = app.add_subcommand(
        "sweep", "Solve a model over a grid of params, one CSV/JSON-lines row per point");
    sweep->add_option("FILE", sweep_args.run.file, "Model file (.sgdnet)")->required();
    sweep->add_option("--set", sweep_args.ranges,
                      "Swept param: NAME=RANGE (1..16, 1..64:x2, 1ms..5ms:+1ms, 1Gbps,10Gbps)")
        ->allow_extra_args(false)
        ->required();
    sweep->add_option("--fix", sweep_args.run.sets, "Fixed override NAME=VALUE for every point")
        ->allow_extra_args(false);
    add_solve_options(sweep, sweep_args.run, /*with_set=*/false);
    sweep->add_flag("--explain", sweep_args.explain, "Add bound and step-time columns (docs/explain.md)");
    sweep->add_flag("--zip", sweep_args.zip, "Pair the ranges element by element (not a grid)");
    sweep->add_option("-o,--output", sweep_args.output, "Write rows to this file (default stdout)");
    sweep->add_option("--plot", sweep_args.plot,
                      "Plot the first measure (or those of --plot-measure) against the first "
                      "swept param (gnuplot; .svg/.png)");
    sweep->add_option("--plot-measure", sweep_args.plot_measures,
                      "A measure --plot draws, in a panel of its own (repeatable; default: the "
                      "first measure)")
        ->allow_extra_args(false);
    sweep->add_flag("--resume", sweep_args.resume, "Skip points whose row is already in -o FILE");
    sweep->add_flag("-q,--quiet", sweep_args.quiet, "No progress on stderr");
    sweep->add_option("--format", sweep_args.run.format, "Output: csv or jsonl")
        ->check(CLI::IsMember({"csv", "jsonl"}))
        ->capture_default_str();
    sweep->add_option("--shard", sweep_args.shard,
                      "Solve part I of K (every K-th point) into a part file for `merge`");

    MergeArgs merge_args;
    auto* merge = app.add_subcommand(
        "merge", "Merge the parts of a sweep run with --shard I/K into the whole sweep's file");
    merge->add_option("PART", merge_args.parts, "Part files (sweep --shard I/K -o PART)")
        ->required();
    merge->add_option("-o,--output", merge_args.output, "Write to this file (default stdout)");

    ExplainArgs explain_args;
    auto* explain = add_explain(app, explain_args);

    FmtArgs fmt_args;
    auto* fmt = add_fmt(app, fmt_args);

    for (auto* sub : {check, compile, run, import_profile, sweep, merge, explain, fmt}) {
        sub->set_version_flag("--version", std::string("sgdnet ") + SGDNET_VERSION);
    }

    Context ctx;
    try {
        app.parse(argc, argv);
        if (*check) return with_output_flushed(exit_code(cmd_check(check_args)));
        if (*compile) return with_output_flushed(exit_code(cmd_compile(compile_args)));
        if (*run) return with_output_flushed(exit_code(cmd_run(run_args, ctx)));
        if (*import_profile) return with_output_flushed(exit_code(cmd_import_profile(import_args)));
        if (*sweep) {
            const int code = with_output_flushed(exit_code(cmd_sweep(sweep_args, ctx)));
            if (ctx.end_at_once) {
                std::cout.flush();
                std::cerr.flush();
                std::_Exit(code);
            }
            return code;
        }
        if (*merge) return with_output_flushed(exit_code(cmd_merge(merge_args)));
        if (*explain) return with_output_flushed(exit_code(cmd_explain(explain_args, ctx)));
        if (*fmt) return with_output_flushed(exit_code(cmd_fmt(fmt_args)));
        return kExitInput;
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);  // prints help, version or the usage error
        return code == 0 ? kExitOk : kExitInput;
    } catch (const sgdnet::solver::SolveError& e) {
        std::cerr << "error: " << e.what() << "\n";
        print_solve_error_notes(e, ctx);
        return kExitUnsolvable;
    } catch (const std::exception& e) {
        std::cerr << "error: internal: " << e.what() << "\n";
        return kExitInternal;
    }
}
