// The canonical layout of a `.sgdnet` file (`sgdnet fmt`): the same tokens and comments, laid out
// by fixed rules, so that formatting never changes what the file means.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "frontend/diagnostics.hpp"

namespace sgdnet::frontend {

/// The source registered as `file` in `diags`, in canonical layout: one declaration, property,
/// arc or layer row per line, blocks indented by 4 spaces, one space around binary operators,
/// `=` and `~`, after `,` and after the `:` of a layer row or a mixture weight, none inside
/// brackets, around `.` or `..`, after a unary operator, or in an arc multiplicity (`a*2`) or
/// `[*]`; one blank line between top-level declarations (consecutive one-line declarations
/// without a blank line between them stay together), at most one blank line inside a block;
/// comments are kept where they are (at the end of their line, or on lines of their own,
/// indented with the code). Numbers with units are kept as written. Only whitespace changes;
/// formatting the result again gives the same text. Returns nullopt after reporting the syntax
/// errors of a file that does not parse.
std::optional<std::string> format_source(uint32_t file, Diagnostics& diags);

}  // namespace sgdnet::frontend
