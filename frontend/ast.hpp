// AST of a `.sgdnet` file (docs/language.md §2–§6): structs, variants for alternatives, unique_ptr
// for recursion, a SourceRange on every node. Built by ast_builder*.cpp, printed by dump().
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "net/source_range.hpp"

namespace sgdnet::frontend {

using net::SourceRange;

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

/// `12`, `1.5 ms`, `25MB`, `2 /s`. `unit` is the unit as written ("" for a bare number).
struct NumberLit {
    double value = 0;
    std::string unit;
};
struct StringLit {
    std::string value;  // escapes resolved
};
struct BoolLit {
    bool value = false;
};
/// `N`, `i`, `net.compute`, `mm1.serve`, `shared.buf[2]`, `ps_sync`, `w[3].ready`.
struct NameRef {
    std::vector<std::string> parts;  // dotted path, at least one element
    ExprPtr index;                   // `[EXPR]` after the last part, or null
    /// `[EXPR]` after the parts before the last (`w[3].fwd.layer2`: `3` after `w`): empty when
    /// no such part is indexed, else one entry per part but the last (null = not indexed).
    std::vector<ExprPtr> part_indexes;
    /// The part followed by `[*]` (every element of an array: `w[*].compute`, `net.buf[*]`), or
    /// -1. Its index (in `index` or `part_indexes`) is then null. Only `sum(…)`/`mean(…)` in a
    /// measure accept it (compiler/lower_net.cpp expands them).
    int wildcard = -1;
    /// True when some part before the last has an index.
    bool indexed_inside() const {
        for (const auto& e : part_indexes)
            if (e) return true;
        return false;
    }
};
struct Unary {
    enum class Op { Neg, Not };
    Op op;
    ExprPtr operand;
};
struct Binary {
    enum class Op { Add, Sub, Mul, Div, Mod, Pow, Eq, Ne, Lt, Le, Gt, Ge, And, Or };
    Op op;
    ExprPtr lhs, rhs;
};
struct Conditional {
    ExprPtr cond, then_expr, else_expr;
};
/// One argument of a call: positional `EXPR`, named `NAME = EXPR`, or mixture `P: D`.
struct Arg {
    std::optional<std::string> name;  // `mean` in `exp(mean = 1 s)`
    ExprPtr weight;                   // `P` in `mixture(P: D, …)`, else null
    ExprPtr value;
    SourceRange range;
};
/// `f(args)`: functions (§3), distributions (§4), `profile("…")`, `tokens(P)`, `throughput(T)`,
/// `prob(COND)`, `ps_ssp(staleness = K)`.
struct Call {
    std::string callee;
    SourceRange callee_range;
    std::vector<Arg> args;
};
/// `[T, T, …]` (for `empirical([…])`).
struct ListLit {
    std::vector<ExprPtr> items;
};

struct Expr {
    SourceRange range;
    std::variant<NumberLit, StringLit, BoolLit, NameRef, Unary, Binary, Conditional, Call, ListLit>
        node;
};

/// `NAME = EXPR` inside a block (host/worker/server/training properties, layer columns, transition
/// attributes such as `server`, `memory`, `speed`, `priority`, `weight`, place `bound`).
struct Property {
    std::string name;
    SourceRange name_range;
    ExprPtr value;
    SourceRange range;
};

/// `model NAME;`
struct ModelDecl {
    std::string name;
    SourceRange range;
};
/// `param NAME = EXPR;` or `let NAME = EXPR;`
struct ParamDecl {
    bool is_let = false;
    std::string name;
    SourceRange name_range;
    ExprPtr value;
    SourceRange range;
};
/// One row of a layer table: `conv1: fwd = DIST, bwd = DIST, bytes = SIZE;`
struct LayerRow {
    std::string name;
    SourceRange name_range;
    std::vector<Property> columns;
    SourceRange range;
};
/// `layers NAME { rows }` or `layers NAME = profile("file.json");` (then `profile` is the call).
struct LayersDecl {
    std::string name;
    SourceRange name_range;
    std::vector<LayerRow> rows;
    ExprPtr profile;
    SourceRange range;
};
/// `host NAME[COUNT] { cores = …; bandwidth = …; latency = …; }`; count null = one host, named
/// `NAME` (with a count the elements are `NAME[0]`…).
struct HostDecl {
    std::string name;
    SourceRange name_range;
    ExprPtr count;
    std::vector<Property> properties;
    SourceRange range;
};
/// `worker NAME[COUNT] { … }` / `server NAME[COUNT] { … }`; count null = 1.
struct NodeDecl {
    enum class Kind { Worker, Server };
    Kind kind = Kind::Worker;
    std::string name;
    SourceRange name_range;
    ExprPtr count;
    std::vector<Property> properties;
    SourceRange range;
};
/// `training { … }`
struct TrainingDecl {
    std::vector<Property> properties;
    SourceRange range;
};

/// An array declarator: `[K]` (size; index 0..K-1, bound to `i`) or `[j in A..B]` (inclusive).
struct ArraySpec {
    std::string var;  // "i" for the `[K]` form
    ExprPtr first;    // null for the `[K]` form (0)
    ExprPtr last;     // `[K]` form: null
    ExprPtr size;     // `[K]` form: K; range form: null
    SourceRange range;
};

/// `place NAME[ARRAY] [= INIT] [bound = K];`
struct PlaceDecl {
    std::string name;
    SourceRange name_range;
    std::optional<ArraySpec> array;
    ExprPtr initial;  // null = 0
    ExprPtr bound;    // null = none
    SourceRange range;
};
/// `in P[*M]`, `out P[*M]`, `inhibit P[*M]`; target is a NameRef expression (maybe indexed).
struct ArcDecl {
    enum class Kind { In, Out, Inhibit };
    Kind kind = Kind::In;
    ExprPtr place;
    ExprPtr multiplicity;  // null = 1
    SourceRange range;
};
/// `transition NAME[ARRAY] ~ DIST [attrs] { arcs }` / `immediate NAME[ARRAY] [attrs] { arcs }`.
/// Attributes (`server`, `memory`, `speed`, `priority`, `weight`) are Properties; `priority 2`
/// without `=` is accepted too.
struct TransitionDecl {
    bool immediate = false;
    std::string name;
    SourceRange name_range;
    std::optional<ArraySpec> array;
    ExprPtr delay;  // timed only
    std::vector<Property> attributes;
    std::vector<ArcDecl> arcs;
    SourceRange range;
};
using NetItem = std::variant<ParamDecl, PlaceDecl, TransitionDecl>;
/// `net NAME { items }`
struct NetDecl {
    std::string name;
    SourceRange name_range;
    std::vector<NetItem> items;
    SourceRange range;
};
/// `measure NAME = EXPR;` (EXPR a call to throughput/tokens/prob, or arithmetic of them).
struct MeasureDecl {
    std::string name;
    SourceRange name_range;
    ExprPtr value;
    SourceRange range;
};

using Decl = std::variant<ModelDecl, ParamDecl, LayersDecl, HostDecl, NodeDecl, TrainingDecl,
                          NetDecl, MeasureDecl>;

/// One parsed file.
struct Ast {
    uint32_t file = 0;  // index in the Diagnostics source table
    std::vector<Decl> decls;
};

/// The operator as written in the language, e.g. `+`, `<=`, `&&`.
const char* to_string(Binary::Op op);

/// Developer dump of the AST (one node per line, indented, with line:col), for debugging and
/// golden tests of the parser.
std::string dump(const Ast& ast);

}  // namespace sgdnet::frontend
