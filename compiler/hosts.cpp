// The hosts of a training system (docs/language.md, "Hosts"): the `host NAME[COUNT]` declarations
// as one list of host elements, and the placement `host = NAME` / `host = NAME[INDEX]` of a worker
// or server on one of them.
#include "compiler/hosts.hpp"

#include <utility>
#include <variant>

namespace sgdnet::compiler {

std::string element_name(const std::string& name, bool array, int64_t index) {
    return array ? name + "[" + std::to_string(index) + "]" : name;
}

HostTable::HostTable(const Ast& ast, const Scope& scope, Diagnostics& diags) {
    for (const Decl& decl : ast.decls) {
        if (const auto* h = std::get_if<HostDecl>(&decl)) {
            // A name defined twice is reported by resolve(); the first definition stands.
            if (find(h->name) || others_.count(h->name)) continue;
            Array a{h, 1, size_};
            if (h->count) {
                auto c = evaluate_integer(*h->count, scope, diags, "an array size", 1,
                                          kMaxArraySize);
                a.count = c.value_or(0);
            }
            size_ += static_cast<std::size_t>(a.count);
            arrays_.push_back(a);
        } else if (const auto* p = std::get_if<ParamDecl>(&decl)) {
            others_.emplace(p->name, Other{p->is_let ? "let" : "param", p->name_range});
        } else if (const auto* l = std::get_if<LayersDecl>(&decl)) {
            others_.emplace(l->name, Other{"layer table", l->name_range});
        } else if (const auto* n = std::get_if<NodeDecl>(&decl)) {
            others_.emplace(n->name, Other{n->kind == NodeDecl::Kind::Worker ? "worker" : "server",
                                           n->name_range});
        } else if (const auto* net = std::get_if<NetDecl>(&decl)) {
            others_.emplace(net->name, Other{"net", net->name_range});
        } else if (const auto* m = std::get_if<MeasureDecl>(&decl)) {
            others_.emplace(m->name, Other{"measure", m->name_range});
        }
    }
}

const HostTable::Array* HostTable::find(std::string_view name) const {
    for (const Array& a : arrays_)
        if (a.decl->name == name) return &a;
    return nullptr;
}

void HostTable::not_a_host(const Expr& e, const std::string& name, const Scope& row,
                           Diagnostics& diags) const {
    if (auto it = others_.find(name); it != others_.end()) {
        diags.error(e.range, "`" + name + "` is a " + it->second.kind + ", not a host");
        diags.note(it->second.where, "`" + name + "` is declared here");
        return;
    }
    if (const std::optional<Value>* v = row.find(name)) {  // the index variable `i`
        if (*v) diags.error(e.range, "`" + name + "` is " + kind_name(**v) + ", not a host");
        return;
    }
    if (arrays_.empty()) {
        diags.error(e.range, "unknown host `" + name + "`: the file declares no `host`");
        return;
    }
    std::vector<std::string> names;
    for (const Array& a : arrays_) names.push_back(a.decl->name);
    diags.error(e.range, "unknown host `" + name + "`" + did_you_mean(name, names));
}

std::optional<int> HostTable::place(const Expr& e, const Scope& row, std::string_view element,
                                    Diagnostics& diags) const {
    if (const auto* c = std::get_if<Conditional>(&e.node)) {
        auto cond = evaluate_bool(*c->cond, row, diags);
        if (!cond) return std::nullopt;
        return place(*(*cond ? c->then_expr : c->else_expr), row, element, diags);
    }
    const auto* n = std::get_if<NameRef>(&e.node);
    if (!n || n->parts.size() != 1 || n->indexed_inside()) {
        diags.error(e.range, "`host` names a host: `NAME`, or `NAME[INDEX]` for an element of a "
                             "host array");
        return std::nullopt;
    }
    const std::string& name = n->parts.front();
    const Array* a = find(name);
    if (!a) {
        not_a_host(e, name, row, diags);
        return std::nullopt;
    }
    if (a->count == 0) return std::nullopt;  // its count did not evaluate: already reported
    const std::string count =
        std::to_string(a->count) + (a->count == 1 ? " host" : " hosts");
    if (!a->decl->count) {
        if (!n->index) return static_cast<int>(a->first);
        diags.error(e.range, "host `" + name + "` is declared without a count: write `host = " +
                                 name + "`, without an index");
        return std::nullopt;
    }
    if (!n->index) {
        diags.error(e.range, "`" + name + "` is an array of " + count + ": name one element, `" +
                                 name + "[INDEX]`");
        return std::nullopt;
    }
    Scope index_scope(&row);
    index_scope.integer_division = true;
    auto k = evaluate_integer(*n->index, index_scope, diags, "a host index");
    if (!k) return std::nullopt;
    if (*k < 0 || *k >= a->count) {
        const std::string last = name + "[" + std::to_string(a->count - 1) + "]";
        diags.error(n->index->range,
                    "host index " + std::to_string(*k) + " is out of range for `" +
                        std::string(element) + "`: `" + name + "` has " + count + ", " +
                        (a->count == 1 ? last : name + "[0] to " + last));
        return std::nullopt;
    }
    return static_cast<int>(a->first + static_cast<std::size_t>(*k));
}

}  // namespace sgdnet::compiler
