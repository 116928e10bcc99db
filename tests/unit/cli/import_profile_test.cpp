// Unit tests of `sgdnet import-profile`: the file it writes for profiles with and without a
// `comm_probe` object, and that a model using its `let`s compiles.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/commands.hpp"
#include "compiler/compile.hpp"

using namespace sgdnet;

namespace {

std::string profile_path(const std::string& name) {
    return std::string(SGDNET_TEST_DATA_DIR) + "/profiles/" + name;
}

/// Runs `import-profile FILE -o OUT --name mlp` into a temporary file and returns its text.
std::string import_text(const std::string& profile) {
    const auto out = std::filesystem::temp_directory_path() / "sgdnet_import_profile_test.sgdnet";
    cli::ImportProfileArgs args{profile_path(profile), out.string(), "mlp"};
    REQUIRE(cli::cmd_import_profile(args) == cli::Status::Ok);
    std::ifstream in(out);
    std::ostringstream text;
    text << in.rdbuf();
    std::filesystem::remove(out);
    return text.str();
}

}  // namespace

TEST_CASE("import-profile: a comm_probe object adds the lets a model's hosts and messages use") {
    const std::string text = import_text("mlp_comm_layers.json");
    CAPTURE(text);
    CHECK(text.find("let mlp_message_overhead = 120 us;") != std::string::npos);
    CHECK(text.find("let mlp_comm_cpu = 0.6 ns / 1 B;") != std::string::npos);
    CHECK(text.find("let mlp_cores = 2;") != std::string::npos);
    CHECK(text.find("let mlp_buffers = 136864 B;") != std::string::npos);
    const std::string model = text +
                              "host h[2] { cores = mlp_cores; }\n"
                              "worker w[2] { layers = mlp; update = mlp_update; host = h[i]; }\n"
                              "training { sync = allreduce_ring; message_overhead = "
                              "mlp_message_overhead; comm_cpu = mlp_comm_cpu; "
                              "buffers = mlp_buffers; }\n";
    frontend::Diagnostics diags;
    CHECK_MESSAGE(compiler::compile(model, "m.sgdnet", {}, diags), diags.render());
    CHECK_FALSE(diags.has_errors());
}

TEST_CASE("import-profile: without a comm_probe object, no communication lets") {
    const std::string text = import_text("mlp_layers.json");
    CHECK(text.find("let mlp_compute = ") != std::string::npos);
    CHECK(text.find("mlp_message_overhead") == std::string::npos);
    CHECK(text.find("mlp_comm_cpu") == std::string::npos);
    CHECK(text.find("mlp_cores") == std::string::npos);
}
