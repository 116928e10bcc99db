// The bounds of every ready-made training model (models/, examples/) at small N are at least the
// simulated steps/s: the lower end of its confidence interval never exceeds the bound.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "explain/bounds.hpp"
#include "tests/support/training_support.hpp"

using namespace sgdnet;
using namespace sgdnet::training_test;

namespace {

std::vector<std::string> model_files() {
    std::vector<std::string> out;
    for (const char* dir : {"/models", "/examples"})
        for (const auto& e :
             std::filesystem::recursive_directory_iterator(std::string(SGDNET_SOURCE_DIR) + dir))
            if (e.is_regular_file() && e.path().extension() == ".sgdnet") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("every training model: simulated steps/s <= its closed-form bound") {
    int checked = 0;
    for (const std::string& path : model_files()) {
        CAPTURE(path);
        compiler::Diagnostics diags;
        const auto plain = compiler::evaluate_file(path, {}, diags);
        INFO(diags.render());
        REQUIRE(plain.has_value());
        if (!plain->training) continue;
        compiler::CompileOptions o;
        for (const auto& p : plain->params)
            if (p.name == "N") o.overrides = {{"N", "4"}};
        const auto model = compiler::evaluate_file(path, o, diags);
        REQUIRE(model.has_value());
        const explain::Bounds b = explain::training_bounds(*model->training);
        const auto net = compiler::compile_file(path, o, diags);
        REQUIRE(net.has_value());
        solver::SolveOptions so = sim_options(0.02);
        so.max_time_s = 30;
        const auto r = solver::simulate(*net, so);
        const auto& steps = r.measures.front();
        INFO("steps_per_s " << steps.mean << " [" << steps.ci_low << ", " << steps.ci_high
                            << "], bound " << b.bound << " (" << b.binding << ")");
        CHECK(steps.name == "steps_per_s");
        CHECK(steps.ci_low <= b.bound * 1.001);
        ++checked;
    }
    CHECK(checked >= 50);  // 12 in models/, the rest in examples/
}
