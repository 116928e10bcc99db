// Semantic checks of the training-system declarations (LANGUAGE.md §5): known properties with
// "did you mean", values of the right kind and dimension, array sizes; and that a file declares
// something to solve. Raw nets are checked while they are lowered (lower_net.hpp).
#include "compiler/check.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "compiler/eval.hpp"

namespace sgdnet::compiler {

const std::vector<std::string> kWorkerProperties{"compute", "layers",  "update", "speed",
                                                 "bandwidth", "latency", "batch"};
const std::vector<std::string> kServerProperties{"update", "bandwidth", "latency"};
const std::vector<std::string> kTrainingProperties{"sync",   "granularity", "model_bytes",
                                                   "bucket", "first_bucket", "sharing",
                                                   "overlap"};

namespace {

class Checker {
public:
    Checker(const Resolved& resolved, Diagnostics& diags)
        : scope_(resolved.scope), diags_(diags) {}

    /// Checks the properties of one block: names, duplicates; returns the known ones by name.
    std::map<std::string, const Property*> properties(const std::vector<Property>& props,
                                                      const std::vector<std::string>& valid,
                                                      const std::string& what) {
        std::map<std::string, const Property*> out;
        for (const Property& p : props) {
            if (std::find(valid.begin(), valid.end(), p.name) == valid.end()) {
                std::string list;
                for (const auto& v : valid) list += (list.empty() ? "" : ", ") + v;
                std::string hint = did_you_mean(p.name, valid);
                diags_.error(p.name_range, "unknown " + what + " property `" + p.name + "`" +
                                               (hint.empty() ? " (known: " + list + ")" : hint));
                continue;
            }
            if (out.count(p.name)) {
                diags_.error(p.name_range, "property `" + p.name + "` given twice");
                diags_.note(out[p.name]->name_range, "first given here");
                continue;
            }
            out[p.name] = &p;
        }
        return out;
    }

    /// Checks one property value for every element; stops at the first failing index.
    template <class F>
    void per_index(int64_t count, F&& check_one) {
        for (int64_t i = 0; i < count; ++i) {
            Scope row = scope_.with_index("i", i);
            std::size_t before = diags_.error_count();
            check_one(row);
            if (diags_.error_count() > before) return;
        }
    }

    void positive(const Expr& e, Dim dim, const Scope& s, bool allow_zero, const std::string& name) {
        auto v = evaluate_quantity(e, dim, s, diags_);
        if (!v) return;
        bool ok = std::isfinite(*v) || (dim == Dim::rate() && *v > 0);
        ok = ok && (allow_zero ? *v >= 0 : *v > 0);
        if (!ok)
            diags_.error(e.range, "`" + name + "` must be " + (allow_zero ? ">= 0" : "> 0") +
                                      ", got " + format_quantity({*v, dim}));
    }

    void node(const NodeDecl& n) {
        bool worker = n.kind == NodeDecl::Kind::Worker;
        int64_t count = 1;
        if (n.count) {
            auto c = evaluate_integer(*n.count, scope_, diags_, "an array size", 1, kMaxArraySize);
            count = c.value_or(0);
        }
        auto props = properties(n.properties, worker ? kWorkerProperties : kServerProperties,
                                worker ? "worker" : "server");
        if (worker && !props.count("compute") && !props.count("layers"))
            diags_.error(n.name_range, "worker `" + n.name +
                                           "` needs `compute = DIST` (coarse) or `layers = "
                                           "TABLE` (fine)");
        for (const auto& [name, p] : props) {
            const Expr& v = *p->value;
            const std::string& pname = name;
            per_index(count, [&](const Scope& s) {
                if (pname == "compute" || pname == "update") {
                    evaluate_distribution(v, s, diags_);
                } else if (pname == "layers") {
                    evaluate_layers(v, s, diags_);
                } else if (pname == "speed") {
                    positive(v, Dim::none(), s, false, pname);
                } else if (pname == "bandwidth") {
                    positive(v, Dim::rate(), s, false, pname);
                } else if (pname == "latency") {
                    positive(v, Dim::seconds(), s, true, pname);
                } else if (pname == "batch") {
                    evaluate_integer(v, s, diags_, "`batch`", 1);
                }
            });
        }
    }

    void keyword(const Expr& e, const std::string& prop, const std::vector<std::string>& allowed) {
        auto id = identifier(e);
        if (id && std::find(allowed.begin(), allowed.end(), *id) != allowed.end()) return;
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "`" : " or `") + a + "`";
        diags_.error(e.range, "`" + prop + "` must be " + list +
                                  (id ? ", got `" + *id + "`" + did_you_mean(*id, allowed)
                                      : std::string()));
    }

    void training(const TrainingDecl& t, bool has_servers, bool has_layers) {
        auto props = properties(t.properties, kTrainingProperties, "training");
        for (const auto& [name, p] : props) {
            const Expr& v = *p->value;
            if (name == "sync") {
                auto s = evaluate_sync(v, scope_, diags_);
                using K = SyncScheme::Kind;
                if (s && !has_servers &&
                    (s->kind == K::PsSync || s->kind == K::PsAsync || s->kind == K::PsSsp))
                    diags_.error(v.range, "a parameter-server scheme needs a `server` "
                                          "declaration");
            } else if (name == "granularity") {
                keyword(v, name, {"fine", "coarse"});
                if (identifier(v) == std::optional<std::string>("fine") && !has_layers)
                    diags_.error(v.range, "`granularity = fine` needs workers with `layers`");
            } else if (name == "sharing") {
                keyword(v, name, {"fair", "fifo"});
            } else if (name == "overlap") {
                auto val = evaluate(v, scope_, diags_);
                if (!val) continue;
                if (std::holds_alternative<bool>(*val)) continue;
                auto* q = std::get_if<Quantity>(&*val);
                if (!q || !q->dim.dimensionless() || !(q->value >= 0 && q->value <= 1))
                    diags_.error(v.range, "`overlap` must be `true`, `false` or a number in "
                                          "[0, 1], got " +
                                              (q ? format_quantity(*q) : kind_name(*val)));
            } else {  // model_bytes, bucket, first_bucket
                positive(v, Dim::bytes(), scope_, false, name);
            }
        }
    }

private:
    const Scope& scope_;
    Diagnostics& diags_;
};

}  // namespace

void check(const Ast& ast, const Resolved& resolved, const CompileOptions& options,
           Diagnostics& diags) {
    Checker checker(resolved, diags);
    const TrainingDecl* training = nullptr;
    bool has_net = false, has_workers = false, has_servers = false, has_layers = false;
    for (const Decl& d : ast.decls) {
        if (auto* n = std::get_if<NodeDecl>(&d)) {
            checker.node(*n);
            (n->kind == NodeDecl::Kind::Worker ? has_workers : has_servers) = true;
            if (n->kind == NodeDecl::Kind::Worker)
                for (const Property& p : n->properties) has_layers |= p.name == "layers";
        } else if (auto* t = std::get_if<TrainingDecl>(&d)) {
            training = training ? training : t;
        } else if (std::holds_alternative<NetDecl>(d)) {
            has_net = true;
        }
    }
    if (training) {
        checker.training(*training, has_servers, has_layers);
        if (!has_workers)
            diags.error(training->range, "a `training` block needs at least one `worker` "
                                         "declaration");
    }
    if (has_servers && !has_workers && !training)
        diags.error(SourceRange{ast.file, {}, {}}, "servers are declared but no worker");
    if (options.granularity == Granularity::Fine && has_workers && !has_layers)
        diags.error(SourceRange{ast.file, {}, {}},
                    "--granularity fine needs workers with `layers`");
    if (!has_net && !has_workers && !training)
        diags.error(SourceRange{ast.file, {}, {}},
                    "the file declares no net and no training system");
}

}  // namespace sgdnet::compiler
