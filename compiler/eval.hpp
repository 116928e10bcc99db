// Constant evaluation of expressions (docs/language.md §3–§4): values, scopes, dimension checks and
// construction of delay distributions in canonical units.
//
// Usage (e.g. per worker index in the training lowering):
//
//     Scope top = ...;                       // from resolve(): params (after --set), lets, layers
//     Scope row = top.with_index("i", 3);    // binds `i` = 3, sees every name of `top`
//     auto d  = evaluate_distribution(*prop.value, row, diags);          // compute = …
//     auto bw = evaluate_quantity(*prop.value, Dim::rate(), row, diags);  // bandwidth = …
//
// Every evaluate_* function reports its own diagnostics (at the expression's SourceRange) and
// returns nullopt on error. A name whose definition already failed is "poisoned": using it
// fails silently, so one bad param gives one diagnostic, not a cascade.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "frontend/ast.hpp"
#include "frontend/diagnostics.hpp"
#include "compiler/units.hpp"
#include "net/distribution.hpp"
#include "training/kinds.hpp"

namespace sgdnet::compiler {

// The front end's types (AST, diagnostics, source ranges) and the training kinds and specs are
// this library's vocabulary.
using namespace sgdnet::frontend;
using namespace sgdnet::training;

/// A layer table (docs/language.md §5): rows in forward order, canonical units.
struct LayerTable {
    struct Layer {
        std::string name;
        net::Distribution fwd;
        net::Distribution bwd;
        double bytes = 0;  // gradient (= parameter) bytes
        /// Position in the order gradients become ready (0 = first), when the table records one
        /// (profiles do); otherwise reverse layer order applies.
        std::optional<int> bwd_order;
        SourceRange where;
    };
    std::string name;
    std::vector<Layer> layers;
    /// `NAME.compute` / `NAME.update`: only defined for `profile(...)` tables (Profile::compute,
    /// Profile::update of profile/profile_import.hpp).
    std::optional<net::Distribution> compute;
    std::optional<net::Distribution> update;
    /// `NAME.message_overhead` (s), `NAME.comm_cpu` (s/B), `NAME.cores`: the `comm_probe` object of
    /// a `profile(...)` table's file (Profile::comm_probe), when it has one.
    struct CommCosts {
        double message_overhead_s = 0;
        double comm_cpu_s_per_byte = 0;
        double cores = 0;
        std::optional<double> interference;
        std::optional<double> oversubscription;
    };
    std::optional<CommCosts> comm;
    /// `NAME.buffers` (B): the `buffer_bytes` of a `profile(...)` table's file, when it has one.
    std::optional<double> buffer_bytes;
    /// `NAME.ddp_overhead` (s): the `ddp_overhead_s` of a `profile(...)` table's file, if any.
    std::optional<double> ddp_overhead_s;
    /// `NAME.ps_worker_overhead` (s): the profile's `ps_worker_overhead_s`, if any.
    std::optional<double> ps_worker_overhead_s;
    /// `NAME.server_update` (a distribution) and `NAME.aggregate` (s): the profile's
    /// `server_update_s` and the mean of its `aggregate_s`, when it has them.
    std::optional<net::Distribution> server_update;
    std::optional<double> aggregate_s;
    /// The profile a `profile(...)` table was read from (as opened); "" for a written table.
    std::string profile_file;
    SourceRange where;
};

/// The value of an expression. Numbers carry their dimension (Quantity, canonical units);
/// booleans come from `true`/`false` and comparisons; strings from literals; distributions from
/// §4 forms; layer tables from `layers` declarations.
using Value = std::variant<Quantity, bool, std::string, net::Distribution,
                           std::shared_ptr<const LayerTable>>;

/// "a time", "a boolean", "a string", "a distribution", "a layer table", … for messages.
std::string kind_name(const Value& v);

/// Names visible to an expression: params and lets (final values, after `--set`), layer tables,
/// and index variables. A scope may have a parent whose names it sees unless it redefines them.
/// The parent must outlive the child.
class Scope {
public:
    Scope() = default;
    /// A child scope of `parent` (it inherits base_dir and integer_division).
    explicit Scope(const Scope* parent);

    /// Defines (or redefines in this scope) `name`.
    void define(std::string name, Value value, SourceRange where = {});
    /// Marks `name` as defined but failed: uses of it fail without a further diagnostic.
    void define_poisoned(std::string name, SourceRange where = {});
    /// A child scope where index variable `var` (`i`, or `j` of `[j in A..B]`) equals `index`.
    Scope with_index(const std::string& var, int64_t index) const;

    /// Looks `name` up here, then in the parents. Returns null when unknown; a pointer to
    /// nullopt when the name is poisoned.
    const std::optional<Value>* find(std::string_view name) const;
    /// Where `name` was defined (invalid range when unknown or built-in).
    SourceRange where(std::string_view name) const;
    /// Every visible name (for "did you mean" suggestions).
    std::vector<std::string> names() const;

    /// Directory against which relative file names (`empirical("x.txt")`) are resolved.
    std::string base_dir;
    /// When true, `/` between two integers is floor division (array index expressions, §6).
    bool integer_division = false;

private:
    struct Entry {
        std::optional<Value> value;
        SourceRange where;
    };
    const Scope* parent_ = nullptr;
    std::map<std::string, Entry, std::less<>> entries_;
};

/// Evaluates `e` to a value. Reports unknown names (with "did you mean"), dimension errors,
/// invalid function arguments and distribution parameters.
std::optional<Value> evaluate(const Expr& e, const Scope& scope, Diagnostics& diags);

/// Evaluates `e` as a number of dimension `expected` and returns its canonical value.
/// A bare number where a dimensioned value is expected gets the hint
/// `expected a time, got 5; did you mean 5 ms?`.
std::optional<double> evaluate_quantity(const Expr& e, Dim expected, const Scope& scope,
                                        Diagnostics& diags);

/// Evaluates `e` as a dimensionless integer in [min, max]. A value within 1e-9 of an integer is
/// that integer; anything else is an error mentioning `what` (e.g. "array size").
std::optional<int64_t> evaluate_integer(const Expr& e, const Scope& scope, Diagnostics& diags,
                                        std::string_view what, int64_t min = INT64_MIN,
                                        int64_t max = INT64_MAX);

/// Evaluates `e` as a boolean (`true`, `false`, a comparison, `&&`, `||`, `!`).
std::optional<bool> evaluate_bool(const Expr& e, const Scope& scope, Diagnostics& diags);

/// Evaluates `e` as a delay distribution (docs/language.md §4) in seconds; a plain time T is det(T).
std::optional<net::Distribution> evaluate_distribution(const Expr& e, const Scope& scope,
                                                       Diagnostics& diags);

/// Evaluates `e` as a layer table (a `layers` name).
std::shared_ptr<const LayerTable> evaluate_layers(const Expr& e, const Scope& scope,
                                                  Diagnostics& diags);

/// The identifier of a keyword-valued property (`coarse`, `fair`, `ps_sync`, `single`, …):
/// the name when `e` is one undotted, unindexed name, else nullopt. Reports nothing.
std::optional<std::string> identifier(const Expr& e);

/// The value of `sync` (docs/language.md §5): a scheme name, with `staleness` for ps_ssp.
struct SyncScheme {
    SyncKind kind = SyncKind::PsSync;
    int64_t staleness = 0;  // PsSsp only (>= 0)
};
/// Evaluates `sync = …`: `ps_sync`, `ps_async`, `ps_ssp(staleness = K)` (K integer >= 0),
/// `allreduce_ring`, `allreduce_tree`, `gossip`. Unknown names get a "did you mean".
std::optional<SyncScheme> evaluate_sync(const Expr& e, const Scope& scope, Diagnostics& diags);

/// Builds the table of `layers NAME { … }` (columns fwd, bwd: distributions; bytes: size;
/// optional order: position in gradient-ready order, a permutation of 0…L−1 over the rows) or
/// loads `layers NAME = profile("file")` with
/// profile::load_profile (docs/profiles.md: per-layer JSON or Chrome trace; layer names made
/// identifiers, tails folded into the layer times, `compute`/`update` from the totals); the
/// profile's diagnostics point at the `profile(…)` call. Unknown columns get a "did you mean".
std::optional<LayerTable> build_layer_table(const LayersDecl& decl, const Scope& scope,
                                            Diagnostics& diags);

/// Maximum number of elements of one array declaration (workers, servers, places, transitions).
/// The fuzzing build (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION) allows 10,000, so that its time
/// limit catches slow compilation rather than the legitimate cost of a million elements.
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
inline constexpr int64_t kMaxArraySize = 10'000;
#else
inline constexpr int64_t kMaxArraySize = 1'000'000;
#endif

}  // namespace sgdnet::compiler
