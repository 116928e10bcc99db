// Source buffers, the sorted/deduplicated/capped diagnostics sink, and C-compiler-style rendering.
#include "frontend/diagnostics.hpp"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

#include "frontend/parse_utf8.hpp"

namespace sgdnet::frontend {

namespace {

/// Source lines longer than this (in code points) are shown as a window around the column.
constexpr std::size_t kMaxShownLine = 200;

const char* severity_word(Diagnostic::Severity s) {
    switch (s) {
        case Diagnostic::Severity::Error: return "error";
        case Diagnostic::Severity::Warning: return "warning";
        case Diagnostic::Severity::Note: return "note";
    }
    return "error";
}

/// The code points of one source line made printable, one display cell per code point where
/// possible: control characters and invalid bytes become '?', tabs stay tabs.
/// Cells view the line itself or a literal, so that showing a long line allocates no string per
/// character.
struct ShownLine {
    std::vector<std::string_view> cells;  // UTF-8 of each code point as displayed
    std::vector<bool> is_tab;
};

ShownLine shown_line(std::string_view line) {
    ShownLine out;
    out.cells.reserve(line.size());
    out.is_tab.reserve(line.size());
    for (std::size_t i = 0; i < line.size();) {
        char32_t cp = 0;
        bool valid = true;
        const std::size_t n = utf8::next(line, i, cp, valid);
        std::string_view cell = line.substr(i, n);
        if (cp != '\t' && (!valid || cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) ||
                            cp == 0xFEFF)) {
            cell = "?";
        }
        out.is_tab.push_back(cp == '\t');
        out.cells.push_back(cell);
        i += n;
    }
    return out;
}

}  // namespace

Diagnostics::Diagnostics(std::size_t max_errors) : max_errors_(max_errors) {}

uint32_t Diagnostics::add_source(std::string display_name, std::string text) {
    std::vector<std::size_t> starts{0};
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n') starts.push_back(i + 1);
    }
    names_.push_back(std::move(display_name));
    texts_.push_back(std::move(text));
    line_starts_.push_back(std::move(starts));
    return static_cast<uint32_t>(names_.size() - 1);
}

const std::string& Diagnostics::file_name(uint32_t file) const {
    static const std::string unknown = "<input>";
    return file < names_.size() ? names_[file] : unknown;
}

const std::string& Diagnostics::file_text(uint32_t file) const {
    static const std::string empty;
    return file < texts_.size() ? texts_[file] : empty;
}

std::string_view Diagnostics::line_text(uint32_t file, uint32_t line) const {
    if (file >= texts_.size() || line == 0 || line > line_starts_[file].size()) return {};
    const std::string& text = texts_[file];
    const std::size_t begin = line_starts_[file][line - 1];
    std::size_t end = line < line_starts_[file].size() ? line_starts_[file][line] - 1 : text.size();
    if (end > begin && text[end - 1] == '\r') --end;
    return std::string_view(text).substr(begin, end - begin);
}

const std::vector<std::string>& Diagnostics::file_names() const { return names_; }

void Diagnostics::error(SourceRange where, std::string message) {
    add(Diagnostic{Diagnostic::Severity::Error, where, std::move(message), {}});
}

void Diagnostics::warning(SourceRange where, std::string message) {
    add(Diagnostic{Diagnostic::Severity::Warning, where, std::move(message), {}});
}

void Diagnostics::note(SourceRange where, std::string message) {
    Diagnostic n{Diagnostic::Severity::Note, where, std::move(message), {}};
    if (diags_.empty()) {
        diags_.push_back(std::move(n));
    } else {
        diags_.back().notes.push_back(std::move(n));
    }
}

void Diagnostics::add(Diagnostic d) { diags_.push_back(std::move(d)); }

bool Diagnostics::has_errors() const { return error_count() > 0; }

std::size_t Diagnostics::error_count() const {
    return static_cast<std::size_t>(std::count_if(diags_.begin(), diags_.end(), [](const auto& d) {
        return d.severity == Diagnostic::Severity::Error;
    }));
}

std::vector<Diagnostic> Diagnostics::sorted() const {
    std::vector<const Diagnostic*> order;
    order.reserve(diags_.size());
    for (const auto& d : diags_) order.push_back(&d);
    std::stable_sort(order.begin(), order.end(), [](const Diagnostic* a, const Diagnostic* b) {
        return std::tie(a->range.file, a->range.begin) < std::tie(b->range.file, b->range.begin);
    });

    std::vector<Diagnostic> out;
    std::set<std::tuple<uint32_t, SourceLoc, int, std::string>> seen;
    std::size_t errors = 0;
    for (const Diagnostic* d : order) {
        if (!seen.emplace(d->range.file, d->range.begin, static_cast<int>(d->severity), d->message)
                 .second) {
            continue;
        }
        if (d->severity == Diagnostic::Severity::Error) {
            if (max_errors_ != 0 && errors == max_errors_) {
                Diagnostic stop;
                stop.range.file = d->range.file;
                stop.message = "too many errors, stopping";
                stop.summary = true;
                out.push_back(std::move(stop));
                break;
            }
            ++errors;
        }
        out.push_back(*d);
    }
    return out;
}

namespace {

void render_one(const Diagnostics& diags, const Diagnostic& d, std::string& out) {
    const std::string& name = diags.file_name(d.range.file);
    out += name;
    if (d.range.valid()) {
        out += ':' + std::to_string(d.range.begin.line) + ':' + std::to_string(d.range.begin.col);
    } else if (!d.summary && !name.empty() && name.front() != '-' && name.front() != '<') {
        out += ":1:1";  // about the whole file (an empty one, one with no net): its start
    }
    out += ": ";
    out += severity_word(d.severity);
    out += ": ";
    out += d.message;
    out += '\n';
    if (!d.range.valid()) return;

    const ShownLine line = shown_line(diags.line_text(d.range.file, d.range.begin.line));
    const std::size_t col = d.range.begin.col == 0 ? 0 : d.range.begin.col - 1;  // 0-based
    std::size_t first = 0;
    std::size_t last = line.cells.size();
    if (last > kMaxShownLine) {
        first = col > kMaxShownLine / 2 ? col - kMaxShownLine / 2 : 0;
        first = std::min(first, last - kMaxShownLine);
        last = first + kMaxShownLine;
    }
    std::string text = "  ";
    std::string caret = "  ";
    if (first > 0) {
        text += "...";
        caret += "   ";
    }
    for (std::size_t k = first; k < last; ++k) text += line.cells[k];
    if (last < line.cells.size()) text += "...";
    for (std::size_t k = first; k < col; ++k) {
        caret += k < line.cells.size() && line.is_tab[k] ? '\t' : ' ';
    }
    caret += '^';
    out += text;
    out += '\n';
    out += caret;
    out += '\n';
}

}  // namespace

std::string Diagnostics::render() const {
    std::string out;
    for (const Diagnostic& d : sorted()) {
        render_one(*this, d, out);
        for (const Diagnostic& n : d.notes) render_one(*this, n, out);
    }
    return out;
}

}  // namespace sgdnet::frontend
