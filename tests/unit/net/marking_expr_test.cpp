// Evaluation and printing of marking-dependent expressions.
#include <doctest/doctest.h>

#include <cmath>

#include "net/marking_expr.hpp"

using namespace sgdnet::net;
using Code = ExprOp::Code;

namespace {
ExprOp c(double v) { return {Code::Const, 0, v}; }
ExprOp t(uint32_t p) { return {Code::Tokens, p, 0}; }
ExprOp op(Code code) { return {code, 0, 0}; }
}  // namespace

TEST_CASE("processor-sharing speed 1 / tokens(p)") {
    MarkingExpr e{{c(1), t(1), op(Code::Div)}};
    const uint32_t m[] = {7, 4};
    CHECK(e.evaluate(m) == 0.25);
    CHECK(e.places() == std::vector<uint32_t>{1});
    CHECK_FALSE(e.is_constant());
    CHECK(e.to_string({"a", "w[0].up.active"}) == "1 / tokens(w[0].up.active)");
    const uint32_t empty[] = {7, 0};
    CHECK(std::isinf(e.evaluate(empty)));
}

TEST_CASE("conditions, select and functions") {
    // tokens(0) > 0 && !(tokens(1) >= 2) ? min(tokens(0), 3) : -1
    MarkingExpr e{{t(0), c(0), op(Code::Gt), t(1), c(2), op(Code::Ge), op(Code::Not),
                   op(Code::And), t(0), c(3), op(Code::Min), c(-1), op(Code::Select)}};
    const uint32_t m1[] = {5, 1};
    CHECK(e.evaluate(m1) == 3);
    const uint32_t m2[] = {5, 2};
    CHECK(e.evaluate(m2) == -1);
    const uint32_t m3[] = {2, 0};
    CHECK(e.evaluate(m3) == 2);
    CHECK(e.places() == std::vector<uint32_t>{0, 1});
    CHECK(e.to_string({"p", "q"}) ==
          "((tokens(p) > 0) && !(tokens(q) >= 2)) ? min(tokens(p), 3) : (-1)");
}

TEST_CASE("arithmetic precedence survives printing") {
    // (tokens(0) + 1) * 2 ^ 3 − 4 % 3
    MarkingExpr e{{t(0), c(1), op(Code::Add), c(2), c(3), op(Code::Pow), op(Code::Mul), c(4),
                   c(3), op(Code::Mod), op(Code::Sub)}};
    const uint32_t m[] = {2};
    CHECK(e.evaluate(m) == (2 + 1) * 8 - 1);
    CHECK(e.to_string({"p"}) == "((tokens(p) + 1) * (2 ^ 3)) - (4 % 3)");
    CHECK(MarkingExpr::constant(2.5).evaluate(m) == 2.5);
    CHECK(MarkingExpr::constant(2.5).is_constant());
    CHECK(MarkingExpr::tokens(0).evaluate(m) == 2);
}

TEST_CASE("long programs evaluate beyond the inline stack") {
    MarkingExpr e;
    for (int k = 0; k < 40; ++k) e.code.push_back(c(1));
    for (int k = 0; k < 39; ++k) e.code.push_back(op(Code::Add));
    const uint32_t m[] = {0};
    CHECK(e.evaluate(m) == 40);
}
