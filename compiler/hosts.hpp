// The hosts of a training system (docs/language.md, "Hosts"): the `host NAME[COUNT]` declarations
// as one list of host elements, and the placement `host = NAME` / `host = NAME[INDEX]` of a worker
// or server on one of them.
//
//     HostTable hosts(ast, resolved.scope, diags);             // counts evaluated, errors reported
//     auto k = hosts.place(*prop.value, row, "w[3]", diags);  // index into TrainingSpec::hosts
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/eval.hpp"
#include "frontend/ast.hpp"
#include "frontend/diagnostics.hpp"

namespace sgdnet::compiler {

// The front end's types (AST, diagnostics, source ranges) are this library's vocabulary.
using namespace sgdnet::frontend;

/// The name of element `index` of a declaration called `name`: `w[3]`, or `w` for a declaration
/// written without a count (`array` false). Workers, servers and hosts are named this way.
std::string element_name(const std::string& name, bool array, int64_t index);

/// The host elements a file declares, in declaration order (`h[0]`, `h[1]`, then `g`, …), which is
/// the order of TrainingSpec::hosts; and the kinds of the file's other top-level names, so that a
/// placement naming one of them says what it is.
class HostTable {
public:
    /// One `host` declaration: its elements are [first, first + count) of the list.
    struct Array {
        const HostDecl* decl = nullptr;
        int64_t count = 0;  // 0 when the count did not evaluate: placements on it fail silently
        std::size_t first = 0;
    };

    /// No hosts.
    HostTable() = default;
    /// Collects the `host` declarations of `ast`, evaluating each count in `scope` (an integer in
    /// 1..kMaxArraySize; a failure is reported to `diags`). A host whose name an earlier
    /// declaration already has is left out (resolve() reports it).
    HostTable(const Ast& ast, const Scope& scope, Diagnostics& diags);

    const std::vector<Array>& arrays() const { return arrays_; }
    /// The number of host elements.
    std::size_t size() const { return size_; }

    /// Evaluates a placement (the value of a worker's or server's `host`) for the element called
    /// `element` (`w[3]`, for messages), with its index bound in `row`: `NAME` for a host declared
    /// without a count, `NAME[INDEX]` for an element of a host array (INDEX an integer
    /// expression; `/` between integers is floor division, as in every array index), or
    /// `COND ? A : B` of those. Returns the element's position in the list. Reports an unknown
    /// host (with "did you mean"), a name that is not a host (saying what it is), a missing or
    /// superfluous index, and an index out of range (naming `element`).
    std::optional<int> place(const Expr& e, const Scope& row, std::string_view element,
                             Diagnostics& diags) const;

private:
    const Array* find(std::string_view name) const;
    void not_a_host(const Expr& e, const std::string& name, const Scope& row,
                    Diagnostics& diags) const;

    std::vector<Array> arrays_;
    std::size_t size_ = 0;
    struct Other {
        std::string kind;  // "worker", "param", "layer table", …
        SourceRange where;
    };
    std::map<std::string, Other, std::less<>> others_;
};

}  // namespace sgdnet::compiler
