// `sgdnet check FILE…`: compiles every file and prints its diagnostics; nothing else.
#include "cli/commands.hpp"

namespace sgdnet::cli {

Status cmd_check(const CheckArgs& args) {
    bool ok = true;
    for (const auto& file : args.files) {
        if (!compile_and_report(file, compiler::CompileOptions{})) ok = false;
    }
    return ok ? Status::Ok : Status::InputError;
}

}  // namespace sgdnet::cli
