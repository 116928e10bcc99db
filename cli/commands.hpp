// Arguments and entry points of the `sgdnet` subcommands (docs/language.md §7), shared by main.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/compile.hpp"
#include "net/petri_net.hpp"
#include "solver/solve_options.hpp"
#include "sweep/sweep_run.hpp"

namespace sgdnet::cli {

/// What a subcommand reports to main.cpp, which alone maps it to an exit code.
enum class Status {
    Ok,                   // exit 0
    InputError,           // exit 2: usage, syntax, semantics, unreadable file (already printed)
    PrecisionNotReached,  // exit 4: results printed, warning printed
    Interrupted,          // exit 130: SIGINT during a sweep; finished rows kept
};

/// State main.cpp keeps for its error messages: the net being solved, to point a SolveError at
/// the source of the place or transition it names.
struct Context {
    std::optional<net::PetriNet> net;
    /// An MPI sweep was interrupted with points in progress on other ranks, which mpirun is
    /// killing: end the process with the exit code at once (no MPI_Finalize, no destructors).
    bool end_at_once = false;
};

struct CheckArgs {
    std::vector<std::string> files;
};

struct CompileArgs {
    std::string file;
    std::string emit = "net";  // net | dot | pnml | json
    std::string output;        // "" = stdout
    std::vector<std::string> sets;
    std::string granularity;   // "" | fine | coarse
};

/// Every option of `run`; `sweep` reuses them for each point.
struct RunArgs {
    std::string file;
    std::vector<std::string> sets;
    std::string granularity;
    std::string solver = "sim";  // sim | exact | auto
    double precision = 0.01;
    double confidence = 0.95;
    uint64_t seed = 1;
    unsigned threads = 0;
    std::string max_time = "60s";
    uint64_t max_states = 5'000'000;
    bool phase_type = false;
    std::string arith = "double";  // double | mp
    std::string format = "table";  // table | json | csv
};

/// `sweep`: the run options (run.sets are fixed overrides) plus the swept ranges.
struct SweepArgs {
    RunArgs run;                      // run.format: csv | jsonl
    std::vector<std::string> ranges;  // NAME=RANGE
    bool zip = false;
    std::string output;               // "" = stdout
    std::string plot;                 // OUT.svg | OUT.png
    std::vector<std::string> plot_measures;  // measures --plot draws; empty = the first
    bool resume = false;
    bool quiet = false;
    std::string shard;                // "" | I/K: solve every K-th point, write a part
    bool explain = false;             // bounds and step-time columns (docs/explain.md)
};

/// `merge`: the parts of a sharded sweep into the file the whole sweep writes.
struct MergeArgs {
    std::vector<std::string> parts;
    std::string output;  // "" = stdout
};

/// `explain`: the run options (format text | json) and the what-if change.
struct ExplainArgs {
    RunArgs run;
    double what_if = 0.1;  // ± this fraction of each param; 0: no what-if table
    bool bounds_only = false;  // the closed forms alone: no net, no simulation
};

struct ImportProfileArgs {
    std::string file;
    std::string output;  // "" = stdout
    std::string name;    // layer table name; "" = the file's stem
};

/// `fmt`: the file in canonical layout, on stdout or (in_place) back into the file.
struct FmtArgs {
    std::string file;
    bool in_place = false;
};

Status cmd_check(const CheckArgs& args);
Status cmd_fmt(const FmtArgs& args);
Status cmd_compile(const CompileArgs& args);
/// Compiles and solves; stores the net in ctx before solving. Throws solver::SolveError.
Status cmd_run(const RunArgs& args, Context& ctx);
Status cmd_import_profile(const ImportProfileArgs& args);
/// Solves every point (the engine in sweep/); throws the solver::SolveError of the first failing
/// point, in point order, after the others finished and the rows before it were written.
Status cmd_sweep(const SweepArgs& args, Context& ctx);
/// Checks that the parts are the whole of one sweep (exit 2 with the reason otherwise) and writes
/// the file the unsharded sweep writes.
Status cmd_merge(const MergeArgs& args);
/// Solves the model once (and twice per param for the what-if table) and prints its bounds,
/// resources, bottleneck and sensitivities (docs/explain.md). Throws solver::SolveError.
Status cmd_explain(const ExplainArgs& args, Context& ctx);
/// `sweep --explain`: adds to every training point's net the measures of
/// explain::with_explain_measures (its spec evaluated at that point) and recomputes the
/// sweep's columns. Prints the error and returns false when a point cannot be evaluated.
bool add_explain_measures(sweep::CompiledSweep& sweep);

// Helpers shared by the subcommands (cli/common.cpp). Each prints `error: …` to stderr and
// returns nullopt on bad input.

/// Splits `NAME=VALUE` pairs of --set.
std::optional<std::vector<std::pair<std::string, std::string>>> parse_sets(
    const std::vector<std::string>& sets);
/// A duration with a time unit (`30s`, `2 min`, `500 ms`) or a bare number of seconds.
std::optional<double> parse_duration(const std::string& text);
/// CompileOptions from --set and --granularity.
std::optional<compiler::CompileOptions> make_compile_options(
    const std::vector<std::string>& sets, const std::string& granularity);
/// SolveOptions from the run options.
std::optional<solver::SolveOptions> make_solve_options(const RunArgs& args);
/// Compiles `file`, printing its diagnostics (errors and warnings) to stderr as rendered, an error
/// that a --set value causes as `error: --set NAME=VALUE: …` (cli/set_origin.hpp).
std::optional<net::PetriNet> compile_and_report(const std::string& file,
                                                const compiler::CompileOptions& options);
/// Seconds as `HH:MM:SS` (progress lines).
std::string hms(double s);
/// The progress line of `run` on a terminal: after the simulator's last report `p`,
/// `simulating: half-width 3.2% (target 1%), 1.5 M events/s, 00:00:04 elapsed`; before the
/// first (or for the exact solver), `solving: 00:00:02 elapsed`.
std::string progress_line(const solver::SimProgress* p, double elapsed_s);
/// A swept value for people: as written in a list (`10Gbps`), readable when made from a range
/// (`10 Gbps`, not `1250000000 B/s`), as is for a number (`3`).
std::string shown_value(const sweep::SweepPlan& plan, const sweep::PointParam& p);
/// Point `k` of `plan` for people: `N=2, bw=10 Gbps` (progress lines, messages).
std::string point_label(const sweep::SweepPlan& plan, std::size_t k);
/// A point's key: its swept canonical values, `2,1250000000` (--resume, merge).
std::string point_key(const std::vector<sweep::PointParam>& params);
/// Writes `text` to `path` (stdout when `path` is "" or "-"); an unwritable file is an input
/// error, reported on stderr.
Status write_output(const std::string& path, const std::string& text);

}  // namespace sgdnet::cli
