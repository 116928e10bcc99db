// Unit tests of constant evaluation: arithmetic with dimensions, functions, distributions.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "compiler/eval.hpp"
#include "frontend/parse.hpp"

using namespace sgdnet::compiler;
namespace net = sgdnet::net;

namespace {

/// Parses `text` as one expression and evaluates it; `msgs` gets the rendered diagnostics.
struct Eval {
    Diagnostics diags;
    Scope scope;
    ExprPtr parse(const std::string& text) {
        ExprPtr e = parse_expression(diags.add_source("expr", text), diags);
        REQUIRE_MESSAGE(e, diags.render());
        return e;
    }
    std::optional<Value> value(const std::string& text) { return evaluate(*parse(text), scope, diags); }
    std::optional<double> quantity(const std::string& text, Dim d) {
        return evaluate_quantity(*parse(text), d, scope, diags);
    }
    std::optional<net::Distribution> dist(const std::string& text) {
        return evaluate_distribution(*parse(text), scope, diags);
    }
    std::string errors() const { return diags.render(); }
};

}  // namespace

TEST_CASE("arithmetic keeps track of dimensions") {
    Eval ev;
    // 44.7 MB / 10 Gbps = 44.7e6 / 1.25e9 = 0.03576 s.
    CHECK(*ev.quantity("44.7 MB / 10 Gbps", Dim::seconds()) == doctest::Approx(0.03576));
    CHECK(*ev.quantity("2 * 3 + 4", Dim::none()) == 10);
    CHECK(*ev.quantity("2 ^ 10", Dim::none()) == 1024);
    CHECK(*ev.quantity("1 / 4 ms", Dim::frequency()) == doctest::Approx(250));
    CHECK(*ev.quantity("10 ms * 2 /s", Dim::none()) == doctest::Approx(0.02));
    CHECK(*ev.quantity("sqrt(4 MB * 1 MB)", Dim::bytes()) == doctest::Approx(2e6));
    CHECK(*ev.quantity("-7 % 3", Dim::none()) == 2);  // floored modulo: sign of the divisor
    CHECK(*ev.quantity("max(1 ms, 3 ms, 2 ms)", Dim::seconds()) == doctest::Approx(3e-3));
    CHECK(*ev.quantity("min(4, 2) + abs(-1) + floor(2.7) + ceil(0.2) + round(2.5)",
                       Dim::none()) == 2 + 1 + 2 + 1 + 3);
    CHECK(*ev.quantity("pow(2, 3) + log(exp(2))", Dim::none()) == doctest::Approx(10));
    CHECK(*ev.quantity("1 < 2 && !(3 <= 2) ? 5 ms : 6 ms", Dim::seconds()) ==
          doctest::Approx(5e-3));
    CHECK(ev.errors().empty());
}

TEST_CASE("dimension errors name the dimensions and suggest a unit") {
    Eval ev;
    CHECK_FALSE(ev.value("1 ms + 1 MB"));
    CHECK(ev.errors().find("`+` needs operands of the same dimension, got a time and a size") !=
          std::string::npos);
    Eval ev2;
    CHECK_FALSE(ev2.quantity("5", Dim::seconds()));
    CHECK(ev2.errors().find("expected a time, got 5; did you mean 5 ms?") != std::string::npos);
    Eval ev3;
    CHECK_FALSE(ev3.quantity("5 MB", Dim::rate()));
    CHECK(ev3.errors().find("expected a rate, got a size (5 MB)") != std::string::npos);
    Eval ev4;
    CHECK_FALSE(ev4.value("2 ^ 1 ms"));
    CHECK(ev4.errors().find("exponent must be dimensionless") != std::string::npos);
    Eval ev5;
    CHECK_FALSE(ev5.value("1 / 0"));
    CHECK(ev5.errors().find("division by zero") != std::string::npos);
}

TEST_CASE("names, index variables and poisoned names") {
    Eval ev;
    ev.scope.define("N", Quantity{8, Dim::none()});
    ev.scope.define_poisoned("bad");
    Scope row = ev.scope.with_index("i", 3);
    CHECK(*evaluate_quantity(*ev.parse("N - i"), Dim::none(), row, ev.diags) == 5);
    CHECK_FALSE(evaluate(*ev.parse("bad * 2"), row, ev.diags));
    CHECK(ev.errors().empty());  // a poisoned name fails silently
    CHECK_FALSE(evaluate(*ev.parse("M"), row, ev.diags));
    CHECK(ev.errors().find("unknown name `M`; did you mean `N`?") != std::string::npos);
}

TEST_CASE("integers: counts must be integral and in range") {
    Eval ev;
    CHECK(*evaluate_integer(*ev.parse("6 / 2"), ev.scope, ev.diags, "n") == 3);
    CHECK_FALSE(evaluate_integer(*ev.parse("7 / 2"), ev.scope, ev.diags, "an array size", 1));
    CHECK(ev.errors().find("an array size must be an integer, got 3.5") != std::string::npos);
    Scope ix(&ev.scope);
    ix.integer_division = true;  // index expressions: floor division
    CHECK(*evaluate_integer(*ev.parse("7 / 2"), ix, ev.diags, "an index") == 3);
    CHECK(*evaluate_integer(*ev.parse("-1 / 2"), ix, ev.diags, "an index") == -1);
}

TEST_CASE("every distribution form lowers to canonical seconds") {
    Eval ev;
    CHECK(*ev.dist("det(4 ms)") == net::Distribution{net::Det{0.004}});
    CHECK(*ev.dist("3 ms") == net::Distribution{net::Det{0.003}});  // plain time = det
    // exp(mean = 800 ms) has rate 1/0.8 = 1.25 /s.
    CHECK(*ev.dist("exp(mean = 800 ms)") == net::Distribution{net::Exp{1.25}});
    CHECK(*ev.dist("exp(rate = 2 /s)") == net::Distribution{net::Exp{2}});
    CHECK(*ev.dist("uniform(1 ms, 3 ms)") == net::Distribution{net::Uniform{0.001, 0.003}});
    CHECK(*ev.dist("normal(mean = 1 s, sd = 100 ms)") == net::Distribution{net::Normal{1, 0.1}});
    CHECK(*ev.dist("lognormal(mean = 120 ms, cv = 0.05)") ==
          net::Distribution{net::Lognormal{0.12, 0.05}});
    CHECK(*ev.dist("gamma(mean = 2 s, cv = 0.5)") == net::Distribution{net::Gamma{2, 0.5}});
    CHECK(*ev.dist("erlang(k = 3, mean = 3 s)") == net::Distribution{net::Erlang{3, 3}});
    CHECK(*ev.dist("weibull(shape = 1.5, scale = 2 s)") ==
          net::Distribution{net::Weibull{1.5, 2}});
    CHECK(*ev.dist("empirical([1 ms, 2 ms])") ==
          net::Distribution{net::Empirical{{0.001, 0.002}}});
    auto m = *ev.dist("mixture(0.25: det(1 s), 0.75: det(2 s))");
    CHECK(m == net::Distribution{net::Mixture{{0.25, 0.75},
                                              {net::Distribution{net::Det{1}},
                                               net::Distribution{net::Det{2}}}}});
    net::Distribution one{net::Det{1}};
    CHECK(*ev.dist("det(1 s) * 2") == net::Distribution{net::Scaled{{one}, 2}});
    CHECK(*ev.dist("det(1 s) / 4") == net::Distribution{net::Scaled{{one}, 0.25}});
    CHECK(*ev.dist("det(1 s) + 5 ms") == net::Distribution{net::Shifted{{one}, 0.005}});
    CHECK(*ev.dist("det(1 s) + det(1 s) + det(1 s)") ==
          net::Distribution{net::Sum{{one, one, one}}});
    CHECK(ev.errors().empty());
}

TEST_CASE("invalid distribution parameters are errors") {
    const char* bad[][2] = {
        {"exp(mean = -1 s)", "`mean` of `exp` must be > 0, got -1 s"},
        {"lognormal(mean = 1 s, cv = -0.1)", "`cv` of `lognormal` must be >= 0, got -0.1"},
        {"mixture(0.5: det(1 s), 0.4: det(2 s))",
         "the probabilities of a mixture must sum to 1, they sum to 0.9"},
        {"uniform(3 ms, 1 ms)", "`uniform(A, B)` needs A <= B"},
        {"erlang(k = 2.5, mean = 1 s)", "`k` of `erlang` must be an integer in 1..1000000"},
        {"lognormal(meen = 1 s, cv = 1)", "`lognormal` has no parameter `meen`; did you mean `mean`?"},
        {"det(5)", "expected a time, got 5; did you mean 5 ms?"},
        {"det(1 s) * 1 s", "a distribution can only be scaled by a dimensionless factor"},
        {"exp(5 ms)", "for the exponential distribution write exp(mean = 5 ms)"},
        {"empirical(\"/nonexistent/values.txt\")", "cannot read /nonexistent/values.txt"},
        {"5", "expected a distribution or a time, got 5; did you mean 5 ms?"},
    };
    for (auto& [text, message] : bad) {
        CAPTURE(text);
        Eval ev;
        CHECK_FALSE(ev.dist(text));
        CHECK_MESSAGE(ev.errors().find(message) != std::string::npos, ev.errors());
    }
}

TEST_CASE("empirical files: one value per line, seconds unless a unit is written") {
    const std::string dir =
        (std::filesystem::temp_directory_path() / "sgdnet-empirical-test").string();
    std::filesystem::create_directories(dir);
    {
        std::ofstream f(dir + "/values.txt");
        f << "# measured\n0.5\n\n250 ms\n1e-3\n";
        std::ofstream g(dir + "/empty.txt");
    }
    Eval ev;
    ev.scope.base_dir = dir;
    CHECK(*ev.dist("empirical(\"values.txt\")") ==
          net::Distribution{net::Empirical{{0.5, 0.25, 0.001}}});
    CHECK_FALSE(ev.dist("empirical(\"empty.txt\")"));
    CHECK(ev.errors().find("holds no values") != std::string::npos);
    std::filesystem::remove_all(dir);
}
