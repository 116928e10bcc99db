// Source buffers and the diagnostics sink: sorted, deduplicated, capped; rendered with carets.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "net/source_range.hpp"

namespace sgdnet::frontend {

using net::SourceLoc;
using net::SourceRange;

struct Diagnostic {
    enum class Severity { Error, Warning, Note };
    Severity severity = Severity::Error;
    /// range.valid() == false: about the whole file, printed at its start (`FILE:1:1: error: …`,
    /// no source line); about no file at all (`--set NAME`, `<input>`) or a summary (`too
    /// many errors`): `FILE: error: …`.
    SourceRange range;
    std::string message;
    std::vector<Diagnostic> notes;  // secondary locations, printed after the main one
    bool summary = false;           // a summary of the list (`too many errors, stopping`)
};

/// Collects diagnostics of one compilation. Never throws, never exits.
class Diagnostics {
public:
    explicit Diagnostics(std::size_t max_errors = 50);

    /// Registers a source buffer; returns its file index (SourceRange::file).
    uint32_t add_source(std::string display_name, std::string text);
    const std::string& file_name(uint32_t file) const;
    const std::string& file_text(uint32_t file) const;
    /// Text of 1-based line `line` of `file`, without its newline ("" when out of range).
    std::string_view line_text(uint32_t file, uint32_t line) const;
    const std::vector<std::string>& file_names() const;

    void error(SourceRange where, std::string message);
    void warning(SourceRange where, std::string message);
    /// Attaches a note to the most recent error or warning.
    void note(SourceRange where, std::string message);
    void add(Diagnostic d);

    bool has_errors() const;
    std::size_t error_count() const;
    /// Diagnostics sorted by (file, line, col), duplicates removed, at most max_errors errors
    /// (then one final "too many errors" line).
    std::vector<Diagnostic> sorted() const;
    /// Renders sorted() like a C compiler:
    ///   FILE:LINE:COL: error: MESSAGE
    ///     <source line>
    ///         ^
    std::string render() const;

private:
    std::size_t max_errors_;
    std::vector<std::string> names_;
    std::vector<std::string> texts_;
    std::vector<std::vector<std::size_t>> line_starts_;
    std::vector<Diagnostic> diags_;
};

}  // namespace sgdnet::frontend
