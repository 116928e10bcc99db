// Marking-dependent expressions (clock `speed`, `prob(...)` conditions, time-average rewards).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sgdnet::net {

/// One instruction of a postfix (stack) program. Booleans are 0/1 doubles.
struct ExprOp {
    enum class Code : uint8_t {
        Const,   // push `value`
        Tokens,  // push tokens of place `place`
        Neg, Not,
        Add, Sub, Mul, Div, Mod, Pow, Min, Max,
        Eq, Ne, Lt, Le, Gt, Ge, And, Or,
        Abs, Floor, Ceil, Round, Sqrt, Log, Exp,
        Select,  // pops else, then, cond; pushes cond != 0 ? then : else
    };
    Code code = Code::Const;
    uint32_t place = 0;
    double value = 0;
    bool operator==(const ExprOp&) const = default;
};

/// A real-valued function of the marking, stored as a postfix program that evaluates without
/// allocation. Division by zero yields +inf (or NaN for 0/0), as IEEE arithmetic does.
struct MarkingExpr {
    std::vector<ExprOp> code;

    /// A constant expression.
    static MarkingExpr constant(double v);
    /// The number of tokens of one place.
    static MarkingExpr tokens(uint32_t place);

    /// Evaluates the program; `marking[p]` is the token count of place p.
    double evaluate(const uint32_t* marking) const;
    /// The places the expression reads (sorted, unique).
    std::vector<uint32_t> places() const;
    bool is_constant() const;
    /// Infix text using place names, e.g. `1 / tokens(w[0].up.active)`.
    std::string to_string(const std::vector<std::string>& place_names) const;

    bool operator==(const MarkingExpr&) const = default;
};

}  // namespace sgdnet::net
