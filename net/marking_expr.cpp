// Evaluation and printing of marking-dependent expressions (postfix programs over token counts).
#include "net/marking_expr.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "net/distribution.hpp"

namespace sgdnet::net {
namespace {

using Code = ExprOp::Code;

int arity(Code c) {
    switch (c) {
        case Code::Const:
        case Code::Tokens:
            return 0;
        case Code::Neg:
        case Code::Not:
        case Code::Abs:
        case Code::Floor:
        case Code::Ceil:
        case Code::Round:
        case Code::Sqrt:
        case Code::Log:
        case Code::Exp:
            return 1;
        case Code::Select:
            return 3;
        default:
            return 2;
    }
}

double apply1(Code c, double a) {
    switch (c) {
        case Code::Neg: return -a;
        case Code::Not: return a == 0 ? 1.0 : 0.0;
        case Code::Abs: return std::abs(a);
        case Code::Floor: return std::floor(a);
        case Code::Ceil: return std::ceil(a);
        case Code::Round: return std::round(a);
        case Code::Sqrt: return std::sqrt(a);
        case Code::Log: return std::log(a);
        case Code::Exp: return std::exp(a);
        default: return a;
    }
}

double apply2(Code c, double a, double b) {
    switch (c) {
        case Code::Add: return a + b;
        case Code::Sub: return a - b;
        case Code::Mul: return a * b;
        case Code::Div: return a / b;
        case Code::Mod: return std::fmod(a, b);
        case Code::Pow: return std::pow(a, b);
        case Code::Min: return std::min(a, b);
        case Code::Max: return std::max(a, b);
        case Code::Eq: return a == b ? 1.0 : 0.0;
        case Code::Ne: return a != b ? 1.0 : 0.0;
        case Code::Lt: return a < b ? 1.0 : 0.0;
        case Code::Le: return a <= b ? 1.0 : 0.0;
        case Code::Gt: return a > b ? 1.0 : 0.0;
        case Code::Ge: return a >= b ? 1.0 : 0.0;
        case Code::And: return (a != 0 && b != 0) ? 1.0 : 0.0;
        case Code::Or: return (a != 0 || b != 0) ? 1.0 : 0.0;
        default: return 0;
    }
}

// The operations of speeds (processor sharing: min(b1 / tokens(p), b2 / tokens(q))) are
// dispatched directly; the rest through their arity.
template <class Stack>
double run(const std::vector<ExprOp>& code, const uint32_t* marking, Stack& stack) {
    std::size_t top = 0;
    for (const ExprOp& op : code) {
        switch (op.code) {
            case Code::Const: stack[top++] = op.value; break;
            case Code::Tokens: stack[top++] = static_cast<double>(marking[op.place]); break;
            case Code::Add: stack[top - 2] += stack[top - 1]; --top; break;
            case Code::Sub: stack[top - 2] -= stack[top - 1]; --top; break;
            case Code::Mul: stack[top - 2] *= stack[top - 1]; --top; break;
            case Code::Div: stack[top - 2] /= stack[top - 1]; --top; break;
            case Code::Min: stack[top - 2] = std::min(stack[top - 2], stack[top - 1]); --top; break;
            case Code::Max: stack[top - 2] = std::max(stack[top - 2], stack[top - 1]); --top; break;
            default:
                switch (arity(op.code)) {
                    case 1:
                        stack[top - 1] = apply1(op.code, stack[top - 1]);
                        break;
                    case 2:
                        stack[top - 2] = apply2(op.code, stack[top - 2], stack[top - 1]);
                        --top;
                        break;
                    default:
                        stack[top - 3] = stack[top - 3] != 0 ? stack[top - 2] : stack[top - 1];
                        top -= 2;
                        break;
                }
        }
    }
    return top ? stack[top - 1] : 0.0;
}

const char* infix_symbol(Code c) {
    switch (c) {
        case Code::Add: return " + ";
        case Code::Sub: return " - ";
        case Code::Mul: return " * ";
        case Code::Div: return " / ";
        case Code::Mod: return " % ";
        case Code::Pow: return " ^ ";
        case Code::Eq: return " == ";
        case Code::Ne: return " != ";
        case Code::Lt: return " < ";
        case Code::Le: return " <= ";
        case Code::Gt: return " > ";
        case Code::Ge: return " >= ";
        case Code::And: return " && ";
        case Code::Or: return " || ";
        default: return nullptr;
    }
}

const char* function_name(Code c) {
    switch (c) {
        case Code::Min: return "min";
        case Code::Max: return "max";
        case Code::Abs: return "abs";
        case Code::Floor: return "floor";
        case Code::Ceil: return "ceil";
        case Code::Round: return "round";
        case Code::Sqrt: return "sqrt";
        case Code::Log: return "log";
        case Code::Exp: return "exp";
        default: return nullptr;
    }
}

}  // namespace

MarkingExpr MarkingExpr::constant(double v) {
    MarkingExpr e;
    e.code.push_back({ExprOp::Code::Const, 0, v});
    return e;
}

MarkingExpr MarkingExpr::tokens(uint32_t place) {
    MarkingExpr e;
    e.code.push_back({ExprOp::Code::Tokens, place, 0});
    return e;
}

double MarkingExpr::evaluate(const uint32_t* marking) const {
    constexpr std::size_t kInline = 32;
    if (code.size() <= kInline) {
        std::array<double, kInline> stack;
        return run(code, marking, stack);
    }
    std::vector<double> stack(code.size());
    return run(code, marking, stack);
}

std::vector<uint32_t> MarkingExpr::places() const {
    std::vector<uint32_t> out;
    for (const ExprOp& op : code)
        if (op.code == ExprOp::Code::Tokens) out.push_back(op.place);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

bool MarkingExpr::is_constant() const {
    return std::none_of(code.begin(), code.end(),
                        [](const ExprOp& op) { return op.code == ExprOp::Code::Tokens; });
}

std::string MarkingExpr::to_string(const std::vector<std::string>& place_names) const {
    // Each stack entry keeps its text and whether it needs parentheses as an operand.
    struct Item {
        std::string text;
        bool compound;
    };
    std::vector<Item> stack;
    auto wrap = [](const Item& it) { return it.compound ? "(" + it.text + ")" : it.text; };
    for (const ExprOp& op : code) {
        const int n = arity(op.code);
        if (n == 0) {
            if (op.code == ExprOp::Code::Const) {
                stack.push_back({format_number(op.value), op.value < 0});
            } else {
                const std::string name = op.place < place_names.size()
                                             ? place_names[op.place]
                                             : "#" + std::to_string(op.place);
                stack.push_back({"tokens(" + name + ")", false});
            }
            continue;
        }
        if (stack.size() < static_cast<std::size_t>(n)) return "<malformed>";
        if (n == 1) {
            Item a = stack.back();
            stack.pop_back();
            if (const char* f = function_name(op.code))
                stack.push_back({std::string(f) + "(" + a.text + ")", false});
            else
                stack.push_back({(op.code == ExprOp::Code::Neg ? "-" : "!") + wrap(a), false});
        } else if (n == 2) {
            Item b = stack.back();
            stack.pop_back();
            Item a = stack.back();
            stack.pop_back();
            if (const char* f = function_name(op.code))
                stack.push_back({std::string(f) + "(" + a.text + ", " + b.text + ")", false});
            else
                stack.push_back({wrap(a) + infix_symbol(op.code) + wrap(b), true});
        } else {
            Item e = stack.back();
            stack.pop_back();
            Item t = stack.back();
            stack.pop_back();
            Item c = stack.back();
            stack.pop_back();
            stack.push_back({wrap(c) + " ? " + wrap(t) + " : " + wrap(e), true});
        }
    }
    return stack.size() == 1 ? stack.back().text : "<malformed>";
}

}  // namespace sgdnet::net
