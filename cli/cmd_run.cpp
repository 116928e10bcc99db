// `sgdnet run FILE`: compiles, solves (simulation, exact or auto) and prints the measures.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "solver/solve.hpp"

namespace sgdnet::cli {

Status cmd_run(const RunArgs& args, Context& ctx) {
    const auto compile_options = make_compile_options(args.sets, args.granularity);
    if (!compile_options) return Status::InputError;
    const auto solve_options = make_solve_options(args);
    if (!solve_options) return Status::InputError;
    ctx.net = compile_and_report(args.file, *compile_options);
    if (!ctx.net) return Status::InputError;
    const net::PetriNet& net = *ctx.net;
    if (net.measures.empty()) {
        std::cerr << "error: " << args.file
                  << ": the model defines no measure; add `measure NAME = throughput(...)`, "
                     "`tokens(...)` or `prob(...)`\n";
        return Status::InputError;
    }

    const solver::SolveResult result = solver::solve(net, *solve_options);

    for (const auto& w : result.warnings) std::cerr << "warning: " << w << "\n";
    if (args.format == "json") {
        std::cout << format_json(net, result);
    } else if (args.format == "csv") {
        std::cout << format_csv(result);
    } else {
        std::cout << format_table(net, result, *solve_options);
    }
    std::cout << std::flush;
    if (!result.precision_reached) {
        if (!result.warnings.empty()) return Status::PrecisionNotReached;  // solver said why
        const auto& first = result.measures.front();
        std::cerr << "warning: precision " << number(solve_options->precision)
                  << " not reached within --max-time " << args.max_time << ": '" << first.name
                  << "' has relative half-width " << number(relative_half_width(first))
                  << "; results above are less precise than requested\n";
        return Status::PrecisionNotReached;
    }
    return Status::Ok;
}

}  // namespace sgdnet::cli
