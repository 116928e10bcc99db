// Diagnostics with their origin on the command line: errors that `--set`/`--fix` values cause are
// reported as coming from the option, with a note where the file uses the value.
#include "cli/set_origin.hpp"

#include <utility>

namespace sgdnet::cli {
namespace {

using frontend::Diagnostic;
using frontend::Diagnostics;

/// A sink holding copies of the sources of `diags` (same file indexes) and nothing else.
Diagnostics sources_of(const Diagnostics& diags) {
    Diagnostics out(0);  // no cap: one diagnostic at a time
    for (uint32_t f = 0; f < diags.file_names().size(); ++f) {
        out.add_source(diags.file_name(f), diags.file_text(f));
    }
    return out;
}

/// `list` rendered as the compiler renders diagnostics, against the sources of `diags`.
std::string render_list(const Diagnostics& diags, const std::vector<Diagnostic>& list) {
    Diagnostics out = sources_of(diags);
    for (const Diagnostic& d : list) out.add(d);
    return out.render();
}

OriginRenderer::ErrorKey key_of(const Diagnostics& diags, const Diagnostic& d) {
    return {diags.file_name(d.range.file), d.range.begin.line, d.range.begin.col, d.message};
}

/// The override whose value is the source `file` of `diags` (the compiler names those sources
/// `--set NAME`, one per override, in order), if it is one.
std::optional<std::size_t> value_origin(const Diagnostics& diags, uint32_t file,
                                        const std::vector<SetOrigin>& origins) {
    const std::string prefix = "--set ";
    if (!diags.file_name(file).starts_with(prefix)) return std::nullopt;
    std::vector<uint32_t> value_files;
    for (uint32_t f = 0; f < diags.file_names().size(); ++f) {
        if (diags.file_name(f).starts_with(prefix)) value_files.push_back(f);
    }
    if (value_files.size() == origins.size()) {
        for (std::size_t k = 0; k < value_files.size(); ++k) {
            if (value_files[k] == file) return k;
        }
    }
    for (std::size_t k = origins.size(); k-- > 0;) {
        if (prefix + origins[k].name == diags.file_name(file)) return k;
    }
    return std::nullopt;
}

/// `Error in a VALUE or about a NAME`: the option as the headline, a caret under the column.
std::string render_in_value(const Diagnostics& diags, const Diagnostic& d, const SetOrigin& origin,
                            const std::string& label) {
    std::string message = d.message;
    const std::string eof = "end of file";
    if (const auto at = message.find(eof); at != std::string::npos) {
        message.replace(at, eof.size(), "the end of the value");
    }
    // The value as the compiler read it, so that the caret is under the column at fault.
    const std::string option = origin.option + " " + origin.name + "=" + origin.value;
    std::string out = "error: " + option + label + ": " + message + "\n";
    if (d.range.valid() && d.range.begin.line == 1) {
        const std::size_t prefix = origin.option.size() + 1 + origin.name.size() + 1;
        const std::size_t col = d.range.begin.col == 0 ? 0 : d.range.begin.col - 1;
        out += "  " + option + "\n  " + std::string(prefix + col, ' ') + "^\n";
    }
    return out + render_list(diags, d.notes);
}

/// An error in the file that overrides `who` cause: the options as the headline, then a note at
/// the file position (with the error's own notes after it).
std::string render_caused(const Diagnostics& diags, const Diagnostic& d,
                          const std::vector<SetOrigin>& origins,
                          const std::vector<std::size_t>& who, const std::string& label) {
    std::string options, names;
    for (std::size_t j = 0; j < who.size(); ++j) {
        const char* sep = j == 0 ? "" : j + 1 == who.size() ? " and " : ", ";
        options += (j == 0 ? "" : ", ") + origins[who[j]].text();
        names += sep + ("`" + origins[who[j]].name + "`");
    }
    Diagnostic note{Diagnostic::Severity::Note, d.range,
                    (who.size() == 1 ? "the value of " : "the values of ") + names +
                        (who.size() == 1 ? " is" : " are") + " used here",
                    d.notes};
    return "error: " + options + label + ": " + d.message + "\n" + render_list(diags, {note});
}

}  // namespace

std::vector<SetOrigin> origins_of(const std::string& option,
                                  const std::vector<std::pair<std::string, std::string>>& sets) {
    std::vector<SetOrigin> out;
    for (const auto& [name, value] : sets) out.push_back({option, name, value, {}});
    return out;
}

OriginRenderer::OriginRenderer(CompileFn compile, compiler::CompileOptions base)
    : compile_(std::move(compile)), base_(std::move(base)) {
    base_.overrides.clear();
}

const std::set<OriginRenderer::ErrorKey>& OriginRenderer::errors_with(
    const std::vector<SetOrigin>& overrides) {
    std::string key;
    for (const auto& o : overrides) key += o.name + "=" + o.value + "\n";
    if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
    compiler::CompileOptions options = base_;
    for (const auto& o : overrides) options.overrides.emplace_back(o.name, o.value);
    Diagnostics diags;
    compile_(options, diags);
    std::set<ErrorKey> errors;
    for (const Diagnostic& d : diags.sorted()) {
        if (d.severity == Diagnostic::Severity::Error) errors.insert(key_of(diags, d));
    }
    return cache_[key] = std::move(errors);
}

std::vector<std::size_t> OriginRenderer::causes(const ErrorKey& key,
                                                const std::vector<SetOrigin>& origins) {
    if (origins.empty() || errors_with({}).contains(key)) return {};
    std::vector<std::size_t> who;
    if (origins.size() > 1) {
        for (std::size_t k = 0; k < origins.size(); ++k) {
            if (errors_with({origins[k]}).contains(key)) who.push_back(k);
        }
    }
    if (who.empty()) {
        // One override, or several that cause it only together.
        for (std::size_t k = 0; k < origins.size(); ++k) who.push_back(k);
    }
    return who;
}

std::vector<std::string> OriginRenderer::blocks(const Diagnostics& diags,
                                                const std::vector<SetOrigin>& origins,
                                                const std::string& point) {
    const std::string label = point.empty() ? "" : " (at sweep point " + point + ")";
    std::vector<std::string> out;
    for (const Diagnostic& d : diags.sorted()) {
        if (d.severity != Diagnostic::Severity::Error || d.summary) {
            out.push_back(render_list(diags, {d}));
            continue;
        }
        if (const auto k = value_origin(diags, d.range.file, origins)) {
            // About the value (a position in it) or about the name (none): only the first
            // depends on the sweep point.
            const bool swept = d.range.valid() && origins[*k].option == "--set";
            out.push_back(render_in_value(diags, d, origins[*k], swept ? label : ""));
            continue;
        }
        const auto who = causes(key_of(diags, d), origins);
        if (who.empty()) {
            out.push_back(render_list(diags, {d}));
            continue;
        }
        bool swept = false;
        for (std::size_t k : who) swept = swept || origins[k].option == "--set";
        out.push_back(render_caused(diags, d, origins, who, swept ? label : ""));
    }
    return out;
}

std::string OriginRenderer::render(const Diagnostics& diags, const std::vector<SetOrigin>& origins,
                                   const std::string& point) {
    std::string out;
    for (const auto& block : blocks(diags, origins, point)) out += block;
    return out;
}

}  // namespace sgdnet::cli
