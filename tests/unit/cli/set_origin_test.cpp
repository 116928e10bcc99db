// Unit tests of diagnostics named by their origin on the command line (cli/set_origin.hpp): an
// error a --set value causes is reported as `error: --set NAME=VALUE: …` with a note in the file.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli/set_origin.hpp"
#include "compiler/compile.hpp"

using namespace sgdnet;

namespace {

const char* const kTraining = R"(model m;
param N = 4;
param bw = 10 Gbps;
worker w[N] { compute = det(100 ms); bandwidth = bw; latency = 25 us; }
training { sync = allreduce_ring; granularity = coarse; model_bytes = 100 MB; }
)";

/// Compiles `text` as m.sgdnet with `sets` as --set NAME=VALUE and renders its diagnostics by
/// origin; `point` as OriginRenderer::render takes it; `fixed` overrides come first, as --fix.
std::string rendered(const std::string& text,
                     const std::vector<std::pair<std::string, std::string>>& sets,
                     const std::string& point = "",
                     const std::vector<std::pair<std::string, std::string>>& fixed = {}) {
    auto compile = [text](const compiler::CompileOptions& o, frontend::Diagnostics& d) {
        compiler::compile(text, "m.sgdnet", o, d);
    };
    compiler::CompileOptions options;
    options.overrides = fixed;
    for (const auto& s : sets) options.overrides.push_back(s);
    frontend::Diagnostics diags;
    compile(options, diags);
    cli::OriginRenderer renderer(compile, options);
    auto origins = cli::origins_of("--fix", fixed);
    for (const auto& o : cli::origins_of("--set", sets)) origins.push_back(o);
    return renderer.render(diags, origins, point);
}

}  // namespace

TEST_CASE("a value out of the bounds of its use: the option, then a note where it is used") {
    CHECK(rendered(kTraining, {{"bw", "-25Gbps"}}) ==
          "error: --set bw=-25Gbps: `bandwidth` must be > 0, got -25 Gbps\n"
          "m.sgdnet:4:50: note: the value of `bw` is used here\n"
          "  worker w[N] { compute = det(100 ms); bandwidth = bw; latency = 25 us; }\n"
          "                                                   ^\n");
}

TEST_CASE("a value of the wrong dimension") {
    CHECK(rendered(kTraining, {{"bw", "3 ms"}}) ==
          "error: --set bw=3 ms: expected a rate, got a time (3 ms)\n"
          "m.sgdnet:4:50: note: the value of `bw` is used here\n"
          "  worker w[N] { compute = det(100 ms); bandwidth = bw; latency = 25 us; }\n"
          "                                                   ^\n");
}

TEST_CASE("bad syntax in a value: a caret under the column of the option") {
    CHECK(rendered(kTraining, {{"bw", "25Gbbps"}}) ==
          "error: --set bw=25Gbbps: unknown unit 'Gbbps' (units are listed in docs/language.md "
          "§3)\n"
          "  --set bw=25Gbbps\n"
          "             ^\n");
    CHECK(rendered(kTraining, {{"bw", "25 +"}}) ==
          "error: --set bw=25 +: expected an expression, found the end of the value\n"
          "  --set bw=25 +\n"
          "               ^\n");
}

TEST_CASE("an unknown NAME") {
    CHECK(rendered(kTraining, {{"bww", "3"}}) ==
          "error: --set bww=3: unknown param `bww`; did you mean `bw`?\n");
}

TEST_CASE("several overrides: each error is the one's that causes it alone, or all of theirs") {
    const char* const two = R"(model m;
param lat = 25 us;
param bw = 10 Gbps;
worker w[4] { compute = det(100 ms); bandwidth = bw; latency = lat; }
training { sync = allreduce_ring; granularity = coarse; model_bytes = 100 MB; }
)";
    const std::string both = rendered(two, {{"lat", "-1us"}, {"bw", "-1Gbps"}, {"lat", "2us"}});
    CHECK(both.find("error: --set bw=-1Gbps: `bandwidth` must be > 0, got -1 Gbps\n"
                    "m.sgdnet:4:50: note: the value of `bw` is used here\n") !=
          std::string::npos);
    CHECK(both.find("`latency`") == std::string::npos);  // the last --set lat wins
    const std::string each = rendered(two, {{"lat", "-1us"}, {"bw", "-1Gbps"}});
    CHECK(each.find("error: --set lat=-1us: `latency` must be >= 0, got -1 us\n") !=
          std::string::npos);
    CHECK(each.find("error: --set bw=-1Gbps: `bandwidth` must be > 0") != std::string::npos);
    const char* const diff = R"(param a = 3 ms;
param b = 1 ms;
net n { place p = 1; transition t ~ det(a - b) { in p; out p; } }
measure thr = throughput(n.t);
)";
    CHECK(rendered(diff, {{"a", "1ms"}, {"b", "2ms"}}).starts_with(
        "error: --set a=1ms, --set b=2ms: `value` of `det` must be >= 0, got -1 ms\n"
        "m.sgdnet:3:41: note: the values of `a` and `b` are used here\n"));
}

TEST_CASE("the file's own errors keep their place; only new errors are the option's") {
    const char* const own = R"(model m;
param bw = 10 Gbps;
worker w[4] { compute = det(100 ms); bandwidth = bw; latency = -5 us; }
training { sync = allreduce_ring; granularity = coarse; model_bytes = 100 MB; }
)";
    const std::string out = rendered(own, {{"bw", "-25Gbps"}});
    CHECK(out.find("error: --set bw=-25Gbps: `bandwidth` must be > 0") != std::string::npos);
    CHECK(out.find("m.sgdnet:3:64: error: `latency` must be >= 0, got -5 us\n") !=
          std::string::npos);
}

TEST_CASE("in a sweep: a swept value's error names the point, a fixed value's does not") {
    CHECK(rendered(kTraining, {{"bw", "-25Gbps"}}, "N=3, bw=-25 Gbps", {{"N", "3"}})
              .starts_with("error: --set bw=-25Gbps (at sweep point N=3, bw=-25 Gbps): "
                           "`bandwidth` must be > 0, got -25 Gbps\n"));
    CHECK(rendered(kTraining, {{"bw", "1Gbps"}}, "bw=1 Gbps", {{"N", "0"}})
              .starts_with("error: --fix N=0: an array size must be in 1..1000000, got 0\n"));
}

TEST_CASE("no errors: warnings as the compiler renders them") {
    CHECK(rendered(kTraining, {{"bw", "25Gbps"}}).empty());
}
