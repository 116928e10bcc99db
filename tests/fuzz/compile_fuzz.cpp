// libFuzzer target: arbitrary bytes through the whole compiler (parse, resolve, check, lowering at both granularities) and the net printer; every input must end in a net or in diagnostics, never in a crash, a sanitizer report, a leak or a hang.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "compiler/compile.hpp"
#include "emit/emit.hpp"

namespace {

/// Inputs that name device or process files (`profile("/dev/zero")`) could read forever; every
/// other path in a file resolves against a folder that does not exist.
bool reads_special_files(std::string_view text) {
    for (std::string_view bad : {"/dev", "/proc", "/sys"}) {
        if (text.find(bad) != std::string_view::npos) return true;
    }
    return false;
}

void compile_once(std::string_view text, const sgdnet::compiler::CompileOptions& options) {
    sgdnet::compiler::Diagnostics diags;
    auto net = sgdnet::compiler::compile(text, "/nonexistent-folder/fuzz.sgdnet", options, diags);
    (void)diags.render();
    if (net && diags.has_errors()) __builtin_trap();  // a net comes only without errors
    if (net) (void)sgdnet::emit::to_net_text(*net);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (reads_special_files(text)) return -1;  // not kept in the corpus
    compile_once(text, {});
    // The granularity is read only for workers: without the keyword the coarse compile would
    // repeat the first one exactly (it is four fifths of the inputs of a run).
    if (text.find("worker") == std::string_view::npos) return 0;
    sgdnet::compiler::CompileOptions coarse;
    coarse.granularity = sgdnet::training::Granularity::Coarse;
    compile_once(text, coarse);
    return 0;
}
