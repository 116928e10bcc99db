// parse(): the only entry point that drives ANTLR; returns the AST of one registered source.
#pragma once

#include "frontend/ast.hpp"
#include "frontend/diagnostics.hpp"

namespace sgdnet::frontend {

/// Parses the source registered as `file` in `diags` (docs/language.md §2–§6). Syntax errors are
/// reported to `diags` (all of them, with recovery); the returned AST holds every declaration
/// that could be built. Never throws on bad input (empty, binary, unterminated, deeply nested).
Ast parse(uint32_t file, Diagnostics& diags);

/// Parses the whole source `file` as one expression (used for `--set NAME=VALUE` values and
/// sweep ranges). Returns null after reporting a diagnostic when it is not exactly one expression.
ExprPtr parse_expression(uint32_t file, Diagnostics& diags);

}  // namespace sgdnet::frontend
