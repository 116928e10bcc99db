// Name resolution of the top level: params and lets (with `--set` overrides), layer tables,
// duplicate names, unknown names and definition cycles (docs/language.md §3, §5).
#include "compiler/resolve.hpp"

#include <algorithm>
#include <map>

#include "frontend/parse.hpp"

namespace sgdnet::compiler {

void free_names(const Expr& e, std::vector<std::string>& out) {
    struct Walker {
        std::vector<std::string>& out;
        void operator()(const NumberLit&) {}
        void operator()(const StringLit&) {}
        void operator()(const BoolLit&) {}
        void operator()(const NameRef& n) {
            out.push_back(n.parts.front());
            for (const auto& inner : n.part_indexes)
                if (inner) free_names(*inner, out);
            if (n.index) free_names(*n.index, out);
        }
        void operator()(const Unary& u) { free_names(*u.operand, out); }
        void operator()(const Binary& b) {
            free_names(*b.lhs, out);
            free_names(*b.rhs, out);
        }
        void operator()(const Conditional& c) {
            free_names(*c.cond, out);
            free_names(*c.then_expr, out);
            free_names(*c.else_expr, out);
        }
        void operator()(const Call& c) {
            for (const Arg& a : c.args) {
                if (a.weight) free_names(*a.weight, out);
                if (a.value) free_names(*a.value, out);
            }
        }
        void operator()(const ListLit& l) {
            for (const auto& item : l.items) free_names(*item, out);
        }
    };
    std::visit(Walker{out}, e.node);
}

std::vector<Override> parse_overrides(const CompileOptions& options, Diagnostics& diags) {
    std::vector<Override> out;
    for (const auto& [name, text] : options.overrides) {
        Override o;
        o.name = name;
        o.file = diags.add_source("--set " + name, text);
        o.value = parse_expression(o.file, diags);
        out.push_back(std::move(o));
    }
    return out;
}

namespace {

struct Def {
    enum class Kind { Param, Let, Layers, Host, Worker, Server, Net, Measure };
    Kind kind;
    std::string name;
    SourceRange name_range;
    const ParamDecl* param = nullptr;
    const LayersDecl* layers = nullptr;
    const Expr* value = nullptr;  // param/let value (the override's when overridden)
    std::vector<std::string> deps;
    int state = 0;  // 0 unvisited, 1 on the stack, 2 done
    bool in_cycle = false;
};

const char* kind_word(Def::Kind k) {
    switch (k) {
        case Def::Kind::Param: return "param";
        case Def::Kind::Let: return "let";
        case Def::Kind::Layers: return "layer table";
        case Def::Kind::Host: return "host";
        case Def::Kind::Worker: return "worker";
        case Def::Kind::Server: return "server";
        case Def::Kind::Net: return "net";
        case Def::Kind::Measure: return "measure";
    }
    return "name";
}

class Resolver {
public:
    Resolver(const Ast& ast, Diagnostics& diags) : ast_(ast), diags_(diags) {}

    Resolved run(const CompileOptions& options, const std::string& base_dir) {
        Resolved out;
        out.scope.base_dir = base_dir;
        collect();
        overrides_ = parse_overrides(options, diags_);
        apply_overrides(out);
        for (Def& d : defs_) {
            if (d.value) free_names(*d.value, d.deps);
            if (d.layers) layer_deps(*d.layers, d.deps);
        }
        for (std::size_t k = 0; k < defs_.size(); ++k) visit(k, out.scope);
        for (const Def& d : defs_) {
            if (d.kind != Def::Kind::Param) continue;
            const auto* v = out.scope.find(d.name);
            if (v && *v)
                if (auto* q = std::get_if<Quantity>(&**v))
                    out.params.push_back({d.name, q->value, canonical_unit(q->dim)});
        }
        return out;
    }

private:
    const Ast& ast_;
    Diagnostics& diags_;
    std::vector<Def> defs_;
    std::map<std::string, std::size_t> index_;
    std::vector<std::size_t> stack_;
    std::vector<Override> overrides_;

    void add(Def d) {
        auto [it, fresh] = index_.emplace(d.name, defs_.size());
        if (!fresh) {
            const Def& first = defs_[it->second];
            diags_.error(d.name_range, "`" + d.name + "` is already defined (as a " +
                                           kind_word(first.kind) + ")");
            diags_.note(first.name_range, "`" + d.name + "` is first defined here");
            return;
        }
        defs_.push_back(std::move(d));
    }

    void collect() {
        const ModelDecl* model = nullptr;
        const TrainingDecl* training = nullptr;
        for (const Decl& decl : ast_.decls) {
            if (auto* m = std::get_if<ModelDecl>(&decl)) {
                if (model) {
                    diags_.error(m->range, "the model is named twice");
                    diags_.note(model->range, "first named here");
                }
                model = model ? model : m;
            } else if (auto* p = std::get_if<ParamDecl>(&decl)) {
                add(Def{p->is_let ? Def::Kind::Let : Def::Kind::Param, p->name, p->name_range, p,
                        nullptr, p->value.get(), {}});
            } else if (auto* l = std::get_if<LayersDecl>(&decl)) {
                add(Def{Def::Kind::Layers, l->name, l->name_range, nullptr, l, nullptr, {}});
            } else if (auto* h = std::get_if<HostDecl>(&decl)) {
                add(Def{Def::Kind::Host, h->name, h->name_range, nullptr, nullptr, nullptr, {}});
            } else if (auto* n = std::get_if<NodeDecl>(&decl)) {
                add(Def{n->kind == NodeDecl::Kind::Worker ? Def::Kind::Worker : Def::Kind::Server,
                        n->name, n->name_range, nullptr, nullptr, nullptr, {}});
            } else if (auto* t = std::get_if<TrainingDecl>(&decl)) {
                if (training) {
                    diags_.error(t->range, "a file has at most one `training` block");
                    diags_.note(training->range, "the first `training` block is here");
                }
                training = training ? training : t;
            } else if (auto* net = std::get_if<NetDecl>(&decl)) {
                add(Def{Def::Kind::Net, net->name, net->name_range, nullptr, nullptr, nullptr, {}});
            } else if (auto* m2 = std::get_if<MeasureDecl>(&decl)) {
                add(Def{Def::Kind::Measure, m2->name, m2->name_range, nullptr, nullptr, nullptr,
                        {}});
            }
        }
    }

    std::vector<std::string> names_of(Def::Kind k) const {
        std::vector<std::string> out;
        for (const Def& d : defs_)
            if (d.kind == k) out.push_back(d.name);
        return out;
    }

    void apply_overrides(Resolved& out) {
        for (Override& o : overrides_) {
            SourceRange where{o.file, {}, {}};  // no position: printed as `--set NAME: error: …`
            auto dot = o.name.find('.');
            if (dot != std::string::npos) {
                std::string net_name = o.name.substr(0, dot), param = o.name.substr(dot + 1);
                if (!net_local_param(net_name, param)) {
                    diags_.error(where, "unknown param `" + o.name + "`" +
                                            did_you_mean(o.name, all_net_params()));
                    continue;
                }
                if (o.value) out.net_overrides.push_back(std::move(o));
                continue;
            }
            auto it = index_.find(o.name);
            if (it == index_.end()) {
                // No top-level name: an unqualified net-local param, if exactly one net has it.
                std::vector<std::string> nets = nets_with_param(o.name);
                if (nets.size() == 1) {
                    o.name = nets[0] + "." + o.name;
                    if (o.value) out.net_overrides.push_back(std::move(o));
                    continue;
                }
                if (nets.size() > 1) {
                    std::string which;
                    for (std::size_t k = 0; k < nets.size(); ++k)
                        which += (k == 0 ? "" : k + 1 == nets.size() ? " or " : ", ") +
                                 ("`--set " + nets[k] + "." + o.name + "=…`");
                    diags_.error(where, "`" + o.name + "` is ambiguous: nets " +
                                            join_quoted(nets) + " each declare a param `" +
                                            o.name + "`; write " + which);
                    continue;
                }
            }
            if (it == index_.end() || defs_[it->second].kind != Def::Kind::Param) {
                if (it != index_.end() && defs_[it->second].kind == Def::Kind::Let) {
                    diags_.error(where, "cannot override `" + o.name +
                                            "`: it is a `let`; only a `param` can be set");
                    diags_.note(defs_[it->second].name_range, "`" + o.name + "` is declared here");
                } else {
                    std::vector<std::string> params = names_of(Def::Kind::Param);
                    for (auto& n : all_net_params()) params.push_back(n);
                    diags_.error(where, "unknown param `" + o.name + "`" +
                                            did_you_mean(o.name, params));
                }
                continue;
            }
            if (o.value) defs_[it->second].value = o.value.get();
        }
    }

    bool net_local_param(const std::string& net_name, const std::string& param) const {
        for (const Decl& decl : ast_.decls)
            if (auto* net = std::get_if<NetDecl>(&decl); net && net->name == net_name)
                for (const NetItem& item : net->items)
                    if (auto* p = std::get_if<ParamDecl>(&item); p && p->name == param && !p->is_let)
                        return true;
        return false;
    }
    /// The nets (in declaration order) that declare a non-let param `param`.
    std::vector<std::string> nets_with_param(const std::string& param) const {
        std::vector<std::string> out;
        for (const Decl& decl : ast_.decls)
            if (auto* net = std::get_if<NetDecl>(&decl); net && net_local_param(net->name, param))
                out.push_back(net->name);
        return out;
    }
    static std::string join_quoted(const std::vector<std::string>& names) {
        std::string out;
        for (std::size_t k = 0; k < names.size(); ++k)
            out += (k == 0 ? "" : k + 1 == names.size() ? " and " : ", ") + ("`" + names[k] + "`");
        return out;
    }
    std::vector<std::string> all_net_params() const {
        std::vector<std::string> out;
        for (const Decl& decl : ast_.decls)
            if (auto* net = std::get_if<NetDecl>(&decl))
                for (const NetItem& item : net->items)
                    if (auto* p = std::get_if<ParamDecl>(&item); p && !p->is_let)
                        out.push_back(net->name + "." + p->name);
        return out;
    }

    static void layer_deps(const LayersDecl& l, std::vector<std::string>& out) {
        if (l.profile) free_names(*l.profile, out);
        for (const LayerRow& row : l.rows)
            for (const Property& p : row.columns)
                if (p.value) free_names(*p.value, out);
    }

    static bool is_value(const Def& d) {
        return d.kind == Def::Kind::Param || d.kind == Def::Kind::Let ||
               d.kind == Def::Kind::Layers;
    }

    void visit(std::size_t k, Scope& scope) {
        Def& d = defs_[k];
        if (d.state != 0 || !is_value(d)) return;
        d.state = 1;
        stack_.push_back(k);
        for (const std::string& dep : d.deps) {
            auto it = index_.find(dep);
            if (it == index_.end() || !is_value(defs_[it->second])) continue;
            Def& target = defs_[it->second];
            if (target.state == 1) {
                report_cycle(it->second);
                continue;
            }
            visit(it->second, scope);
        }
        stack_.pop_back();
        d.state = 2;
        if (d.in_cycle) {
            scope.define_poisoned(d.name, d.name_range);
            return;
        }
        define(d, scope);
    }

    void report_cycle(std::size_t start) {
        auto from = std::find(stack_.begin(), stack_.end(), start);
        std::string path;
        for (auto it = from; it != stack_.end(); ++it) {
            defs_[*it].in_cycle = true;
            path += defs_[*it].name + " -> ";
        }
        path += defs_[start].name;
        diags_.error(defs_[start].name_range, "cyclic definition: " + path);
    }

    void define(const Def& d, Scope& scope) {
        if (d.layers) {
            auto t = build_layer_table(*d.layers, scope, diags_);
            if (t)
                scope.define(d.name, std::make_shared<const LayerTable>(std::move(*t)),
                             d.name_range);
            else
                scope.define_poisoned(d.name, d.name_range);
            return;
        }
        if (!d.value) {  // an override that did not parse
            scope.define_poisoned(d.name, d.name_range);
            return;
        }
        auto v = evaluate(*d.value, scope, diags_);
        if (v)
            scope.define(d.name, std::move(*v), d.name_range);
        else
            scope.define_poisoned(d.name, d.name_range);
    }
};

}  // namespace

Resolved resolve(const Ast& ast, const CompileOptions& options, const std::string& base_dir,
                 Diagnostics& diags) {
    return Resolver(ast, diags).run(options, base_dir);
}

}  // namespace sgdnet::compiler
