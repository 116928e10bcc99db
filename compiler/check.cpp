// Semantic checks of the training-system declarations (docs/language.md §5; hosts: docs/language.md),
// known properties with "did you mean", values of the right kind and dimension, array sizes,
// placements on hosts; and that a file declares something to solve. Raw nets are checked while
// they are lowered (lower_net.hpp).
#include "compiler/check.hpp"

#include <map>
#include <set>

#include "compiler/eval.hpp"
#include "compiler/hosts.hpp"
#include "compiler/training_properties.hpp"

namespace sgdnet::compiler {

namespace {

class Checker {
public:
    Checker(const Resolved& resolved, const HostTable& hosts, Diagnostics& diags)
        : scope_(resolved.scope), hosts_(hosts), diags_(diags) {}

    /// Checks the properties of one block: names, duplicates; returns the known ones by name.
    std::map<std::string, const Property*> properties(const std::vector<Property>& props,
                                                      TrainingBlock block, const std::string& what) {
        const std::vector<std::string> valid = property_names(block);
        std::map<std::string, const Property*> out;
        for (const Property& p : props) {
            if (!find_training_property(block, p.name)) {
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

    /// Checks one property value for every element (`check_one(row, i)`, `i` bound in `row`);
    /// stops at the first failing index.
    template <class F>
    void per_index(int64_t count, F&& check_one) {
        for (int64_t i = 0; i < count; ++i) {
            Scope row = scope_.with_index("i", i);
            std::size_t before = diags_.error_count();
            check_one(row, i);
            if (diags_.error_count() > before) return;
        }
    }

    /// Checks one `host` declaration (its count is checked by the HostTable): its properties, per
    /// element; `latency` without `bandwidth` is a warning (a host has a NIC only with a
    /// bandwidth).
    void host(const HostTable::Array& a) {
        const HostDecl& h = *a.decl;
        auto props = properties(h.properties, TrainingBlock::Host, "host");
        for (const auto& entry : props) {
            const TrainingProperty& rule = *find_training_property(TrainingBlock::Host, entry.first);
            const Expr& value = *entry.second->value;
            per_index(a.count, [&](const Scope& s, int64_t) {
                evaluate_property(rule, value, s, diags_);
            });
        }
        const std::string latency(property_name(PropertyId::Latency));
        if (props.count(latency) && !props.count(std::string(property_name(PropertyId::Bandwidth))))
            diags_.warning(props[latency]->name_range,
                           "`latency` of host `" + h.name + "` has no effect without `bandwidth`: "
                           "a host has a NIC, shared by its nodes, only when its bandwidth is "
                           "given");
    }

    void node(const NodeDecl& n) {
        const bool worker = n.kind == NodeDecl::Kind::Worker;
        const TrainingBlock block = worker ? TrainingBlock::Worker : TrainingBlock::Server;
        int64_t count = 1;
        if (n.count) {
            auto c = evaluate_integer(*n.count, scope_, diags_, "an array size", 1, kMaxArraySize);
            count = c.value_or(0);
        }
        auto props = properties(n.properties, block, worker ? "worker" : "server");
        if (worker && !props.count(std::string(property_name(PropertyId::Compute))) &&
            !props.count(std::string(property_name(PropertyId::Layers))))
            diags_.error(n.name_range, "worker `" + n.name +
                                           "` needs `compute = DIST` (coarse) or `layers = "
                                           "TABLE` (fine)");
        for (const auto& entry : props) {
            const TrainingProperty& rule = *find_training_property(block, entry.first);
            const Expr& value = *entry.second->value;
            per_index(count, [&](const Scope& s, int64_t i) {
                const PropertyContext context{&hosts_, element_name(n.name, n.count != nullptr, i)};
                evaluate_property(rule, value, s, diags_, context);
            });
        }
    }

    void training(const TrainingDecl& t, bool has_servers, bool has_layers) {
        const TrainingBlock block = TrainingBlock::Training;
        auto props = properties(t.properties, block, "training");
        for (const auto& [name, p] : props) {
            const TrainingProperty& rule = *find_training_property(block, name);
            const Expr& v = *p->value;
            auto value = evaluate_property(rule, v, scope_, diags_);
            if (!value) continue;
            if (rule.id == PropertyId::Sync) {
                if (!has_servers && parameter_server(std::get<SyncScheme>(*value).kind))
                    diags_.error(v.range, "a parameter-server scheme needs a `server` "
                                          "declaration");
            } else if (rule.id == PropertyId::Granularity) {
                if (std::get<int>(*value) == static_cast<int>(Granularity::Fine) && !has_layers)
                    diags_.error(v.range, "`granularity = fine` needs workers with `layers`");
            }
        }
    }

private:
    const Scope& scope_;
    const HostTable& hosts_;
    Diagnostics& diags_;
};

/// The names the `host` properties of workers and servers refer to (`h` in `host = h[i / 2]`).
std::set<std::string> placed_on(const Ast& ast) {
    std::set<std::string> out;
    for (const Decl& d : ast.decls) {
        const auto* n = std::get_if<NodeDecl>(&d);
        const Property* p = n ? find_property(n->properties, PropertyId::Host) : nullptr;
        if (!p) continue;
        std::vector<std::string> names;
        free_names(*p->value, names);
        out.insert(names.begin(), names.end());
    }
    return out;
}

/// A `host` declaration in a file without workers is an error; one no worker or server is placed
/// on is a warning.
void check_hosts_used(const Ast& ast, const HostTable& hosts, bool has_workers,
                      Diagnostics& diags) {
    if (hosts.arrays().empty()) return;
    if (!has_workers) {
        const HostDecl& first = *hosts.arrays().front().decl;
        diags.error(first.name_range, "host `" + first.name + "` is declared but the file has no "
                                      "training system (no `worker` declaration)");
        return;
    }
    const std::set<std::string> used = placed_on(ast);
    for (const HostTable::Array& a : hosts.arrays()) {
        if (!used.count(a.decl->name))
            diags.warning(a.decl->name_range, "host `" + a.decl->name + "` is declared but no "
                                              "worker or server is placed on it (`host = " +
                                              a.decl->name + (a.decl->count ? "[…]" : "") + "`)");
    }
}

}  // namespace

void check(const Ast& ast, const Resolved& resolved, const CompileOptions& options,
           Diagnostics& diags) {
    const HostTable hosts(ast, resolved.scope, diags);
    Checker checker(resolved, hosts, diags);
    for (const HostTable::Array& a : hosts.arrays()) checker.host(a);
    const TrainingDecl* training = nullptr;
    bool has_net = false, has_workers = false, has_servers = false, has_layers = false;
    for (const Decl& d : ast.decls) {
        if (auto* n = std::get_if<NodeDecl>(&d)) {
            checker.node(*n);
            (n->kind == NodeDecl::Kind::Worker ? has_workers : has_servers) = true;
            if (n->kind == NodeDecl::Kind::Worker)
                has_layers |= find_property(n->properties, PropertyId::Layers) != nullptr;
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
    check_hosts_used(ast, hosts, has_workers, diags);
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
