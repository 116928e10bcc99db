// The stochastic timed Petri net IR shared by the compiler and the solvers (plain data).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "net/distribution.hpp"
#include "net/marking_expr.hpp"
#include "net/source_range.hpp"

namespace sgdnet::net {

/// Index of a place in PetriNet::places.
struct PlaceId {
    uint32_t value = 0;
    auto operator<=>(const PlaceId&) const = default;
};
/// Index of a transition in PetriNet::transitions.
struct TransitionId {
    uint32_t value = 0;
    auto operator<=>(const TransitionId&) const = default;
};

struct Place {
    std::string name;  // fully qualified, e.g. `mm1.queue`, `shared.buf[2]`, `w[3].ready`
    uint32_t initial = 0;
    std::optional<uint32_t> bound;  // explicit `bound = K`: exceeding it is a SolveError
    SourceRange where;
    bool operator==(const Place&) const = default;
};

struct Arc {
    PlaceId place;
    uint32_t multiplicity = 1;
    bool operator==(const Arc&) const = default;
};

enum class TransitionKind : uint8_t { Timed, Immediate };
enum class Memory : uint8_t { Enabling, Age };

/// `server = infinite`.
inline constexpr uint32_t kInfiniteServers = std::numeric_limits<uint32_t>::max();

/// A timed or immediate transition (docs/language.md §6).
///
/// Timed: fires after a delay drawn from `delay`. With `servers` = K the transition has
/// min(K, enabling degree) concurrent firings in progress, each with its own clock (enabling
/// degree = largest d such that every input place holds d·multiplicity tokens). `speed`, when
/// set, is the marking-dependent rate at which every clock of the transition runs (it implies
/// Memory::Age). Immediate: fires in zero time; the highest `priority` among enabled immediates
/// wins, ties resolved at random with probability proportional to `weight`.
/// Inhibitor arcs disable the transition while the place holds >= multiplicity tokens.
/// A place both in `inputs` and `outputs` is a test arc (consumed and put back atomically).
struct Transition {
    std::string name;
    TransitionKind kind = TransitionKind::Timed;
    Distribution delay;  // Timed only
    uint32_t servers = 1;
    Memory memory = Memory::Enabling;
    std::optional<MarkingExpr> speed;
    int priority = 1;    // Immediate only
    double weight = 1;   // Immediate only
    std::vector<Arc> inputs;
    std::vector<Arc> outputs;
    std::vector<Arc> inhibitors;
    SourceRange where;
    bool operator==(const Transition&) const = default;
};

/// A steady-state quantity to estimate.
///
/// - Throughput:   Σ_k coef_k · (firings of transition t_k per second)
/// - TimeAverage:  long-run time average of `expr` (tokens(P) is `expr` = tokens of P,
///                 prob(cond) is `expr` = cond, which evaluates to 0/1)
/// - MeanInverseThroughput: Σ_k coef_k / throughput(t_k)   (e.g. step_time averaged over workers)
struct Measure {
    enum class Kind : uint8_t { Throughput, TimeAverage, MeanInverseThroughput };
    struct Term {
        TransitionId transition;
        double coef = 1;
        bool operator==(const Term&) const = default;
    };
    std::string name;
    Kind kind = Kind::Throughput;
    std::vector<Term> terms;  // Throughput, MeanInverseThroughput
    MarkingExpr expr;         // TimeAverage
    std::string unit;         // display unit of the canonical value: "1/s", "s", "tokens", ""
    SourceRange where;
    /// A fraction of time (`prob(…)`, a utilization): estimates are clipped to [0, 1].
    bool fraction = false;
    bool operator==(const Measure&) const = default;
};

/// `throughput`, `time_average` or `mean_inverse_throughput` (the exporters' spelling).
const char* to_string(Measure::Kind kind);

/// A parameter value as the net was compiled with (after --set), canonical units.
struct NetParam {
    std::string name;
    double value = 0;
    std::string unit;  // canonical unit of the value: "s", "B", "B/s", "1/s", "" (a number)
    bool operator==(const NetParam&) const = default;
};

/// The whole net. Element names are unique. The first measure is the one sequential stopping
/// (`--precision`) applies to.
struct PetriNet {
    std::string name;                // `model NAME;` or the file stem
    std::vector<std::string> files;  // SourceRange::file indexes this table
    std::vector<NetParam> params;
    std::vector<Place> places;
    std::vector<Transition> transitions;
    std::vector<Measure> measures;

    const Place& place(PlaceId id) const { return places[id.value]; }
    const Transition& transition(TransitionId id) const { return transitions[id.value]; }
    std::optional<PlaceId> find_place(const std::string& name) const;
    std::optional<TransitionId> find_transition(const std::string& name) const;

    bool operator==(const PetriNet&) const = default;
};

/// Structural invariants (unique names, ids in range, multiplicities >= 1, weights > 0, …).
/// Returns one message per violation; empty when the net is well formed.
std::vector<std::string> validate(const PetriNet& net);

}  // namespace sgdnet::net
