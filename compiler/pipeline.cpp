// compile(): the ordered passes of the compiler and their error barriers.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/check.hpp"
#include "compiler/compile.hpp"
#include "compiler/lower_net.hpp"
#include "compiler/lower_training.hpp"
#include "frontend/parse.hpp"
#include "compiler/resolve.hpp"
#include "compiler/units.hpp"
#include "net/petri_net.hpp"

namespace sgdnet::compiler {

std::optional<net::PetriNet> compile(std::string_view text, const std::string& display_name,
                                     const CompileOptions& options, Diagnostics& diags) {
    const uint32_t file = diags.add_source(display_name, std::string(text));
    Ast ast = parse(file, diags);
    if (diags.has_errors()) return std::nullopt;

    // Resolve, check and lower the raw nets: independent enough (failed names are poisoned) to
    // report the errors of all three before stopping.
    const std::filesystem::path path(display_name);
    Resolved resolved = resolve(ast, options, path.parent_path().string(), diags);
    check(ast, resolved, options, diags);
    net::PetriNet net;
    net.name = path.stem().string();
    for (const Decl& d : ast.decls)
        if (auto* m = std::get_if<ModelDecl>(&d)) {
            net.name = m->name;
            break;
        }
    net.params = resolved.params;
    NetScopes net_scopes;
    lower_nets(ast, resolved, net, diags, &net_scopes);
    if (diags.has_errors()) return std::nullopt;

    lower_training(ast, resolved.scope, options, net, diags);
    if (diags.has_errors()) return std::nullopt;
    lower_measures(ast, resolved.scope, net, diags, &net_scopes);
    if (diags.has_errors()) return std::nullopt;

    net.files = diags.file_names();
    for (const std::string& violation : net::validate(net))
        diags.error(SourceRange{file, {}, {}}, "internal error: invalid net: " + violation);
    if (diags.has_errors()) return std::nullopt;
    return net;
}

namespace {

/// The text of `path`, or nullopt after reporting why it cannot be read.
std::optional<std::string> read_source(const std::string& path, Diagnostics& diags) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        diags.error(SourceRange{diags.add_source(path, ""), {}, {}},
                    "cannot read " + path + ": it is a directory");
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const std::string reason = std::strerror(errno);
        diags.error(SourceRange{diags.add_source(path, ""), {}, {}},
                    "cannot read " + path + ": " + reason);
        return std::nullopt;
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) {
        diags.error(SourceRange{diags.add_source(path, ""), {}, {}},
                    "cannot read " + path + ": read error");
        return std::nullopt;
    }
    return text.str();
}

}  // namespace

std::optional<net::PetriNet> compile_file(const std::string& path, const CompileOptions& options,
                                          Diagnostics& diags) {
    const std::optional<std::string> text = read_source(path, diags);
    if (!text) return std::nullopt;
    return compile(*text, path, options, diags);
}

std::optional<EvaluatedModel> evaluate_file(const std::string& path, const CompileOptions& options,
                                            Diagnostics& diags) {
    const std::optional<std::string> text = read_source(path, diags);
    if (!text) return std::nullopt;
    const uint32_t file = diags.add_source(path, *text);
    Ast ast = parse(file, diags);
    if (diags.has_errors()) return std::nullopt;
    const std::filesystem::path p(path);
    Resolved resolved = resolve(ast, options, p.parent_path().string(), diags);
    check(ast, resolved, options, diags);
    if (diags.has_errors()) return std::nullopt;
    EvaluatedModel out;
    for (const net::NetParam& param : resolved.params) {
        ParamValue v{param.name, param.value, std::nullopt};
        const auto* value = resolved.scope.find(param.name);
        if (value && *value)
            if (const auto* q = std::get_if<Quantity>(&**value)) {
                std::string unit = q->dim == Dim{} ? "" : canonical_unit(q->dim);
                if (unit == "1/s") unit = "/s";
                if (unit.empty() || find_unit(unit)) v.unit = unit;
            }
        out.params.push_back(std::move(v));
    }
    out.training = evaluate_training_spec(ast, resolved.scope, options, diags);
    if (diags.has_errors()) return std::nullopt;
    return out;
}

}  // namespace sgdnet::compiler
