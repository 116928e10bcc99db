// sgdnet::import_profile: profile/ import behind the public API.
#include "sgdnet/profile.hpp"

#include <filesystem>

#include "api/convert.hpp"
#include "profile/profile_import.hpp"
#include "sgdnet/model.hpp"

namespace sgdnet {

std::string import_profile(const std::string& path, const std::string& name) {
    frontend::Diagnostics diags;
    const auto profile = profile::load_profile(path, diags);
    if (!profile || diags.has_errors()) throw CompileError(api::diagnostics(diags), diags.render());
    const std::string table_name =
        profile::to_identifier(name.empty() ? std::filesystem::path(path).stem().string() : name);
    return profile::to_sgdnet(*profile, table_name);
}

}  // namespace sgdnet
