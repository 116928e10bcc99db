// Golden test driver: compiles one case and diffs its diagnostics or canonical net text against
// the expected file (UPDATE_GOLDEN=1 rewrites it); `--registered` lists unregistered cases.
//
//   golden_runner CAT/CASE.sgdnet CAT/CASE.expected     (run from tests/golden)
//   golden_runner --registered CAT/CASE…                (fails if a .sgdnet on disk is missing)
//
// A case may start with `// args: --set N=3 --granularity coarse` (its CompileOptions).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compile.hpp"
#include "emit/emit.hpp"
#include "net/petri_net.hpp"

namespace fs = std::filesystem;
using namespace sgdnet;

namespace {

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// Options from a first line `// args: …`; false when the line is malformed.
bool options_of(const std::string& text, compiler::CompileOptions& options, std::string& error) {
    const std::string prefix = "// args:";
    if (text.rfind(prefix, 0) != 0) return true;
    std::istringstream line(text.substr(prefix.size(), text.find('\n') - prefix.size()));
    std::string word;
    while (line >> word) {
        std::string value;
        if (!(line >> value)) {
            error = "missing value after " + word;
            return false;
        }
        if (word == "--set") {
            auto eq = value.find('=');
            if (eq == std::string::npos) {
                error = "--set needs NAME=VALUE";
                return false;
            }
            options.overrides.emplace_back(value.substr(0, eq), value.substr(eq + 1));
        } else if (word == "--granularity" && (value == "fine" || value == "coarse")) {
            options.granularity =
                value == "fine" ? compiler::Granularity::Fine : compiler::Granularity::Coarse;
        } else {
            error = "unknown argument " + word + " " + value;
            return false;
        }
    }
    return true;
}

int registered(int argc, char** argv) {
    std::set<std::string> cases;
    for (int k = 2; k < argc; ++k) cases.insert(argv[k]);
    int missing = 0;
    for (const auto& entry : fs::recursive_directory_iterator(".")) {
        if (entry.path().extension() != ".sgdnet") continue;
        fs::path rel = fs::relative(entry.path(), ".");
        std::string name = (rel.parent_path() / rel.stem()).generic_string();
        if (!cases.count(name)) {
            std::cerr << "unregistered golden case: " << name
                      << ".sgdnet (add it to its cases.cmake)\n";
            ++missing;
        }
    }
    return missing == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && std::string(argv[1]) == "--registered") return registered(argc, argv);
    if (argc != 3) {
        std::cerr << "usage: golden_runner CASE.sgdnet CASE.expected\n";
        return 2;
    }
    const std::string input = argv[1], expected_path = argv[2];
    compiler::CompileOptions options;
    std::string error;
    if (!options_of(read(input), options, error)) {
        std::cerr << input << ": bad `// args:` line: " << error << "\n";
        return 2;
    }
    frontend::Diagnostics diags;
    auto net = compiler::compile_file(input, options, diags);
    std::string actual = diags.render();
    if (net) actual += emit::to_net_text(*net);

    if (const char* update = std::getenv("UPDATE_GOLDEN"); update && std::string(update) == "1") {
        std::ofstream(expected_path, std::ios::binary) << actual;
        std::cout << "updated " << expected_path << "\n";
        return 0;
    }
    if (!fs::exists(expected_path)) {
        std::cerr << expected_path << " does not exist (run with UPDATE_GOLDEN=1); actual:\n"
                  << actual;
        return 1;
    }
    const std::string expected = read(expected_path);
    if (actual == expected) return 0;
    std::cerr << "golden mismatch for " << input << "\n--- expected\n" << expected
              << "--- actual\n" << actual;
    return 1;
}
