// The table of the training-system properties and their evaluation (training_properties.hpp).
#include "compiler/training_properties.hpp"

#include <algorithm>
#include <cmath>

#include "training/kinds.hpp"

namespace sgdnet::compiler {
namespace {

using K = ValueKind;
using P = PropertyId;

const TrainingProperty kUpdate{P::Update, "update", K::Distribution};
const TrainingProperty kBandwidth{P::Bandwidth, "bandwidth", K::Quantity, Dim::rate()};
const TrainingProperty kLatency{P::Latency, "latency", K::Quantity, Dim::seconds(), true};
const TrainingProperty kHost{P::Host, "host", K::Host};

// A host's cores may be fractional (a share of a machine); without `cores` they are infinite.
const std::vector<TrainingProperty> kHostBlock{
    {P::Cores, "cores", K::Quantity, Dim::none()},
    {P::Interference, "interference", K::Quantity, Dim::none(), true},
    {P::Oversubscription, "oversubscription", K::Quantity, Dim::none(), true},
    kBandwidth,
    kLatency,
};

const std::vector<TrainingProperty> kWorker{
    {P::Compute, "compute", K::Distribution},
    {P::Layers, "layers", K::Layers},
    kUpdate,
    {P::Speed, "speed", K::Quantity, Dim::none()},
    kBandwidth,
    kLatency,
    {P::Batch, "batch", K::Count},
    kHost,
};

const std::vector<TrainingProperty> kServer{kUpdate, kBandwidth, kLatency, kHost};

const std::vector<TrainingProperty> kTraining{
    {P::Sync, "sync", K::Sync},
    {P::Granularity, "granularity", K::Keyword, Dim::none(), false,
     {{"fine", static_cast<int>(Granularity::Fine)},
      {"coarse", static_cast<int>(Granularity::Coarse)}}},
    {P::ModelBytes, "model_bytes", K::Quantity, Dim::bytes()},
    {P::Bucket, "bucket", K::Quantity, Dim::bytes()},
    {P::FirstBucket, "first_bucket", K::Quantity, Dim::bytes()},
    {P::Sharing, "sharing", K::Keyword, Dim::none(), false,
     {{"fair", static_cast<int>(SharingKind::Fair)},
      {"fifo", static_cast<int>(SharingKind::Fifo)}}},
    {P::ShareRatio, "share_ratio", K::Ratio},
    {P::Overlap, "overlap", K::Overlap},
    {P::MessageOverhead, "message_overhead", K::Quantity, Dim::seconds(), true},
    {P::CommCpu, "comm_cpu", K::Quantity, Dim::seconds() / Dim::bytes(), true},
    {P::Fusion, "fusion", K::Quantity, Dim::bytes()},
    {P::Buffers, "buffers", K::Quantity, Dim::bytes(), true},
    {P::BackwardOverhead, "backward_overhead", K::Quantity, Dim::seconds(), true},
    {P::Protocol, "protocol", K::Keyword, Dim::none(), false,
     {{"eager", static_cast<int>(Protocol::Eager)},
      {"rendezvous", static_cast<int>(Protocol::Rendezvous)}}},
};

/// A quantity of `p`'s dimension within its bound (an infinite bandwidth is allowed).
std::optional<PropertyValue> quantity(const TrainingProperty& p, const Expr& e, const Scope& s,
                                      Diagnostics& diags) {
    auto v = evaluate_quantity(e, p.dim, s, diags);
    if (!v) return std::nullopt;
    bool ok = std::isfinite(*v) || (p.dim == Dim::rate() && *v > 0);
    ok = ok && (p.allow_zero ? *v >= 0 : *v > 0);
    if (!ok) {
        diags.error(e.range, "`" + std::string(p.name) + "` must be " +
                                 (p.allow_zero ? ">= 0" : "> 0") + ", got " +
                                 format_quantity({*v, p.dim}));
        return std::nullopt;
    }
    return *v;
}

std::optional<PropertyValue> keyword(const TrainingProperty& p, const Expr& e,
                                     Diagnostics& diags) {
    if (auto k = keyword_value(p, e)) return *k;
    std::vector<std::string> allowed;
    std::string list;
    for (const auto& [word, value] : p.keywords) {
        allowed.push_back(word);
        list += (list.empty() ? "`" : " or `") + word + "`";
    }
    auto id = identifier(e);
    diags.error(e.range, "`" + std::string(p.name) + "` must be " + list +
                             (id ? ", got `" + *id + "`" + did_you_mean(*id, allowed)
                                 : std::string()));
    return std::nullopt;
}

/// A dimensionless number in (0, 1].
std::optional<PropertyValue> ratio(const TrainingProperty& p, const Expr& e, const Scope& s,
                                   Diagnostics& diags) {
    auto v = evaluate_quantity(e, Dim::none(), s, diags);
    if (!v) return std::nullopt;
    if (!(*v > 0 && *v <= 1)) {
        diags.error(e.range, "`" + std::string(p.name) + "` must be in (0, 1], got " +
                                 format_quantity({*v, Dim::none()}));
        return std::nullopt;
    }
    return *v;
}

std::optional<PropertyValue> overlap(const TrainingProperty& p, const Expr& e, const Scope& s,
                                     Diagnostics& diags) {
    auto val = evaluate(e, s, diags);
    if (!val) return std::nullopt;
    if (const bool* b = std::get_if<bool>(&*val)) return OverlapValue{*b, 0};
    const auto* q = std::get_if<Quantity>(&*val);
    if (!q || !q->dim.dimensionless() || !(q->value >= 0 && q->value <= 1)) {
        diags.error(e.range, "`" + std::string(p.name) +
                                 "` must be `true`, `false` or a number in [0, 1], got " +
                                 (q ? format_quantity(*q) : kind_name(*val)));
        return std::nullopt;
    }
    return OverlapValue{q->value > 0, std::clamp(q->value, 0.0, 1.0)};
}

}  // namespace

const std::vector<TrainingProperty>& training_properties(TrainingBlock block) {
    switch (block) {
        case TrainingBlock::Host: return kHostBlock;
        case TrainingBlock::Worker: return kWorker;
        case TrainingBlock::Server: return kServer;
        case TrainingBlock::Training: break;
    }
    return kTraining;
}

std::vector<std::string> property_names(TrainingBlock block) {
    std::vector<std::string> out;
    for (const TrainingProperty& p : training_properties(block)) out.emplace_back(p.name);
    return out;
}

const TrainingProperty* find_training_property(TrainingBlock block, std::string_view name) {
    for (const TrainingProperty& p : training_properties(block)) {
        if (p.name == name) return &p;
    }
    return nullptr;
}

const TrainingProperty& property_rule(PropertyId id) {
    for (TrainingBlock block :
         {TrainingBlock::Host, TrainingBlock::Worker, TrainingBlock::Training}) {
        for (const TrainingProperty& p : training_properties(block)) {
            if (p.id == id) return p;
        }
    }
    return kUpdate;  // unreachable: every id is a host, worker or training property
}

std::string_view property_name(PropertyId id) { return property_rule(id).name; }

const Property* find_property(const std::vector<Property>& props, PropertyId id) {
    const std::string_view name = property_name(id);
    for (const Property& p : props) {
        if (p.name == name) return &p;
    }
    return nullptr;
}

std::optional<int> keyword_value(const TrainingProperty& p, const Expr& e) {
    auto id = identifier(e);
    if (!id) return std::nullopt;
    for (const auto& [word, value] : p.keywords) {
        if (word == *id) return value;
    }
    return std::nullopt;
}

std::optional<PropertyValue> evaluate_property(const TrainingProperty& p, const Expr& e,
                                               const Scope& scope, Diagnostics& diags,
                                               const PropertyContext& context) {
    switch (p.kind) {
        case ValueKind::Distribution:
            if (auto d = evaluate_distribution(e, scope, diags)) return *d;
            return std::nullopt;
        case ValueKind::Layers:
            if (auto t = evaluate_layers(e, scope, diags)) return t;
            return std::nullopt;
        case ValueKind::Quantity: return quantity(p, e, scope, diags);
        case ValueKind::Count:
            if (auto n = evaluate_integer(e, scope, diags, "`" + std::string(p.name) + "`", 1))
                return *n;
            return std::nullopt;
        case ValueKind::Sync:
            if (auto s = evaluate_sync(e, scope, diags)) return *s;
            return std::nullopt;
        case ValueKind::Keyword: return keyword(p, e, diags);
        case ValueKind::Ratio: return ratio(p, e, scope, diags);
        case ValueKind::Overlap: return overlap(p, e, scope, diags);
        case ValueKind::Host: {
            const HostTable none;
            const HostTable& hosts = context.hosts ? *context.hosts : none;
            if (auto k = hosts.place(e, scope, context.element, diags)) return HostPlacement{*k};
            return std::nullopt;
        }
    }
    return std::nullopt;
}

}  // namespace sgdnet::compiler
