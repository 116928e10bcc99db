// Source locations carried by every AST node and every net element (1-based lines and columns).
#pragma once

#include <compare>
#include <cstdint>

namespace sgdnet::net {

/// A position in a source file: 1-based line, 1-based column counted in code points.
/// line == 0 means "no location" (an element generated without a source position).
struct SourceLoc {
    uint32_t line = 0;
    uint32_t col = 0;
    auto operator<=>(const SourceLoc&) const = default;
};

/// A half-open range [begin, end) inside the file `file` (an index into the file table of the
/// owning PetriNet or of the compiler's source manager).
struct SourceRange {
    uint32_t file = 0;
    SourceLoc begin;
    SourceLoc end;
    bool valid() const { return begin.line != 0; }
    auto operator<=>(const SourceRange&) const = default;
};

}  // namespace sgdnet::net
