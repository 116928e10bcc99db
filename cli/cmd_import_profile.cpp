// `sgdnet import-profile PROFILE.json [-o LAYERS.sgdnet] [--name NAME]`: a one-node PyTorch
// profile (per-layer JSON or profiler trace) → a `layers` table in the language.
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "profile/profile_import.hpp"

namespace sgdnet::cli {

Status cmd_import_profile(const ImportProfileArgs& args) {
    frontend::Diagnostics diags;
    const auto profile = profile::load_profile(args.file, diags);
    std::cerr << diags.render();
    if (!profile) return Status::InputError;
    const std::string name = profile::to_identifier(
        args.name.empty() ? std::filesystem::path(args.file).stem().string() : args.name);
    const std::string text = profile::to_sgdnet(*profile, name);
    return write_output(args.output, text);
}

}  // namespace sgdnet::cli
