// Unit tests of the training-system checks: properties, kinds, sizes, "did you mean".
#include <doctest/doctest.h>

#include "compiler/check.hpp"
#include "frontend/parse.hpp"

using namespace sgdnet::compiler;

namespace {

std::string check_text(const std::string& text) {
    Diagnostics diags;
    Ast ast = parse(diags.add_source("m.sgdnet", text), diags);
    REQUIRE_MESSAGE(!diags.has_errors(), diags.render());
    Resolved r = resolve(ast, {}, "", diags);
    check(ast, r, {}, diags);
    return diags.render();
}

}  // namespace

TEST_CASE("a well-formed training system passes") {
    CHECK(check_text("param N = 4;\n"
                     "worker w[N] { compute = lognormal(mean = 120 ms, cv = 0.05);\n"
                     "  speed = i == 0 ? 0.5 : 1; bandwidth = 10 Gbps; latency = 20 us;\n"
                     "  batch = 32; }\n"
                     "training { sync = allreduce_ring; granularity = coarse;\n"
                     "  model_bytes = 44.7 MB; sharing = fifo; overlap = 0.5; }\n")
              .empty());
}

TEST_CASE("unknown properties get a suggestion; values are checked per index") {
    std::string out = check_text(
        "worker w[3] { compute = det(1 ms); bandwith = 1 Gbps; speed = 1 - i; latency = 5; }\n"
        "training { sync = ps_sinc; granularity = medium; overlap = 2; }\n");
    CHECK(out.find("unknown worker property `bandwith`; did you mean `bandwidth`?") !=
          std::string::npos);
    CHECK(out.find("`speed` must be > 0, got 0") != std::string::npos);  // i = 1
    CHECK(out.find("expected a time, got 5; did you mean 5 ms?") != std::string::npos);
    CHECK(out.find("unknown sync scheme `ps_sinc`; did you mean `ps_sync`?") != std::string::npos);
    CHECK(out.find("`granularity` must be `fine` or `coarse`, got `medium`") != std::string::npos);
    CHECK(out.find("`overlap` must be `true`, `false` or a number in [0, 1], got 2") !=
          std::string::npos);
}

TEST_CASE("array sizes must be integers in 1..1000000") {
    CHECK(check_text("worker w[0] { compute = 1 ms; }").find(
              "an array size must be in 1..1000000, got 0") != std::string::npos);
    CHECK(check_text("worker w[2.5] { compute = 1 ms; }").find(
              "an array size must be an integer, got 2.5") != std::string::npos);
    CHECK(check_text("worker w[2000000] { compute = 1 ms; }").find(
              "an array size must be in 1..1000000, got 2000000") != std::string::npos);
}

TEST_CASE("a file with nothing to solve is an error") {
    CHECK(check_text("param N = 3;").find("the file declares no net and no training system") !=
          std::string::npos);
    CHECK(check_text("").find("the file declares no net and no training system") !=
          std::string::npos);
}
