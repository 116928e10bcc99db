// The one table of the training-system properties (docs/language.md §5; hosts: docs/language.md), for
// every property of a `host`, `worker`, `server` or `training` block: its name, the kind of value
// it takes, its dimension and bound.
// The checks (check.cpp: unknown names with "did you mean", kinds, bounds), the lowering
// (lower_training.cpp: evaluation into a TrainingSpec) and the net statistics (net_statistics.cpp)
// read it; code that gives one property a meaning names it by its PropertyId, never by its text.
// Defaults are the TrainingSpec's (training/training_spec.hpp), and those that depend on the rest
// of the model (granularity, model_bytes) lower_training's.
//
//     for (const TrainingProperty& p : training_properties(TrainingBlock::Worker)) …
//     if (const Property* given = find_property(decl.properties, PropertyId::Layers)) …
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "compiler/eval.hpp"
#include "compiler/hosts.hpp"
#include "compiler/units.hpp"
#include "frontend/ast.hpp"
#include "frontend/diagnostics.hpp"
#include "net/distribution.hpp"

namespace sgdnet::compiler {

enum class TrainingBlock { Host, Worker, Server, Training };

/// Every property of every block. A property of several blocks (update, bandwidth, latency, host)
/// has one id and one rule.
enum class PropertyId {
    Cores, Interference, Oversubscription,                                        // host
    Compute, Layers, Update, Speed, Bandwidth, Latency, Batch, Host,              // worker
    Sync, Granularity, ModelBytes, Bucket, FirstBucket, Sharing, ShareRatio, Overlap,  // training
    MessageOverhead, CommCpu, Fusion, Buffers, BackwardOverhead, Protocol,
};

/// The kind of value a property takes, and how it is evaluated (evaluate_property()).
enum class ValueKind {
    Distribution,  // a distribution
    Layers,        // a layer table (a `layers` name)
    Quantity,      // a number of the property's dimension, > 0 (or >= 0: `allow_zero`)
    Ratio,         // a number in (0, 1]
    Count,         // an integer >= 1
    Sync,          // a coordination scheme (evaluate_sync)
    Keyword,       // one of the property's keywords
    Overlap,       // `true`, `false` or a number in [0, 1]
    Host,          // one host element: `NAME` or `NAME[INDEX]` (HostTable::place)
};

struct TrainingProperty {
    PropertyId id;
    std::string_view name;
    ValueKind kind;
    Dim dim = Dim::none();      // Quantity
    bool allow_zero = false;    // Quantity: >= 0 instead of > 0
    /// Keyword: the accepted names and the enum value (Granularity, SharingKind, Protocol) each
    /// stands for.
    std::vector<std::pair<std::string, int>> keywords = {};
};

/// The properties of `block`, in the order the diagnostics list them and the lowering applies
/// them (docs/language.md §5).
const std::vector<TrainingProperty>& training_properties(TrainingBlock block);
/// Their names, in that order (for "did you mean" and "known: …").
std::vector<std::string> property_names(TrainingBlock block);
/// The rule of `name` in `block`, or nullptr when `block` has no such property.
const TrainingProperty* find_training_property(TrainingBlock block, std::string_view name);
/// The rule of `id`.
const TrainingProperty& property_rule(PropertyId id);
/// The name of `id` (`PropertyId::FirstBucket` → `first_bucket`).
std::string_view property_name(PropertyId id);

/// The first property of `props` named like `id`, or nullptr.
const Property* find_property(const std::vector<Property>& props, PropertyId id);

/// Overlap, evaluated: `true`/`false`, or a number (> 0 means overlap; the fraction clamped).
struct OverlapValue {
    bool overlap = true;
    double fraction = 0;
};

/// `host = …`, evaluated: the host element's index in HostTable order (= TrainingSpec::hosts).
struct HostPlacement {
    int index = 0;
};

/// The value of a property, by ValueKind: Distribution, Layers (the table), Quantity (canonical
/// units), Count, Sync, Keyword (the value of the keyword), Overlap, Host.
using PropertyValue = std::variant<net::Distribution, std::shared_ptr<const LayerTable>, double,
                                   int64_t, SyncScheme, int, OverlapValue, HostPlacement>;

/// What evaluating a property may need besides its scope: the file's hosts (for `host = …`;
/// without them every host is unknown) and the name of the element evaluated (`w[3]`, in
/// messages).
struct PropertyContext {
    const HostTable* hosts = nullptr;
    std::string element;
};

/// Evaluates `e` as a value of property `p` in `scope`, reporting what is wrong (the value's
/// kind, dimension, bound, an unknown keyword with "did you mean", an unknown host or a host
/// index out of range); nullopt after an error.
std::optional<PropertyValue> evaluate_property(const TrainingProperty& p, const Expr& e,
                                               const Scope& scope, Diagnostics& diags,
                                               const PropertyContext& context = {});

/// The value of keyword property `p` written as `e` (an identifier among its keywords), else
/// nullopt. Reports nothing.
std::optional<int> keyword_value(const TrainingProperty& p, const Expr& e);

}  // namespace sgdnet::compiler
