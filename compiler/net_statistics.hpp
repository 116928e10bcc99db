// Size statistics of a compiled net, and of the fine net a coarse training model was reduced from.
//
// `sgdnet compile --granularity coarse --emit net` on a model with layer tables prints the size of
// the reduced (coarse) net and, beside it, the size of the fine net it reduces. The printer
// (net/print.cpp) knows only the net it prints, so the compiler provides the sizes:
//
//     auto net = compiler::compile_file(path, options, diags);
//     auto stats = compiler::net_statistics_file(*net, path, options);
//     std::string text = emit::to_net_text(*net);            // line 2: "  places …, measures …"
//     for (const auto& l : stats.lines()) ...          // insert after line 2
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/compile.hpp"
#include "net/petri_net.hpp"

namespace sgdnet::compiler {

/// The counts `--emit net` prints on its second line.
struct NetSize {
    std::size_t places = 0;
    std::size_t timed = 0;
    std::size_t immediate = 0;
    std::size_t arcs = 0;  // input + output + inhibitor arcs
    std::size_t measures = 0;
    bool operator==(const NetSize&) const = default;
};

/// Counts the places, transitions by kind, arcs and measures of `net`.
NetSize net_size(const net::PetriNet& net);

/// `places P, timed T, immediate I, arcs A, measures M` (the words of emit::to_net_text's size line).
std::string to_string(const NetSize& s);

/// The size of a compiled net and, for a training model reduced to coarse granularity, of the
/// fine net it stands for.
struct NetStatistics {
    NetSize net;
    /// Set when the model's workers have layer tables and it was compiled at coarse granularity
    /// (`--granularity coarse` or `granularity = coarse`): the size of the same model compiled
    /// at fine granularity (docs/training.md, "Workers and the coarse reduction").
    std::optional<NetSize> fine;
    /// Comment lines to print under the size line, each starting with two spaces; empty when
    /// `fine` is unset. E.g. `  coarse (reduced) net; fine net: places 4304, timed 2840, …`.
    std::vector<std::string> lines() const;
};

/// Statistics of `net`, compiled from `text` (registered as `display_name`) with `options`.
/// When the fine size applies (see NetStatistics::fine), `text` is compiled once more with
/// `granularity = Fine`; if that compilation fails (e.g. some worker has no layer table), `fine`
/// stays unset. Reports nothing; never throws.
NetStatistics net_statistics(const net::PetriNet& net, std::string_view text,
                             const std::string& display_name, const CompileOptions& options);

/// net_statistics() of the file at `path` (read again; unreadable: `fine` unset).
NetStatistics net_statistics_file(const net::PetriNet& net, const std::string& path,
                                  const CompileOptions& options);

}  // namespace sgdnet::compiler
