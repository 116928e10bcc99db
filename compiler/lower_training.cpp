// lower_training(): evaluates the worker/server/layers/training declarations into a TrainingSpec
// (per element index `i`) and lowers it with lower_training_spec() (LANGUAGE.md §5).
#include "compiler/lower_training.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <string>
#include <vector>

#include "training/training_spec.hpp"

namespace sgdnet::compiler {
namespace {

const Property* find_property(const std::vector<Property>& props, const std::string& name) {
    for (const Property& p : props) {
        if (p.name == name) return &p;
    }
    return nullptr;
}

std::vector<LayerSpec> layer_specs(const LayerTable& table) {
    std::vector<LayerSpec> out;
    for (const auto& l : table.layers) {
        out.push_back(LayerSpec{l.name, l.fwd, l.bwd, l.bytes, l.bwd_order});
    }
    return out;
}

/// Evaluates the properties of one worker element (index `i` bound in `row`).
void eval_worker(const NodeDecl& d, const Scope& row, WorkerSpec& w, Diagnostics& diags) {
    w.where = d.range;
    for (const Property& p : d.properties) {
        const Expr& v = *p.value;
        if (p.name == "compute") {
            if (auto x = evaluate_distribution(v, row, diags)) w.compute = *x;
        } else if (p.name == "layers") {
            if (auto t = evaluate_layers(v, row, diags)) w.layers = layer_specs(*t);
        } else if (p.name == "update") {
            if (auto x = evaluate_distribution(v, row, diags)) w.update = *x;
        } else if (p.name == "speed") {
            if (auto x = evaluate_quantity(v, Dim::none(), row, diags)) {
                if (*x > 0 && std::isfinite(*x)) {
                    w.speed = *x;
                } else {
                    diags.error(v.range, "`speed` must be > 0 for " + w.name + ", got " +
                                             format_number(*x));
                }
            }
        } else if (p.name == "bandwidth") {
            if (auto x = evaluate_quantity(v, Dim::rate(), row, diags)) {
                if (*x > 0) {
                    w.bandwidth_Bps = *x;
                } else {
                    diags.error(v.range, "`bandwidth` must be > 0 for " + w.name);
                }
            }
        } else if (p.name == "latency") {
            if (auto x = evaluate_quantity(v, Dim::seconds(), row, diags)) {
                if (*x >= 0) {
                    w.latency_s = *x;
                } else {
                    diags.error(v.range, "`latency` must be >= 0 for " + w.name);
                }
            }
        } else if (p.name == "batch") {
            if (auto x = evaluate_integer(v, row, diags, "`batch`", 1)) w.batch = static_cast<double>(*x);
        }
    }
}

void eval_server(const NodeDecl& d, const Scope& row, ServerSpec& s, Diagnostics& diags) {
    s.where = d.range;
    for (const Property& p : d.properties) {
        const Expr& v = *p.value;
        if (p.name == "update") {
            if (auto x = evaluate_distribution(v, row, diags)) s.update = *x;
        } else if (p.name == "bandwidth") {
            if (auto x = evaluate_quantity(v, Dim::rate(), row, diags)) {
                if (*x > 0) {
                    s.bandwidth_Bps = *x;
                } else {
                    diags.error(v.range, "`bandwidth` must be > 0 for " + s.name);
                }
            }
        } else if (p.name == "latency") {
            if (auto x = evaluate_quantity(v, Dim::seconds(), row, diags)) {
                if (*x >= 0) {
                    s.latency_s = *x;
                } else {
                    diags.error(v.range, "`latency` must be >= 0 for " + s.name);
                }
            }
        }
    }
}

/// Element names: `w[3]` for `worker w[N]`, `w` for `worker w` (no count written).
std::string element_name(const NodeDecl& d, int64_t i) {
    return d.count ? d.name + "[" + std::to_string(i) + "]" : d.name;
}

}  // namespace

void lower_training(const Ast& ast, const Scope& scope, const CompileOptions& options,
                    net::PetriNet& out, Diagnostics& diags) {
    TrainingSpec spec;
    const TrainingDecl* training = nullptr;
    const NodeDecl* first_worker = nullptr;
    const std::size_t errors_before = diags.error_count();
    for (const Decl& decl : ast.decls) {
        if (const auto* t = std::get_if<TrainingDecl>(&decl)) {
            if (!training) training = t;
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
            if (d->kind == NodeDecl::Kind::Worker) {
                if (!first_worker) first_worker = d;
                WorkerSpec w;
                w.name = element_name(*d, i);
                eval_worker(*d, row, w, diags);
                spec.workers.push_back(std::move(w));
            } else {
                ServerSpec s;
                s.name = element_name(*d, i);
                eval_server(*d, row, s, diags);
                spec.servers.push_back(std::move(s));
            }
        }
    }
    if (spec.workers.empty() && !training) return;
    if (!training) {
        diags.error(first_worker->name_range,
                    "workers are declared but there is no `training { sync = …; }` block");
        return;
    }
    spec.where = training->range;

    // Training properties.
    const std::vector<Property>& props = training->properties;
    bool has_layers = false;
    double layer_bytes = 0;
    for (const auto& w : spec.workers) {
        if (w.layers.empty()) continue;
        if (!has_layers) {
            for (const auto& l : w.layers) layer_bytes += l.bytes;
        }
        has_layers = true;
    }
    if (const Property* p = find_property(props, "sync")) {
        if (auto s = evaluate_sync(*p->value, scope, diags)) {
            using K = SyncScheme::Kind;
            switch (s->kind) {
                case K::PsSync: spec.sync = SyncKind::PsSync; break;
                case K::PsAsync: spec.sync = SyncKind::PsAsync; break;
                case K::PsSsp: spec.sync = SyncKind::PsSsp; break;
                case K::AllreduceRing: spec.sync = SyncKind::AllreduceRing; break;
                case K::AllreduceTree: spec.sync = SyncKind::AllreduceTree; break;
                case K::Gossip: spec.sync = SyncKind::Gossip; break;
            }
            spec.staleness = s->staleness;
        }
    } else {
        diags.error(training->range, "the training block needs `sync = …` (ps_sync, ps_async, "
                                     "ps_ssp(staleness = K), allreduce_ring, allreduce_tree, "
                                     "gossip)");
    }
    spec.granularity = has_layers ? GranularityKind::Fine : GranularityKind::Coarse;
    if (const Property* p = find_property(props, "granularity")) {
        if (auto id = identifier(*p->value)) {
            spec.granularity = *id == "fine" ? GranularityKind::Fine : GranularityKind::Coarse;
        }
    }
    if (options.granularity) {
        spec.granularity = *options.granularity == Granularity::Fine ? GranularityKind::Fine
                                                                      : GranularityKind::Coarse;
    }
    if (const Property* p = find_property(props, "model_bytes")) {
        if (auto x = evaluate_quantity(*p->value, Dim::bytes(), scope, diags)) spec.model_bytes = *x;
    } else if (has_layers) {
        spec.model_bytes = layer_bytes;
    } else if (spec.workers.size() > 1 || !spec.servers.empty()) {
        diags.error(training->range,
                    "the training block needs `model_bytes = SIZE` (no worker has `layers`)");
    }
    if (const Property* p = find_property(props, "bucket")) {
        if (auto x = evaluate_quantity(*p->value, Dim::bytes(), scope, diags)) {
            spec.bucket_bytes = spec.first_bucket_bytes = *x;
        }
    }
    if (const Property* p = find_property(props, "first_bucket")) {
        if (auto x = evaluate_quantity(*p->value, Dim::bytes(), scope, diags)) {
            spec.first_bucket_bytes = *x;
        }
    }
    if (const Property* p = find_property(props, "sharing")) {
        spec.sharing = identifier(*p->value) == std::optional<std::string>("fifo")
                           ? SharingKind::Fifo
                           : SharingKind::Fair;
    }
    // overlap: fine takes a boolean (a number counts as true when > 0); coarse takes a fraction
    // (a boolean means no overlap: `true` is the fine default, not a coarse fraction).
    spec.overlap = true;
    spec.overlap_fraction = 0;
    if (const Property* p = find_property(props, "overlap")) {
        if (auto v = evaluate(*p->value, scope, diags)) {
            if (const bool* b = std::get_if<bool>(&*v)) {
                spec.overlap = *b;
            } else if (const auto* q = std::get_if<Quantity>(&*v)) {
                spec.overlap = q->value > 0;
                spec.overlap_fraction = std::clamp(q->value, 0.0, 1.0);
            }
        }
    }
    if (spec.granularity == GranularityKind::Fine) {
        for (const auto& w : spec.workers) {
            if (w.layers.empty()) {
                diags.error(w.where, "fine granularity needs a layer table for worker " + w.name);
                return;
            }
        }
    }
    if (diags.error_count() > errors_before) return;
    const std::size_t first_place = out.places.size();
    const std::size_t first_transition = out.transitions.size();
    const std::string error = lower_training_spec(spec, out);
    if (!error.empty()) {
        diags.error(training->range, error);
        return;
    }
    // Source locations: an element named after a worker or server (`w[3].bwd.conv1`,
    // `w[3].up.active`) points at its declaration, every other one at the training block.
    std::map<std::string, SourceRange, std::less<>> owner;
    for (const auto& w : spec.workers) owner[w.name] = w.where;
    for (const auto& s : spec.servers) owner[s.name] = s.where;
    auto where = [&](const std::string& name) {
        auto it = owner.find(std::string_view(name).substr(0, name.find('.')));
        return it != owner.end() ? it->second : training->range;
    };
    for (std::size_t p = first_place; p < out.places.size(); ++p) {
        out.places[p].where = where(out.places[p].name);
    }
    for (std::size_t t = first_transition; t < out.transitions.size(); ++t) {
        out.transitions[t].where = where(out.transitions[t].name);
    }
    for (auto& m : out.measures) {
        if (!m.where.valid()) m.where = training->range;
    }
}

}  // namespace sgdnet::compiler
