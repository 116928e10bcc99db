// Reachability graph of a net → tangible CTMC, vanishing markings eliminated on the fly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "net/petri_net.hpp"
#include "solver/solve_options.hpp"

namespace sgdnet::solver {

/// The tangible CTMC of a net (docs/language.md §6 semantics). States are stored flat: state s is
/// `arena[s*width .. (s+1)*width)`, the token counts of every place followed by one phase slot
/// per phase-type-expanded transition. No per-state heap objects.
struct Ctmc {
    uint32_t num_places = 0;
    uint32_t width = 0;
    uint64_t num_states = 0;
    std::vector<uint32_t> arena;
    /// The generator's off-diagonal rates by target state (compressed columns, the transpose
    /// of the rate matrix): the rates into state j are `in_rate[k]` (1/s) from state
    /// `in_from[k]`, for k in [in_start[j], in_start[j+1]), sources ascending. Several entries
    /// may share a source (they add up); self-loops are dropped. Gauss–Seidel reads a column per
    /// state, and the graph algorithms run on these reversed edges (same components).
    std::vector<uint64_t> in_start;   // num_states + 1
    std::vector<uint32_t> in_from;
    std::vector<double> in_rate;
    std::vector<double> exit_rate;    // per state: Σ of its off-diagonal rates (1/s)
    /// Transitions whose firing frequencies were recorded (timed and immediate alike).
    std::vector<uint32_t> tracked;
    /// flow[k][s]: expected firings per second of tracked[k] while in state s, including the
    /// immediate firings that follow a timed firing from s (vanishing elimination).
    std::vector<std::vector<double>> flow;
    /// Tangible states reached from the initial marking (the initial distribution's support).
    std::vector<uint32_t> initial_states;
    /// Largest token count seen per place over all tangible states.
    std::vector<uint32_t> max_tokens;
    std::vector<std::string> warnings;  // e.g. phase-type expansions performed

    const uint32_t* state(uint64_t s) const { return arena.data() + s * width; }
    uint64_t num_rates() const { return in_from.size(); }
};

/// Largest number of vanishing markings explored from one marking before giving up.
inline constexpr uint64_t kMaxVanishingChain = 100'000;

/// Builds the tangible reachability graph and its CTMC. Two passes over the states: the first
/// explores them and counts the rates into each, the second fires the same transitions again and
/// writes the rates straight into their columns, so no list of rates is ever held twice.
///
/// Timed transitions must be exponential (net::is_exponential) unless options.phase_type, in
/// which case the others are replaced by fit_phase_type() (single-server transitions only).
/// The rate of an exponential transition in a marking is
/// rate × (single: 1, K servers: min(K, degree), infinite: degree) × speed(marking).
/// Immediate transitions: the highest priority wins, ties by weight; chains and loops of
/// vanishing markings are eliminated exactly (absorption probabilities).
/// `tracked` lists the transitions whose firing frequencies are recorded in Ctmc::flow.
///
/// Throws SolveError: NotExponential (names the transition), StateSpaceTooLarge (more than
/// options.max_states tangible states; names the place that grew most), BoundExceeded (names
/// the place), Deadlock (a tangible marking with no way out), Invalid (vanishing loop without
/// exit, infinite-server source, ...).
Ctmc build_ctmc(const net::PetriNet& net, const SolveOptions& options,
                const std::vector<uint32_t>& tracked);

/// Text of a marking for messages, e.g. `{queue=3, idle=1}` (places with zero tokens omitted).
std::string describe_marking(const net::PetriNet& net, const uint32_t* marking);

}  // namespace sgdnet::solver
