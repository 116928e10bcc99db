// `sgdnet fmt FILE [-i]`: prints the file in canonical layout (frontend/format.hpp), or with -i
// rewrites it in place; a file with syntax errors is left alone and its errors printed.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "frontend/format.hpp"

namespace sgdnet::cli {

Status cmd_fmt(const FmtArgs& args) {
    std::ifstream in(args.file, std::ios::binary);
    if (!in) {
        std::cerr << "error: cannot read '" << args.file << "': " << std::strerror(errno) << "\n";
        return Status::InputError;
    }
    std::ostringstream text;
    text << in.rdbuf();
    in.close();
    frontend::Diagnostics diags;
    const uint32_t file = diags.add_source(args.file, text.str());
    const auto formatted = frontend::format_source(file, diags);
    std::cerr << diags.render();
    if (!formatted) return Status::InputError;
    if (!args.in_place) return write_output("", *formatted);
    if (*formatted == text.str()) return Status::Ok;  // already canonical: leave the file as is
    return write_output(args.file, *formatted);
}

}  // namespace sgdnet::cli
