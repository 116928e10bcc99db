// Unit tests of name resolution: params, lets, --set overrides, cycles, duplicates.
#include <doctest/doctest.h>

#include "frontend/parse.hpp"
#include "compiler/resolve.hpp"

using namespace sgdnet::compiler;

namespace {

struct Run {
    Diagnostics diags;
    Ast ast;
    Resolved resolved;
    Run(const std::string& text, CompileOptions options = {}) {
        ast = parse(diags.add_source("m.sgdnet", text), diags);
        REQUIRE_MESSAGE(!diags.has_errors(), diags.render());
        resolved = resolve(ast, options, "", diags);
    }
    double number(const std::string& name) {
        const auto* v = resolved.scope.find(name);
        REQUIRE(v);
        REQUIRE(*v);
        return std::get<Quantity>(**v).value;
    }
    bool says(const std::string& message) const {
        return diags.render().find(message) != std::string::npos;
    }
};

}  // namespace

TEST_CASE("params and lets evaluate in dependency order") {
    Run r("let t = bytes / bw; param bytes = 44.7 MB; param bw = 10 Gbps;");
    CHECK_FALSE(r.diags.has_errors());
    CHECK(r.number("t") == doctest::Approx(0.03576));  // 44.7e6 B / 1.25e9 B/s
    REQUIRE(r.resolved.params.size() == 2);            // params only, declaration order
    CHECK(r.resolved.params[0].name == "bytes");
    CHECK(r.resolved.params[1].value == 1.25e9);
}

TEST_CASE("--set overrides a param with a value in the language's syntax") {
    CompileOptions o;
    o.overrides = {{"bw", "25Gbps"}, {"N", "2 * 8"}};
    Run r("param N = 8; param bw = 10 Gbps; let per = bw / N;", o);
    CHECK_FALSE(r.diags.has_errors());
    CHECK(r.number("N") == 16);
    CHECK(r.number("per") == doctest::Approx(25e9 / 8 / 16));
}

TEST_CASE("--set NAME of a net-local param: unqualified when exactly one net declares it") {
    const std::string text = "param N = 1;\nnet shared { param K = 2; place p[K]; }\n"
                             "net other { param N = 3; param M = 1; let K = 4; place q[N]; }\n"
                             "net third { param M = 2; place r[M]; }\n";
    {
        CompileOptions o;
        o.overrides = {{"K", "5"}, {"N", "7"}};
        Run r(text, o);
        CHECK_MESSAGE(!r.diags.has_errors(), r.diags.render());
        // K: only `shared` has a param K (other's K is a let) → shared.K.
        REQUIRE(r.resolved.net_overrides.size() == 1);
        CHECK(r.resolved.net_overrides[0].name == "shared.K");
        // N: a top-level param exists, so it is the one set; other.N is untouched.
        CHECK(r.number("N") == 7);
    }
    {
        CompileOptions o;
        o.overrides = {{"M", "5"}};
        Run r(text, o);
        CHECK(r.says("--set M: error: `M` is ambiguous: nets `other` and `third` each declare a "
                     "param `M`; write `--set other.M=…` or `--set third.M=…`"));
        CHECK(r.resolved.net_overrides.empty());
    }
}

TEST_CASE("--set of a let or of an unknown name is an error") {
    CompileOptions o;
    o.overrides = {{"half", "3"}, {"NN", "4"}};
    Run r("param N = 8; let half = N / 2;", o);
    CHECK(r.says("--set half: error: cannot override `half`: it is a `let`"));
    CHECK(r.says("--set NN: error: unknown param `NN`; did you mean `N`?"));
}

TEST_CASE("cycles, unknown names and duplicates") {
    Run r("param a = b + 1; let b = a * 2; param c = d; param e = 1; let e = 2;");
    CHECK(r.says("cyclic definition: a -> b -> a"));
    CHECK(r.says("unknown name `d`"));
    CHECK(r.says("`e` is already defined (as a param)"));
    CHECK(r.diags.error_count() == 3);  // no cascade from the poisoned a, b
}
