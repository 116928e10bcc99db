// Unit tests of the canonical layout (frontend/format.hpp): spacing, line breaks, blank lines,
// comments, idempotence, and files that do not parse.
#include <optional>
#include <string>

#include <doctest/doctest.h>

#include "frontend/diagnostics.hpp"
#include "frontend/format.hpp"

using namespace sgdnet::frontend;

namespace {

std::optional<std::string> fmt(const std::string& text, std::string* rendered = nullptr) {
    Diagnostics diags;
    const uint32_t f = diags.add_source("t.sgdnet", text);
    auto out = format_source(f, diags);
    if (rendered) *rendered = diags.render();
    return out;
}

/// Formats `text`, checks that formatting the result changes nothing, and returns it.
std::string canonical(const std::string& text) {
    auto once = fmt(text);
    REQUIRE(once);
    auto twice = fmt(*once);
    REQUIRE(twice);
    CHECK(*twice == *once);
    return *once;
}

}  // namespace

TEST_CASE("spaces around operators and `=`, none inside brackets, unary and `.`") {
    CHECK(canonical("param   x=-(1+2)*3^-2 ;") == "param x = -(1 + 2) * 3 ^ -2;\n");
    CHECK(canonical("let y = !true||x<=2?min( 1 ,2 ):-x;") ==
          "let y = !true || x <= 2 ? min(1, 2) : -x;\n");
    CHECK(canonical("param d=mixture(0.3:det(1 ms),0.7 : exp(mean=2 ms));") ==
          "param d = mixture(0.3: det(1 ms), 0.7: exp(mean = 2 ms));\n");
    CHECK(canonical("measure m=sum( throughput(w[ * ] . compute) )-tokens(n.q[K-1]);") ==
          "measure m = sum(throughput(w[*].compute)) - tokens(n.q[K - 1]);\n");
    // Numbers with units are kept as written.
    CHECK(canonical("param a=25MB;param b = 2 /s;") == "param a = 25MB;\nparam b = 2 /s;\n");
}

TEST_CASE("blocks: 4-space indent, one item per line, arcs with tight multiplicities") {
    const std::string in =
        "net n{param K=2;place q[K]=1 bound 3;\n"
        "transition t[j in 0..K-1]~exp(mean=1 ms) priority 2{in q[j] * 2,q[0];out q[(j+1)%K];}\n"
        "immediate e{};}\n"
        "layers l{a:fwd=det(1 ms),bwd=det(2 ms),bytes=1 KB;\"b.c\":fwd=det(1 ms),bwd=det(1 ms),bytes=2 KB;}";
    CHECK(canonical(in) ==
          "net n {\n"
          "    param K = 2;\n"
          "    place q[K] = 1 bound 3;\n"
          "    transition t[j in 0..K - 1] ~ exp(mean = 1 ms) priority 2 {\n"
          "        in q[j]*2, q[0];\n"
          "        out q[(j + 1) % K];\n"
          "    }\n"
          "    immediate e {};\n"
          "}\n"
          "\n"
          "layers l {\n"
          "    a: fwd = det(1 ms), bwd = det(2 ms), bytes = 1 KB;\n"
          "    \"b.c\": fwd = det(1 ms), bwd = det(1 ms), bytes = 2 KB;\n"
          "}\n");
}

TEST_CASE("blank lines: between declarations; one-line declarations written together stay so") {
    const std::string in =
        "model m;\nparam a = 1;\nparam b = 2;\n\n\n\nparam c = 3;\n"
        "worker w { compute = det(1 ms);\n\n\n    batch = 2; }\nmeasure x = tokens(n.p);";
    CHECK(canonical(in) ==
          "model m;\nparam a = 1;\nparam b = 2;\n\nparam c = 3;\n\n"
          "worker w {\n    compute = det(1 ms);\n\n    batch = 2;\n}\n\n"
          "measure x = tokens(n.p);\n");
}

TEST_CASE("comments stay where they are") {
    const std::string in =
        "// head\n\n/* block\n   two lines */\nparam a=1; // trailing\n"
        "worker w { // opens\n  // own line\n  compute = det(/* inline */ 1 ms);\n}  // after\n"
        "param b = 1 + // split\n 2;\n// last";
    CHECK(canonical(in) ==
          "// head\n\n/* block\n   two lines */\nparam a = 1;  // trailing\n\n"
          "worker w {  // opens\n    // own line\n    compute = det(/* inline */ 1 ms);\n}  // after\n\n"
          "param b = 1 +  // split\n    2;\n// last\n");
}

TEST_CASE("a file that does not parse is not formatted; an empty file stays empty") {
    std::string rendered;
    CHECK_FALSE(fmt("param a = ;\n", &rendered));
    CHECK(rendered.find("t.sgdnet:1:11: error: expected an expression, found ';'") !=
          std::string::npos);
    CHECK(canonical("") == "");
    CHECK(canonical("  // only a comment\n") == "// only a comment\n");
}
