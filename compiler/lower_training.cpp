// lower_training(): evaluates the host/worker/server/layers/training declarations into a
// TrainingSpec (per element index `i`) and lowers it with lower_training_spec() (docs/language.md §5).
#include "compiler/lower_training.hpp"

#include <cstdio>
#include <map>
#include <memory>
#include <string_view>
#include <string>
#include <vector>

#include "compiler/hosts.hpp"
#include "compiler/training_properties.hpp"
#include "training/training_spec.hpp"

namespace sgdnet::compiler {
namespace {

std::vector<LayerSpec> layer_specs(const LayerTable& table) {
    std::vector<LayerSpec> out;
    for (const auto& l : table.layers) {
        out.push_back(LayerSpec{l.name, l.fwd, l.bwd, l.bytes, l.bwd_order});
    }
    return out;
}

// ---- properties: the values of evaluate_property() stored in the spec ----------------------
// (check() has accepted every value, so the kinds and bounds hold.)

void store(HostSpec& h, PropertyId id, const PropertyValue& v) {
    switch (id) {
        case PropertyId::Cores: h.cores = std::get<double>(v); break;
        case PropertyId::Interference: h.interference = std::get<double>(v); break;
        case PropertyId::Oversubscription: h.oversubscription = std::get<double>(v); break;
        case PropertyId::Bandwidth: h.bandwidth_Bps = std::get<double>(v); break;
        case PropertyId::Latency: h.latency_s = std::get<double>(v); break;
        default: break;  // not a host property
    }
}

void store(WorkerSpec& w, PropertyId id, const PropertyValue& v) {
    switch (id) {
        case PropertyId::Compute: w.compute = std::get<net::Distribution>(v); break;
        case PropertyId::Layers:
            w.layers = layer_specs(*std::get<std::shared_ptr<const LayerTable>>(v));
            break;
        case PropertyId::Update: w.update = std::get<net::Distribution>(v); break;
        case PropertyId::Speed: w.speed = std::get<double>(v); break;
        case PropertyId::Bandwidth: w.bandwidth_Bps = std::get<double>(v); break;
        case PropertyId::Latency: w.latency_s = std::get<double>(v); break;
        case PropertyId::Batch: w.batch = static_cast<double>(std::get<int64_t>(v)); break;
        case PropertyId::Host: w.host = std::get<HostPlacement>(v).index; break;
        default: break;  // not a worker property
    }
}

void store(ServerSpec& s, PropertyId id, const PropertyValue& v) {
    switch (id) {
        case PropertyId::Update: s.update = std::get<net::Distribution>(v); break;
        case PropertyId::Bandwidth: s.bandwidth_Bps = std::get<double>(v); break;
        case PropertyId::Latency: s.latency_s = std::get<double>(v); break;
        case PropertyId::Host: s.host = std::get<HostPlacement>(v).index; break;
        default: break;  // not a server property
    }
}

void store(TrainingSpec& spec, PropertyId id, const PropertyValue& v) {
    switch (id) {
        case PropertyId::Sync:
            spec.sync = std::get<SyncScheme>(v).kind;
            spec.staleness = std::get<SyncScheme>(v).staleness;
            break;
        case PropertyId::Granularity: spec.granularity = static_cast<Granularity>(std::get<int>(v)); break;
        case PropertyId::ModelBytes: spec.model_bytes = std::get<double>(v); break;
        case PropertyId::Bucket: spec.bucket_bytes = spec.first_bucket_bytes = std::get<double>(v); break;
        case PropertyId::FirstBucket: spec.first_bucket_bytes = std::get<double>(v); break;
        case PropertyId::Sharing: spec.sharing = static_cast<SharingKind>(std::get<int>(v)); break;
        case PropertyId::ShareRatio: spec.share_ratio = std::get<double>(v); break;
        case PropertyId::Overlap:
            spec.overlap = std::get<OverlapValue>(v).overlap;
            spec.overlap_fraction = std::get<OverlapValue>(v).fraction;
            break;
        case PropertyId::MessageOverhead: spec.message_overhead_s = std::get<double>(v); break;
        case PropertyId::CommCpu: spec.comm_cpu_s_per_byte = std::get<double>(v); break;
        case PropertyId::Fusion: spec.fusion_bytes = std::get<double>(v); break;
        case PropertyId::Buffers: spec.buffer_bytes = std::get<double>(v); break;
        case PropertyId::BackwardOverhead: spec.backward_overhead_s = std::get<double>(v); break;
        case PropertyId::Protocol: spec.protocol = static_cast<Protocol>(std::get<int>(v)); break;
        default: break;  // not a training property
    }
}

/// Evaluates the properties of one host, worker or server element (index `i` bound in `row`),
/// in source order, into `out`; `context` has the hosts and the element's name.
template <class Spec>
void eval_element(TrainingBlock block, const std::vector<Property>& properties, const Scope& row,
                  const PropertyContext& context, Spec& out, Diagnostics& diags) {
    for (const Property& p : properties) {
        const TrainingProperty* rule = find_training_property(block, p.name);
        if (!rule) continue;
        if (auto v = evaluate_property(*rule, *p.value, row, diags, context))
            store(out, rule->id, *v);
    }
}

/// Every element of every `host` declaration, in HostTable order, into spec.hosts.
void eval_hosts(const HostTable& hosts, const Scope& scope, TrainingSpec& spec,
                Diagnostics& diags) {
    for (const HostTable::Array& a : hosts.arrays()) {
        for (int64_t i = 0; i < a.count; ++i) {
            Scope row = scope.with_index("i", i);
            HostSpec h;
            h.name = element_name(a.decl->name, a.decl->count != nullptr, i);
            h.where = a.decl->range;
            eval_element(TrainingBlock::Host, a.decl->properties, row, {&hosts, h.name}, h, diags);
            spec.hosts.push_back(std::move(h));
        }
    }
}

/// The declarations of a training system: the first `training` block, the first worker
/// declaration, and every worker and server element evaluated into `spec`.
struct Declared {
    const TrainingDecl* training = nullptr;
    const NodeDecl* first_worker = nullptr;
};

Declared eval_elements(const Ast& ast, const Scope& scope, const HostTable& hosts,
                       TrainingSpec& spec, Diagnostics& diags) {
    Declared out;
    for (const Decl& decl : ast.decls) {
        if (const auto* t = std::get_if<TrainingDecl>(&decl)) {
            if (!out.training) out.training = t;
            continue;
        }
        const auto* d = std::get_if<NodeDecl>(&decl);
        if (!d) continue;
        int64_t count = 1;
        if (d->count) {
            auto c = evaluate_integer(*d->count, scope, diags, "an array size", 1, kMaxArraySize);
            if (!c) continue;
            count = *c;
        }
        for (int64_t i = 0; i < count; ++i) {
            Scope row = scope.with_index("i", i);
            const PropertyContext context{&hosts, element_name(d->name, d->count != nullptr, i)};
            if (d->kind == NodeDecl::Kind::Worker) {
                if (!out.first_worker) out.first_worker = d;
                WorkerSpec w;
                w.name = context.element;
                w.where = d->range;
                eval_element(TrainingBlock::Worker, d->properties, row, context, w, diags);
                spec.workers.push_back(std::move(w));
            } else {
                ServerSpec s;
                s.name = context.element;
                s.where = d->range;
                eval_element(TrainingBlock::Server, d->properties, row, context, s, diags);
                spec.servers.push_back(std::move(s));
            }
        }
    }
    return out;
}

/// `model_bytes` beside a layer table at fine granularity: the messages carry the table's bytes
/// (DDP buckets, per-layer pushes), so the written size is not used; gossip, which sends the
/// whole model as one message, is the exception.
void warn_ignored_model_bytes(const TrainingDecl& training, const WorkerSpec* with_layers,
                              const TrainingSpec& spec, Diagnostics& diags) {
    const Property* p = find_property(training.properties, PropertyId::ModelBytes);
    if (!p || !with_layers || spec.granularity != Granularity::Fine ||
        spec.sync == SyncKind::Gossip)
        return;
    double bytes = 0;
    for (const auto& l : with_layers->layers) bytes += l.bytes;
    char mb[32];
    std::snprintf(mb, sizeof mb, "%.4g", bytes / 1e6);
    diags.warning(p->name_range, "model_bytes is ignored at fine granularity: the layer "
                                 "table's bytes (" + std::string(mb) + " MB) are used");
}

/// Evaluates the training block into `spec`, with the defaults that depend on the workers:
/// with layer tables the granularity is fine and model_bytes the first table's bytes; then the
/// block's properties in table order (`bucket` before `first_bucket`), then `--granularity`.
/// Without `sync`, or without model_bytes where messages need it, reports an error.
void eval_training(const TrainingDecl& training, const Scope& scope,
                   const CompileOptions& options, TrainingSpec& spec, Diagnostics& diags) {
    spec.where = training.range;
    const WorkerSpec* with_layers = nullptr;
    for (const auto& w : spec.workers) {
        if (!w.layers.empty()) {
            with_layers = &w;
            break;
        }
    }
    spec.granularity = with_layers ? Granularity::Fine : Granularity::Coarse;
    if (with_layers) {
        spec.model_bytes = 0;
        for (const auto& l : with_layers->layers) spec.model_bytes += l.bytes;
    }
    for (const TrainingProperty& rule : training_properties(TrainingBlock::Training)) {
        const Property* p = find_property(training.properties, rule.id);
        if (!p) continue;
        if (auto v = evaluate_property(rule, *p->value, scope, diags)) store(spec, rule.id, *v);
    }
    if (options.granularity) spec.granularity = *options.granularity;
    const Property* buffers = find_property(training.properties, PropertyId::Buffers);
    if (buffers && spec.buffer_bytes > 0 && spec.sync != SyncKind::AllreduceRing &&
        spec.sync != SyncKind::AllreduceTree) {
        diags.warning(buffers->name_range, "`buffers` is broadcast by all-reduce schemes only "
                                           "(allreduce_ring, allreduce_tree); it is ignored here");
    }
    const Property* ratio = find_property(training.properties, PropertyId::ShareRatio);
    if (ratio && spec.share_ratio != 1 && spec.sharing != SharingKind::Fair) {
        diags.warning(ratio->name_range, "`share_ratio` weighs fair sharing; with `sharing = "
                                         "fifo` it is ignored");
    }
    warn_ignored_model_bytes(training, with_layers, spec, diags);
    if (!find_property(training.properties, PropertyId::Sync)) {
        diags.error(training.range, "the training block needs `sync = …` (ps_sync, ps_async, "
                                    "ps_ssp(staleness = K), allreduce_ring, allreduce_tree, "
                                    "gossip)");
    }
    if (!find_property(training.properties, PropertyId::ModelBytes) && !with_layers &&
        (spec.workers.size() > 1 || !spec.servers.empty())) {
        diags.error(training.range,
                    "the training block needs `model_bytes = SIZE` (no worker has `layers`)");
    }
}

/// Source locations of the elements lowered from `first_place` and `first_transition` on: an
/// element named after a host, worker or server (`w[3].bwd.conv1`, `w[3].up.active`,
/// `h[0].cpu.active`) points at its declaration, every other one (and every measure without one)
/// at the training block.
void locate(const TrainingSpec& spec, std::size_t first_place, std::size_t first_transition,
            net::PetriNet& out) {
    std::map<std::string, SourceRange, std::less<>> owner;
    for (const auto& h : spec.hosts) owner[h.name] = h.where;
    for (const auto& w : spec.workers) owner[w.name] = w.where;
    for (const auto& s : spec.servers) owner[s.name] = s.where;
    auto where = [&](const std::string& name) {
        auto it = owner.find(std::string_view(name).substr(0, name.find('.')));
        return it != owner.end() ? it->second : spec.where;
    };
    for (std::size_t p = first_place; p < out.places.size(); ++p) {
        out.places[p].where = where(out.places[p].name);
    }
    for (std::size_t t = first_transition; t < out.transitions.size(); ++t) {
        out.transitions[t].where = where(out.transitions[t].name);
    }
    for (auto& m : out.measures) {
        if (!m.where.valid()) m.where = spec.where;
    }
}

}  // namespace

std::optional<TrainingSpec> evaluate_training_spec(const Ast& ast, const Scope& scope,
                                                   const CompileOptions& options,
                                                   Diagnostics& diags) {
    TrainingSpec spec;
    const std::size_t errors_before = diags.error_count();
    const HostTable hosts(ast, scope, diags);
    eval_hosts(hosts, scope, spec, diags);
    const Declared declared = eval_elements(ast, scope, hosts, spec, diags);
    if (spec.workers.empty() && !declared.training) return std::nullopt;
    if (!declared.training) {
        diags.error(declared.first_worker->name_range,
                    "workers are declared but there is no `training { sync = …; }` block");
        return std::nullopt;
    }
    eval_training(*declared.training, scope, options, spec, diags);
    if (spec.granularity == Granularity::Fine) {
        for (const auto& w : spec.workers) {
            if (w.layers.empty()) {
                diags.error(w.where, "fine granularity needs a layer table for worker " + w.name);
                return std::nullopt;
            }
        }
    }
    if (diags.error_count() > errors_before) return std::nullopt;
    return spec;
}

void lower_training(const Ast& ast, const Scope& scope, const CompileOptions& options,
                    net::PetriNet& out, Diagnostics& diags) {
    const std::optional<TrainingSpec> spec = evaluate_training_spec(ast, scope, options, diags);
    if (!spec) return;
    const std::size_t first_place = out.places.size();
    const std::size_t first_transition = out.transitions.size();
    const std::string error = lower_training_spec(*spec, out);
    if (!error.empty()) {
        diags.error(spec->where, error);
        return;
    }
    locate(*spec, first_place, first_transition, out);
}

}  // namespace sgdnet::compiler
