// Structural bounds of a raw net without simulation: its place invariants (weighted token sums
// that no firing changes), the most tokens each place can hold, and the most firings per second
// each timed transition can reach.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "net/petri_net.hpp"

namespace sgdnet::explain {

/// Σ weight · tokens(place) over `weights` equals `tokens` in every reachable marking.
struct PlaceInvariant {
    std::vector<std::pair<uint32_t, int64_t>> weights;  // (place index, weight > 0)
    int64_t tokens = 0;                                  // the sum in the initial marking
};

struct StructuralBounds {
    /// The minimal non-negative place invariants (P-semiflows), or empty when the net has none
    /// or `complete` is false.
    std::vector<PlaceInvariant> invariants;
    /// False when the search gave up (more than `max_rows` candidates or weights too large);
    /// then every bound below comes from explicit `bound = K` places only.
    bool complete = true;
    /// Per place: the most tokens it can hold, from the invariants and its own `bound`.
    std::vector<std::optional<double>> place_tokens;
    /// Per transition: an upper bound of its firings per second, for timed transitions without
    /// `speed` whose completed delays are unbiased draws (exponential or deterministic delays,
    /// or age memory): min(servers, enabling degree the input places allow) / mean delay.
    std::vector<std::optional<double>> firings_per_s;
};

/// Computes the invariants with Farkas' algorithm (kept minimal by support) and the bounds they
/// imply. Gives up past `max_rows` candidate rows.
StructuralBounds structural_bounds(const net::PetriNet& net, std::size_t max_rows = 4000);

}  // namespace sgdnet::explain
