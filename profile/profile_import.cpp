// Import of one-node PyTorch profiles (per-layer JSON or profiler Chrome trace) into layer tables.
#include "profile/profile_import.hpp"

#include "training/ddp_buckets.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

namespace sgdnet::profile {

using nlohmann::json;

ProfiledTime add_independent(const ProfiledTime& a, const ProfiledTime& b) {
    ProfiledTime out;
    out.mean_s = a.mean_s + b.mean_s;
    out.std_s = std::sqrt(a.std_s * a.std_s + b.std_s * b.std_s);
    out.n = std::min(a.n, b.n);
    return out;
}

net::Distribution fit_distribution(const ProfiledTime& t) {
    if (t.std_s == 0 || t.mean_s == 0) return net::Distribution{net::Det{t.mean_s}};
    return net::Distribution{net::Lognormal{t.mean_s, t.std_s / t.mean_s}};
}

std::string to_identifier(std::string_view name) {
    std::string out;
    out.reserve(name.size() + 1);
    for (char c : name) {
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '_';
        out.push_back(ok ? c : '_');
    }
    if (out.empty()) return "layer";
    if (out[0] >= '0' && out[0] <= '9') out.insert(out.begin(), '_');
    if (out == "true" || out == "false") out.push_back('_');
    return out;
}

namespace {

// JSON pointer of `parent` + one object key (RFC 6901 escapes).
std::string child(const std::string& parent, std::string_view key) {
    std::string out = parent + "/";
    for (char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out.push_back(c);
    }
    return out;
}
std::string child(const std::string& parent, std::size_t index) {
    return parent + "/" + std::to_string(index);
}

// Reports problems as `profile FILE: /pointer: message` at one source range; remembers failure.
class Reader {
public:
    Reader(std::string file, Diagnostics& diags, SourceRange where)
        : file_(std::move(file)), diags_(diags), where_(where) {}

    void error(const std::string& path, const std::string& message) {
        diags_.error(where_, "profile " + file_ + ": " + (path.empty() ? "/" : path) + ": " +
                                 message);
        ok_ = false;
    }
    void error_plain(const std::string& message) {
        diags_.error(where_, "profile " + file_ + ": " + message);
        ok_ = false;
    }
    void warning(const std::string& message) {
        diags_.warning(where_, "profile " + file_ + ": " + message);
    }
    bool ok() const { return ok_; }

    // The member `key` of object `obj` (at `path`); reports a missing required member.
    const json* member(const json& obj, const std::string& path, std::string_view key,
                       bool required) {
        auto it = obj.find(key);
        if (it == obj.end()) {
            if (required) error(child(path, key), "missing required field");
            return nullptr;
        }
        return &*it;
    }
    // `obj[key]` of JSON type `want` ("object", "array", "string", "number", "integer").
    const json* typed(const json& obj, const std::string& path, std::string_view key,
                      std::string_view want, bool required) {
        const json* v = member(obj, path, key, required);
        if (!v) return nullptr;
        if (!has_type(*v, want)) {
            error(child(path, key), "expected " + article(want) + ", got " + got(*v));
            return nullptr;
        }
        return v;
    }
    // A finite number >= 0 at `obj[key]`.
    std::optional<double> nonneg(const json& obj, const std::string& path, std::string_view key,
                                 bool required) {
        const json* v = typed(obj, path, key, "number", required);
        if (!v) return std::nullopt;
        double d = v->get<double>();
        if (!std::isfinite(d) || d < 0) {
            error(child(path, key), "expected a finite number >= 0, got " + v->dump());
            return std::nullopt;
        }
        return d;
    }
    // A finite number > 0 at `obj[key]`.
    std::optional<double> positive(const json& obj, const std::string& path,
                                   std::string_view key, bool required) {
        auto d = nonneg(obj, path, key, required);
        if (d && *d == 0) {
            error(child(path, key), "expected a number > 0, got 0");
            return std::nullopt;
        }
        return d;
    }
    // A time {"mean", "std", "n"} in seconds at `obj[key]` (`n` optional).
    std::optional<ProfiledTime> time(const json& obj, const std::string& path,
                                     std::string_view key, bool required) {
        const json* v = typed(obj, path, key, "object", required);
        if (!v) return std::nullopt;
        std::string p = child(path, key);
        auto mean = nonneg(*v, p, "mean", true);
        auto sd = nonneg(*v, p, "std", true);
        std::optional<double> n = 0.0;
        if (v->contains("n")) n = nonneg(*v, p, "n", false);
        if (!mean || !sd || !n) return std::nullopt;
        return ProfiledTime{*mean, *sd, static_cast<int>(std::min(*n, 1e9))};
    }

private:
    static bool has_type(const json& v, std::string_view want) {
        if (want == "object") return v.is_object();
        if (want == "array") return v.is_array();
        if (want == "string") return v.is_string();
        if (want == "number") return v.is_number();
        if (want == "integer") return v.is_number_integer();
        return false;
    }
    static std::string article(std::string_view want) {
        return (want == "object" || want == "array" || want == "integer" ? "an " : "a ") +
               std::string(want);
    }
    static std::string got(const json& v) {
        if (v.is_number_float()) return "a non-integer number " + v.dump();
        return v.type_name();
    }

    std::string file_;
    Diagnostics& diags_;
    SourceRange where_;
    bool ok_ = true;
};

// Sample mean and standard deviation (n − 1 denominator) of `xs`, in seconds.
ProfiledTime moments(const std::vector<double>& xs) {
    ProfiledTime t;
    t.n = static_cast<int>(xs.size());
    if (xs.empty()) return t;
    double sum = 0;
    for (double x : xs) sum += x;
    t.mean_s = sum / static_cast<double>(xs.size());
    if (xs.size() > 1) {
        double ss = 0;
        for (double x : xs) ss += (x - t.mean_s) * (x - t.mean_s);
        t.std_s = std::sqrt(ss / static_cast<double>(xs.size() - 1));
    }
    return t;
}

// Assigns unique identifiers in forward order: to_identifier, then `_2`, `_3`, … on collision.
void assign_identifiers(std::vector<ProfiledLayer>& layers) {
    std::set<std::string> used;
    for (auto& l : layers) {
        std::string base = to_identifier(l.name);
        std::string id = base;
        for (int k = 2; used.count(id); ++k) id = base + "_" + std::to_string(k);
        used.insert(id);
        l.ident = id;
    }
}

// Folds the tails into the layers (see ProfiledLayer::fwd_time) and fits every distribution.
void finish(Profile& p) {
    for (auto& l : p.layers) {
        l.fwd_time = l.fwd_gap;
        l.bwd_time = l.bwd_gap;
    }
    if (!p.layers.empty()) {
        auto& first = p.layers.front();
        first.fwd_time = add_independent(first.fwd_time, p.zero_grad);
        auto& last = p.layers.back();
        last.fwd_time = add_independent(last.fwd_time, p.fwd_tail);
        auto last_ready = std::max_element(p.layers.begin(), p.layers.end(),
                                           [](const ProfiledLayer& a, const ProfiledLayer& b) {
                                               return a.bwd_order < b.bwd_order;
                                           });
        last_ready->bwd_time = add_independent(last_ready->bwd_time, p.bwd_tail);
    }
    for (auto& l : p.layers) {
        l.fwd = fit_distribution(l.fwd_time);
        l.bwd = fit_distribution(l.bwd_time);
    }
    assign_identifiers(p.layers);
    p.compute_time = add_independent(add_independent(p.zero_grad, p.forward), p.backward);
    p.compute = fit_distribution(p.compute_time);
    p.update = fit_distribution(p.optimizer);
    p.step_dist = fit_distribution(p.step);
}

// Residual `total − parts` as a derived time (n = 0), clamped at 0; std from the difference of
// independent times would be meaningless, so it is 0.
ProfiledTime residual(const ProfiledTime& total, double parts_s) {
    return ProfiledTime{std::max(0.0, total.mean_s - parts_s), 0.0, 0};
}

// ------------------------------------------------------------------------------------------
// Format 1: the per-layer profile.

// The optional top-level `workload`, `batch` and `timed_steps`.
void read_header(const json& j, Reader& r, Profile& p) {
    if (auto* w = r.typed(j, "", "workload", "string", false)) p.workload = w->get<std::string>();
    if (auto* b = r.typed(j, "", "batch", "integer", false)) p.batch = b->get<int>();
    if (auto* s = r.typed(j, "", "timed_steps", "integer", false)) p.steps = s->get<int>();
    p.buffer_bytes = r.nonneg(j, "", "buffer_bytes", false);
    p.ddp_overhead_s = r.nonneg(j, "", "ddp_overhead_s", false);
    p.ps_worker_overhead_s = r.nonneg(j, "", "ps_worker_overhead_s", false);
    p.server_update = r.time(j, "", "server_update_s", false);
    p.aggregate = r.time(j, "", "aggregate_s", false);
    p.steady_step_s = r.positive(j, "", "steady_step_s", false);
}

// One entry of `/layers` (at `path`, index `i` of `count`); records its name in `by_name`.
ProfiledLayer read_layer(const json& l, const std::string& path, std::size_t i, std::size_t count,
                         Reader& r, std::map<std::string, int>& by_name) {
    ProfiledLayer layer;
    if (auto* n = r.typed(l, path, "name", "string", true)) {
        layer.name = n->get<std::string>();
        if (!by_name.emplace(layer.name, static_cast<int>(i)).second)
            r.error(child(path, "name"), "layer `" + layer.name + "` appears twice");
    }
    if (auto* t = r.typed(l, path, "type", "string", false)) layer.type = t->get<std::string>();
    if (auto b = r.nonneg(l, path, "param_bytes", true)) layer.bytes = *b;
    if (auto t = r.time(l, path, "fwd_s", true)) layer.fwd_gap = *t;
    if (auto t = r.time(l, path, "bwd_s", true)) layer.bwd_gap = *t;
    if (auto* o = r.typed(l, path, "bwd_order", "integer", true)) {
        layer.bwd_order = o->get<int>();
        if (layer.bwd_order < 0 || layer.bwd_order >= static_cast<int>(count)) {
            r.error(child(path, "bwd_order"), "expected an integer in 0.." +
                                                  std::to_string(count - 1) + ", got " +
                                                  std::to_string(layer.bwd_order));
        }
    }
    return layer;
}

// Reports two layers claiming the same gradient-ready position (each bwd_order is in range).
void check_ready_order(const std::vector<ProfiledLayer>& layers, Reader& r) {
    std::vector<int> seen(layers.size(), -1);
    for (std::size_t i = 0; i < layers.size(); ++i) {
        int o = layers[i].bwd_order;
        if (seen[o] >= 0)
            r.error(child(child("/layers", i), "bwd_order"),
                    "gradient-ready position " + std::to_string(o) + " is also that of /layers/" +
                        std::to_string(seen[o]));
        seen[o] = static_cast<int>(i);
    }
}

// `/layers` into p.layers, in forward order; returns the index of each layer name.
std::map<std::string, int> read_layers(const json& j, Reader& r, Profile& p) {
    std::map<std::string, int> by_name;
    const json* layers = r.typed(j, "", "layers", "array", true);
    if (!layers) return by_name;
    if (layers->empty()) r.error("/layers", "no layers");
    for (std::size_t i = 0; i < layers->size(); ++i) {
        const json& l = (*layers)[i];
        std::string path = child("/layers", i);
        if (!l.is_object()) {
            r.error(path, std::string("expected an object, got ") + l.type_name());
            continue;
        }
        p.layers.push_back(read_layer(l, path, i, layers->size(), r, by_name));
    }
    if (r.ok()) check_ready_order(p.layers, r);
    return by_name;
}

// `/totals`: the phases of a step; the tails and the step default to what the layers leave.
void read_totals(const json& j, Reader& r, Profile& p) {
    const json* totals = r.typed(j, "", "totals", "object", true);
    if (!totals) return;
    auto fwd = r.time(*totals, "/totals", "forward_s", true);
    auto bwd = r.time(*totals, "/totals", "backward_s", true);
    auto opt = r.time(*totals, "/totals", "optimizer_s", true);
    auto zg = r.time(*totals, "/totals", "zero_grad_s", false);
    auto step = r.time(*totals, "/totals", "step_s", false);
    auto ftail = r.time(*totals, "/totals", "fwd_tail_s", false);
    auto btail = r.time(*totals, "/totals", "bwd_tail_s", false);
    if (fwd) p.forward = *fwd;
    if (bwd) p.backward = *bwd;
    if (opt) p.optimizer = *opt;
    if (zg) p.zero_grad = *zg;
    double sum_fwd = 0, sum_bwd = 0;
    for (const auto& l : p.layers) {
        sum_fwd += l.fwd_gap.mean_s;
        sum_bwd += l.bwd_gap.mean_s;
    }
    p.fwd_tail = ftail ? *ftail : residual(p.forward, sum_fwd);
    p.bwd_tail = btail ? *btail : residual(p.backward, sum_bwd);
    p.step = step ? *step
                  : ProfiledTime{p.zero_grad.mean_s + p.forward.mean_s + p.backward.mean_s +
                                     p.optimizer.mean_s,
                                 0.0, 0};
}

// With `steady_step_s`, every time of the step scaled by steady_step_s / step (the timed
// step's mean), so that the step is the steady one and its parts keep their shares and cvs.
void scale_to_steady_step(Profile& p) {
    if (!p.steady_step_s || p.step.mean_s <= 0) return;
    p.step_scale = *p.steady_step_s / p.step.mean_s;
    auto scale = [&](ProfiledTime& t) {
        t.mean_s *= p.step_scale;
        t.std_s *= p.step_scale;
    };
    for (auto& l : p.layers) {
        scale(l.fwd_gap);
        scale(l.bwd_gap);
    }
    for (ProfiledTime* t : {&p.zero_grad, &p.forward, &p.backward, &p.optimizer, &p.step,
                            &p.fwd_tail, &p.bwd_tail})
        scale(*t);
}

// The layer names of one recorded bucket (`names` at `path`) as indices into the layers, ascending.
std::vector<int> bucket_members(const json* names, const std::string& path, Reader& r,
                                const std::map<std::string, int>& by_name) {
    std::vector<int> members;
    if (!names) return members;
    for (std::size_t k = 0; k < names->size(); ++k) {
        const json& nm = (*names)[k];
        std::string npath = child(path, k);
        if (!nm.is_string()) {
            r.error(npath, std::string("expected a string, got ") + nm.type_name());
            continue;
        }
        auto found = by_name.find(nm.get<std::string>());
        if (found == by_name.end()) {
            r.error(npath, "unknown layer `" + nm.get<std::string>() + "`");
            continue;
        }
        members.push_back(found->second);
    }
    std::sort(members.begin(), members.end());
    return members;
}

// The bucket cap of `/ddp_buckets/KEY`: `logging.bucket_cap_bytes`, else KEY MB; 0 when neither.
double bucket_cap(const json& rec, const std::string& path, const std::string& key, Reader& r) {
    char* end = nullptr;
    double cap_mb = std::strtod(key.c_str(), &end);
    double cap_B = (end && *end == '\0' && cap_mb > 0) ? cap_mb * 1024 * 1024 : 0;
    if (auto* lg = r.typed(rec, path, "logging", "object", false)) {
        if (auto c = r.nonneg(*lg, child(path, "logging"), "bucket_cap_bytes", false)) cap_B = *c;
    }
    return cap_B;
}

// One entry `/ddp_buckets/KEY` (at `path`): {"buckets": [{"bytes", "layers": [names]}], "logging"}.
RecordedBuckets read_recorded(const json& rec_json, const std::string& path, const std::string& key,
                              Reader& r, const std::map<std::string, int>& by_name) {
    RecordedBuckets rec;
    rec.cap_key = key;
    rec.cap_B = bucket_cap(rec_json, path, key, r);
    if (rec.cap_B <= 0)
        r.error(path, "bucket cap unknown: the key is not a size in MB and "
                      "logging/bucket_cap_bytes is missing");
    const json* buckets = r.typed(rec_json, path, "buckets", "array", true);
    if (!buckets) return rec;
    for (std::size_t b = 0; b < buckets->size(); ++b) {
        const json& bk = (*buckets)[b];
        std::string bpath = child(child(path, "buckets"), b);
        if (!bk.is_object()) {
            r.error(bpath, std::string("expected an object, got ") + bk.type_name());
            continue;
        }
        auto bytes = r.nonneg(bk, bpath, "bytes", true);
        const json* names = r.typed(bk, bpath, "layers", "array", true);
        rec.layers.push_back(bucket_members(names, child(bpath, "layers"), r, by_name));
        rec.bytes.push_back(bytes.value_or(0));
    }
    return rec;
}

// The optional `/ddp_buckets`: the buckets DDP really used, one entry per bucket cap.
void read_ddp_buckets(const json& j, Reader& r, const std::map<std::string, int>& by_name,
                      Profile& p) {
    const json* ddp = r.typed(j, "", "ddp_buckets", "object", false);
    if (!ddp) return;
    for (auto it = ddp->begin(); it != ddp->end(); ++it) {
        std::string path = child("/ddp_buckets", it.key());
        if (!it->is_object()) {
            r.error(path, std::string("expected an object, got ") + it->type_name());
            continue;
        }
        p.recorded_buckets.push_back(read_recorded(*it, path, it.key(), r, by_name));
    }
}

// The optional `/comm_probe`: its numbers `message_overhead_s`, `comm_cpu_s_per_byte` (>= 0),
// `cores` (> 0) and the optional `interference` and `oversubscription` (>= 0); its other members
// are for people and not read.
void read_comm_probe(const json& j, Reader& r, Profile& p) {
    const json* probe = r.typed(j, "", "comm_probe", "object", false);
    if (!probe) return;
    const std::string path = "/comm_probe";
    auto overhead = r.nonneg(*probe, path, "message_overhead_s", true);
    auto cpu = r.nonneg(*probe, path, "comm_cpu_s_per_byte", true);
    auto cores = r.positive(*probe, path, "cores", true);
    if (!overhead || !cpu || !cores) return;
    auto interference = r.nonneg(*probe, path, "interference", false);
    auto oversubscription = r.nonneg(*probe, path, "oversubscription", false);
    p.comm_probe = CommProbe{*overhead, *cpu, *cores, interference, oversubscription};
}

std::optional<Profile> parse_layer_json(const json& j, Reader& r, const std::string& file) {
    Profile p;
    p.source = Profile::Source::LayerJson;
    p.file = file;
    read_header(j, r, p);
    auto by_name = read_layers(j, r, p);
    read_totals(j, r, p);
    scale_to_steady_step(p);
    read_ddp_buckets(j, r, by_name, p);
    read_comm_probe(j, r, p);
    if (!r.ok()) return std::nullopt;
    finish(p);
    return p;
}

// ------------------------------------------------------------------------------------------
// Format 2: a PyTorch profiler Chrome trace.

struct Range {
    double begin_us = 0, end_us = 0;
    std::size_t index = 0;  // position in the event list (for messages)
};

bool inside(const Range& inner, const Range& outer) {
    return inner.begin_us >= outer.begin_us && inner.end_us <= outer.end_us;
}

double seconds(const Range& r) { return (r.end_us - r.begin_us) * 1e-6; }

bool is_step_name(const std::string& n) {
    auto digits_after = [&](std::size_t pos) {
        return pos < n.size() &&
               std::all_of(n.begin() + static_cast<std::ptrdiff_t>(pos), n.end(),
                           [](char c) { return c >= '0' && c <= '9'; });
    };
    if (n.rfind("step_", 0) == 0) return digits_after(5);
    if (n.rfind("ProfilerStep#", 0) == 0) return digits_after(13);
    return false;
}

constexpr std::string_view kLayerPrefix = "layer_fwd:";

// The complete ("X") events of a trace that matter, by kind, each sorted by start.
struct TraceRanges {
    std::vector<Range> steps, zero_grads, forwards, backwards, optimizers;
    std::vector<std::pair<std::string, Range>> layers;  // `layer_fwd:NAME` as (NAME, range)
};

// Files one event (at `path`, position `i`) under its kind; other events are skipped.
void collect_event(const json& e, const std::string& path, std::size_t i, Reader& r,
                   TraceRanges& out) {
    if (!e.is_object()) {
        r.error(path, std::string("expected an object, got ") + e.type_name());
        return;
    }
    const json* ph = r.typed(e, path, "ph", "string", false);
    if (!ph || ph->get<std::string>() != "X") return;  // only complete events carry ranges
    const json* name = r.typed(e, path, "name", "string", true);
    if (!name) return;
    const std::string n = name->get<std::string>();
    bool step = is_step_name(n);
    bool layer = n.rfind(kLayerPrefix, 0) == 0;
    bool phase = n == "zero_grad" || n == "forward" || n == "backward" || n == "optimizer";
    if (!step && !layer && !phase) return;
    auto ts = r.typed(e, path, "ts", "number", true);
    auto dur = r.nonneg(e, path, "dur", true);
    if (!ts || !dur) return;
    Range range{ts->get<double>(), ts->get<double>() + *dur, i};
    if (step)
        out.steps.push_back(range);
    else if (layer)
        out.layers.emplace_back(n.substr(kLayerPrefix.size()), range);
    else if (n == "zero_grad")
        out.zero_grads.push_back(range);
    else if (n == "forward")
        out.forwards.push_back(range);
    else if (n == "backward")
        out.backwards.push_back(range);
    else
        out.optimizers.push_back(range);
}

// The ranges of `events` (at JSON pointer `base`); nullopt after an error, including a missing
// forward, backward or optimizer phase.
std::optional<TraceRanges> collect_ranges(const json& events, const std::string& base, Reader& r) {
    TraceRanges t;
    for (std::size_t i = 0; i < events.size(); ++i)
        collect_event(events[i], child(base, i), i, r, t);
    if (!r.ok()) return std::nullopt;
    if (t.forwards.empty() || t.backwards.empty() || t.optimizers.empty()) {
        std::string missing;
        for (auto [v, nm] : {std::pair{&t.forwards, "forward"}, std::pair{&t.backwards, "backward"},
                             std::pair{&t.optimizers, "optimizer"}})
            if (v->empty()) missing += std::string(missing.empty() ? "" : ", ") + "`" + nm + "`";
        r.error(base, "no " + missing + " record_function range (ph \"X\") in the trace");
        return std::nullopt;
    }
    auto by_start = [](const Range& a, const Range& b) { return a.begin_us < b.begin_us; };
    for (auto* v : {&t.steps, &t.zero_grads, &t.forwards, &t.backwards, &t.optimizers})
        std::sort(v->begin(), v->end(), by_start);
    std::stable_sort(t.layers.begin(), t.layers.end(), [](const auto& a, const auto& b) {
        return a.second.begin_us < b.second.begin_us;
    });
    return t;
}

// Per-layer forward gap samples: the `layer_fwd:` ranges inside each forward range, which must
// be the same layers in the same order in every step.
struct LayerGaps {
    std::vector<std::string> names;         // layers of the first forward, in order
    std::vector<std::vector<double>> gaps;  // [layer][step], seconds
    std::vector<double> fwd_tail;           // [step]: end of the last layer to end of forward
};

// The gaps of every forward of `t`; nullopt (after an error) when a forward differs in layers.
std::optional<LayerGaps> layer_gaps(const TraceRanges& t, const std::string& base, Reader& r) {
    LayerGaps g;
    for (std::size_t k = 0; k < t.forwards.size(); ++k) {
        const Range& f = t.forwards[k];
        std::vector<std::pair<std::string, Range>> in;
        for (const auto& le : t.layers)
            if (inside(le.second, f)) in.push_back(le);
        if (k == 0) {
            for (const auto& le : in) g.names.push_back(le.first);
            g.gaps.assign(g.names.size(), {});
        } else {
            bool same = in.size() == g.names.size();
            for (std::size_t i = 0; same && i < in.size(); ++i) same = in[i].first == g.names[i];
            if (!same) {
                r.error(child(base, f.index),
                        "the `layer_fwd:` ranges inside forward range " + std::to_string(k + 1) +
                            " differ from those inside the first one (" +
                            std::to_string(in.size()) + " vs " + std::to_string(g.names.size()) +
                            " layers, or another order)");
                return std::nullopt;
            }
        }
        double prev = f.begin_us;
        for (std::size_t i = 0; i < in.size(); ++i) {
            g.gaps[i].push_back((in[i].second.end_us - prev) * 1e-6);
            prev = in[i].second.end_us;
        }
        g.fwd_tail.push_back((f.end_us - prev) * 1e-6);
    }
    return g;
}

// Sample moments of the durations of `ranges`.
ProfiledTime duration_moments(const std::vector<Range>& ranges) {
    std::vector<double> s;
    for (const auto& x : ranges) s.push_back(seconds(x));
    return moments(s);
}

// The phases of a step; without step ranges the step is the sum of the phase means.
void trace_phases(const TraceRanges& t, const LayerGaps& g, Profile& p) {
    p.forward = duration_moments(t.forwards);
    p.backward = duration_moments(t.backwards);
    p.optimizer = duration_moments(t.optimizers);
    p.zero_grad = duration_moments(t.zero_grads);
    p.fwd_tail = moments(g.fwd_tail);
    p.bwd_tail = ProfiledTime{};  // not observable without per-layer backward times
    p.steps = static_cast<int>(t.steps.empty() ? t.forwards.size() : t.steps.size());
    p.step = t.steps.empty() ? ProfiledTime{p.zero_grad.mean_s + p.forward.mean_s +
                                                p.backward.mean_s + p.optimizer.mean_s,
                                            0.0, 0}
                             : duration_moments(t.steps);
}

// Layers: forward gap times measured; backward apportioned to the forward gaps (same cv as
// the whole backward), reverse layer order, bytes unknown (docs/profiles.md).
void trace_layers(const LayerGaps& g, Profile& p) {
    double sum_gap = 0;
    for (std::size_t i = 0; i < g.names.size(); ++i) {
        ProfiledLayer l;
        l.name = g.names[i];
        l.fwd_gap = moments(g.gaps[i]);
        sum_gap += l.fwd_gap.mean_s;
        l.bwd_order = static_cast<int>(g.names.size() - 1 - i);
        p.layers.push_back(std::move(l));
    }
    double cv_bwd = p.backward.mean_s > 0 ? p.backward.std_s / p.backward.mean_s : 0;
    for (auto& l : p.layers) {
        double share = sum_gap > 0 ? l.fwd_gap.mean_s / sum_gap
                                   : 1.0 / static_cast<double>(p.layers.size());
        l.bwd_gap = ProfiledTime{p.backward.mean_s * share, p.backward.mean_s * share * cv_bwd, 0};
    }
}

// Warns of what a trace with layers cannot give (and of a layer name repeated in a forward).
void warn_trace_limits(const LayerGaps& g, Reader& r) {
    if (g.names.empty()) return;
    std::set<std::string> names(g.names.begin(), g.names.end());
    if (names.size() != g.names.size())
        r.warning("a `layer_fwd:` name occurs twice in one forward; each occurrence is a "
                  "separate layer");
    r.warning("a trace gives no per-layer backward times and no parameter sizes: each "
              "layer's bwd is the step's backward apportioned to its forward time, bytes are "
              "0 (use the per-layer profile of examples/profiling/profile_model.py)");
}

std::optional<Profile> parse_trace(const json& events, const std::string& base, Reader& r,
                                   const std::string& file) {
    if (events.empty()) {
        r.error(base, "empty trace: no events");
        return std::nullopt;
    }
    auto ranges = collect_ranges(events, base, r);
    if (!ranges) return std::nullopt;
    auto gaps = layer_gaps(*ranges, base, r);
    if (!gaps) return std::nullopt;

    Profile p;
    p.source = Profile::Source::ChromeTrace;
    p.file = file;
    p.has_layer_backward = false;
    p.has_bytes = false;
    trace_phases(*ranges, *gaps, p);
    trace_layers(*gaps, p);
    warn_trace_limits(*gaps, r);
    finish(p);
    return p;
}

// Formats a time in ms (>= 1 ms) or us with 6 significant digits; a zero time is `0 ms`.
std::string format_time(double s) {
    char buf[64];
    if (s == 0) return "0 ms";
    if (s >= 1e-3)
        std::snprintf(buf, sizeof buf, "%.6g ms", s * 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.6g us", s * 1e6);
    return buf;
}

std::string format_dist(const ProfiledTime& t) {
    if (t.std_s == 0 || t.mean_s == 0) return "det(" + format_time(t.mean_s) + ")";
    char cv[32];
    std::snprintf(cv, sizeof cv, "%.6g", t.std_s / t.mean_s);
    return "lognormal(mean = " + format_time(t.mean_s) + ", cv = " + cv + ")";
}

}  // namespace

std::optional<Profile> parse_profile(std::string_view text, const std::string& display_name,
                                     Diagnostics& diags, SourceRange where) {
    Reader r(display_name, diags, where);
    try {
        json j;
        try {
            j = json::parse(text);
        } catch (const json::parse_error& e) {
            std::string what = e.what();
            // "[json.exception.parse_error.101] parse error at line 1, column 7: …"
            auto pos = what.find("] ");
            if (pos != std::string::npos) what = what.substr(pos + 2);
            r.error_plain("invalid JSON (truncated or malformed): " + what);
            return std::nullopt;
        }
        if (j.is_array()) return parse_trace(j, "", r, display_name);
        if (j.is_object() && j.contains("traceEvents")) {
            const json* ev = r.typed(j, "", "traceEvents", "array", true);
            if (!ev) return std::nullopt;
            return parse_trace(*ev, "/traceEvents", r, display_name);
        }
        if (j.is_object() && j.contains("layers")) return parse_layer_json(j, r, display_name);
        r.error("", std::string("neither a per-layer profile (no /layers) nor a Chrome trace (no "
                                "/traceEvents and not a list of events); got ") +
                        (j.is_object() ? "an object" : j.type_name()));
        return std::nullopt;
    } catch (const std::exception& e) {
        // Defensive: every access above is type-checked, so this is not expected.
        r.error_plain(std::string("cannot read: ") + e.what());
        return std::nullopt;
    }
}

std::optional<Profile> load_profile(const std::string& path, Diagnostics& diags,
                                    SourceRange where) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        diags.error(where, "profile " + path + ": cannot read: " + std::strerror(errno));
        return std::nullopt;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return parse_profile(text.str(), path, diags, where);
}

std::vector<std::vector<int>> ddp_buckets(const Profile& p, double bucket_cap_B,
                                          double first_bucket_cap_B) {
    std::vector<int> ready(p.layers.size());
    std::vector<double> bytes(p.layers.size());
    for (std::size_t i = 0; i < ready.size(); ++i) {
        ready[i] = static_cast<int>(i);
        bytes[i] = p.layers[i].bytes;
    }
    std::stable_sort(ready.begin(), ready.end(), [&](int a, int b) {
        return p.layers[static_cast<std::size_t>(a)].bwd_order <
               p.layers[static_cast<std::size_t>(b)].bwd_order;
    });
    return training::ddp_bucket_assignment(ready, bytes, bucket_cap_B, first_bucket_cap_B);
}

std::string to_sgdnet(const Profile& p, const std::string& name) {
    std::ostringstream o;
    bool trace = p.source == Profile::Source::ChromeTrace;
    o << "// Imported by `sgdnet import-profile` from " << p.file << "\n";
    o << "// (" << (trace ? "PyTorch profiler Chrome trace" : "per-layer profile");
    if (!p.workload.empty()) o << ", workload " << p.workload;
    if (p.batch > 0) o << ", batch " << p.batch;
    if (p.steps > 0) o << ", " << p.steps << " steps";
    o << ").\n";
    o << "// Times are fitted as lognormal(mean, cv = std/mean), det when std = 0 "
         "(docs/profiles.md).\n";
    if (p.steady_step_s) {
        char scale[32];
        std::snprintf(scale, sizeof scale, "%.6g", p.step_scale);
        o << "// The step's times are scaled by " << scale << " to the steady step ("
          << format_time(*p.steady_step_s) << ", `steady_step_s`) from the timed one ("
          << format_time(*p.steady_step_s / p.step_scale) << ").\n";
    }
    if (!p.layers.empty()) {
        o << "// fwd/bwd are gap times; the first layer's fwd includes zero_grad, the last "
             "layer's fwd the\n// forward tail (loss included), the last-ready layer's bwd the "
             "backward tail, so that\n// sum(fwd) + sum(bwd) = "
          << name << "_compute.\n";
        if (trace)
            o << "// WARNING: a trace gives no per-layer backward times nor parameter sizes: bwd "
                 "is the backward\n// phase apportioned to the forward times and bytes are 0. "
                 "Fill in the bytes before a\n// communication model uses this table.\n";
        bool reverse = true;
        for (std::size_t i = 0; i < p.layers.size(); ++i)
            reverse = reverse &&
                      p.layers[i].bwd_order == static_cast<int>(p.layers.size() - 1 - i);
        o << "// Gradient-ready order: "
          << (!reverse  ? "recorded in the `order` column."
              : trace ? "reverse layer order (assumed: a trace does not record it)."
                      : "reverse layer order (as profiled).")
          << "\n";
        o << "layers " << name << " {\n";
        for (const auto& l : p.layers) {
            char bytes[48];
            std::snprintf(bytes, sizeof bytes, "%.0f B", l.bytes);
            o << "    " << l.ident << ": fwd = " << format_dist(l.fwd_time)
              << ", bwd = " << format_dist(l.bwd_time) << ", bytes = " << bytes;
            if (!reverse) o << ", order = " << l.bwd_order;
            o << ";";
            if (l.ident != l.name) o << "  // " << l.name;
            o << "\n";
        }
        o << "}\n";
    } else {
        o << "// The trace has no `layer_fwd:` ranges: only the coarse phases are available.\n";
    }
    o << "let " << name << "_compute = " << format_dist(p.compute_time)
      << ";  // zero_grad + forward (loss included) + backward\n";
    o << "let " << name << "_update = " << format_dist(p.optimizer) << ";  // optimizer step\n";
    o << "let " << name << "_step = " << format_dist(p.step) << ";  // whole step as measured\n";
    if (const auto& c = p.comm_probe) {
        char number[32];
        o << "// What communication costs a host (`comm_probe`: two local processes all-reducing, "
             "over\n// loopback unless `beside_busy_cores.transport` names another path), for "
             "the training\n// properties `message_overhead` and `comm_cpu` and a host's "
             "`cores`.\n";
        o << "let " << name << "_message_overhead = " << format_time(c->message_overhead_s)
          << ";  // fixed cost of every message\n";
        std::snprintf(number, sizeof number, "%.6g", c->comm_cpu_s_per_byte * 1e9);
        o << "let " << name << "_comm_cpu = " << number
          << " ns / 1 B;  // CPU time per byte, at each end of a message\n";
        std::snprintf(number, sizeof number, "%.6g", c->cores);
        o << "let " << name << "_cores = " << number << ";  // CPUs of the profiling process\n";
        if (c->interference) {
            std::snprintf(number, sizeof number, "%.6g", *c->interference);
            o << "let " << name << "_interference = " << number
              << ";  // slowdown per other busy core, for a host's `interference`\n";
        }
        if (c->oversubscription) {
            std::snprintf(number, sizeof number, "%.6g", *c->oversubscription);
            o << "let " << name << "_oversubscription = " << number
              << ";  // cost of taking turns, for a host's `oversubscription`\n";
        }
    }
    if (p.buffer_bytes) {
        char bytes[48];
        std::snprintf(bytes, sizeof bytes, "%.0f B", *p.buffer_bytes);
        o << "let " << name << "_buffers = " << bytes
          << ";  // module buffers, for the training property `buffers` (DDP)\n";
    }
    if (p.ddp_overhead_s) {
        o << "let " << name << "_ddp_overhead = " << format_time(*p.ddp_overhead_s)
          << ";  // DDP's own work per step, for the training property `backward_overhead`\n";
    }
    if (p.ps_worker_overhead_s) {
        o << "let " << name << "_ps_worker_overhead = " << format_time(*p.ps_worker_overhead_s)
          << ";  // a PS worker's flat copies per step, for `backward_overhead` (PS)\n";
    }
    if (p.server_update) {
        o << "let " << name << "_server_update = " << format_dist(*p.server_update)
          << ";  // a parameter server's work per flat gradient: copy in, step, copy out\n";
    }
    if (p.aggregate) {
        o << "let " << name << "_aggregate = " << format_time(p.aggregate->mean_s)
          << ";  // adding one flat gradient into a sum (a ps_sync server, per worker)\n";
    }
    return o.str();
}

}  // namespace sgdnet::profile
