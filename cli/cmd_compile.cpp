// `sgdnet compile FILE --emit net|dot|pnml|json [-o OUT]`: prints the compiled net.

#include "cli/commands.hpp"
#include "emit/emit.hpp"
#include "compiler/net_statistics.hpp"

namespace sgdnet::cli {
namespace {

// Inserts the statistics lines (the fine net's size, for a coarse training model) after the size
// line, the second line of the canonical text.
std::string with_statistics(std::string text, const compiler::NetStatistics& stats) {
    const auto first = text.find('\n');
    const auto second = first == std::string::npos ? first : text.find('\n', first + 1);
    if (second == std::string::npos) return text;
    std::string extra;
    for (const auto& line : stats.lines()) extra += line + "\n";
    text.insert(second + 1, extra);
    return text;
}

}  // namespace

Status cmd_compile(const CompileArgs& args) {
    const auto options = make_compile_options(args.sets, args.granularity);
    if (!options) return Status::InputError;
    const auto net = compile_and_report(args.file, *options);
    if (!net) return Status::InputError;

    std::string text;
    if (args.emit == "dot") {
        text = emit::to_dot(*net);
    } else if (args.emit == "pnml") {
        text = emit::to_pnml(*net);
    } else if (args.emit == "json") {
        text = emit::to_json(*net);
    } else {
        text = with_statistics(emit::to_net_text(*net),
                               compiler::net_statistics_file(*net, args.file, *options));
    }
    return write_output(args.output, text);
}

}  // namespace sgdnet::cli
