// `sgdnet compile FILE --emit net|dot|pnml|json [-o OUT]`: prints the compiled net.
#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "compiler/emit.hpp"

namespace sgdnet::cli {

Status cmd_compile(const CompileArgs& args) {
    const auto options = make_compile_options(args.sets, args.granularity);
    if (!options) return Status::InputError;
    const auto net = compile_and_report(args.file, *options);
    if (!net) return Status::InputError;

    std::string text;
    if (args.emit == "dot") {
        text = compiler::emit_dot(*net);
    } else if (args.emit == "pnml") {
        text = compiler::emit_pnml(*net);
    } else if (args.emit == "json") {
        text = compiler::emit_json(*net);
    } else {
        text = net::print(*net);
    }
    if (args.output.empty() || args.output == "-") {
        std::cout << text << std::flush;
        return Status::Ok;
    }
    std::ofstream out(args.output, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
        std::cerr << "error: cannot write '" << args.output << "'\n";
        return Status::InputError;
    }
    return Status::Ok;
}

}  // namespace sgdnet::cli
