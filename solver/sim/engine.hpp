// One replication of the discrete-event simulation of a net: events, incremental enabling,
// immediates, fused chains.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "net/petri_net.hpp"
#include "solver/sim/event_queue.hpp"
#include "solver/sim/rng.hpp"

namespace sgdnet::solver {

/// Whether private chains of timed transitions run as one event (CompiledNet::fuse_chains()).
enum class Fusion : uint8_t { Off, On };

/// The read-only, flattened form of a net shared by every replication (docs/language.md §6).
/// Arrays are indexed by place / transition id; arc lists are CSR ranges.
struct CompiledNet {
    struct ArcRef {
        uint32_t place;
        uint32_t mult;
        uint32_t interest;  // index in interest_pool of this arc's place for its transition
    };
    struct Delta {
        uint32_t place;
        int32_t delta;
    };
    struct Range {
        uint32_t begin = 0, end = 0;
    };

    uint32_t num_places = 0;
    uint32_t num_transitions = 0;
    std::vector<uint32_t> initial;
    std::vector<uint64_t> limit;           // tokens above this are an error
    /// Per place, what exceeding `limit` means: kLimitUnbounded (options.unbounded_tokens),
    /// kLimitBound (an explicit `bound`) or kLimitChain (a second token entered a fused chain).
    std::vector<uint8_t> limit_is_bound;
    static constexpr uint8_t kLimitUnbounded = 0, kLimitBound = 1, kLimitChain = 2;

    std::vector<Range> inputs, inhibitors, deltas;  // per transition
    std::vector<ArcRef> arc_pool;                   // inputs and inhibitors
    std::vector<Delta> delta_pool;                  // net change of each touched place
    /// Per transition: the distinct places whose change can alter its enabling degree or its
    /// speed (inputs, inhibitors, places of the speed expression). An engine re-examines a
    /// transition only when one of the places it currently watches changes (SimEngine).
    std::vector<Range> interests;
    std::vector<uint32_t> interest_pool;   // place of each interest
    std::vector<uint32_t> interest_owner;  // transition of each interest
    /// Per interest: 1 when only its place turning empty or non-empty can change what its
    /// transition does: the transition is immediate or single-server, every arc it has on the
    /// place has weight 1, and its speed does not read the place (or is a share group's). The
    /// engine then skips it on the place's other changes.
    std::vector<uint8_t> interest_threshold;
    std::vector<Range> place_exprs;                 // per place: tracked expressions reading it
    std::vector<uint32_t> place_expr_pool;

    std::vector<uint8_t> immediate;    // per transition
    std::vector<uint8_t> age;          // per transition: memory = age (or speed set)
    std::vector<uint32_t> servers;     // per transition (kInfiniteServers allowed)
    std::vector<uint32_t> dist;        // per transition: root in `dists` (timed only)
    std::vector<int32_t> speed;        // per transition: index in `exprs`, or -1
    std::vector<int> priority;         // per transition (immediate only)
    std::vector<double> weight;        // per transition (immediate only)
    DistributionTable dists;

    /// Marking expressions: speeds first, then the time-averaged expressions of measures.
    std::vector<net::MarkingExpr> exprs;
    /// Speeds of the forms c / tokens(p) and min(c1 / tokens(p1), c2 / tokens(p2)) (the fair
    /// share of one or two NIC directions) are evaluated without the interpreter, with the
    /// same IEEE operations in the same order. One per speed expression; terms == 0: interpret.
    struct SpeedForm {
        uint32_t terms = 0;
        uint32_t p1 = 0, p2 = 0;
        double c1 = 0, c2 = 0;
    };
    std::vector<SpeedForm> speed_forms;
    /// Share groups (processor sharing in virtual time). A timed, single-server transition
    /// whose speed has a SpeedForm with positive finite constants and whose form's places are
    /// input places of it (weight 1) is *shared*: its clock runs in the group of the place
    /// whose share c / tokens(p) is currently the smaller, and a change of tokens(p) costs one
    /// reschedule of the group instead of one per clock (SimEngine).
    std::vector<uint8_t> shared;           // per transition
    std::vector<int32_t> share_group;      // per place: its group, or -1
    std::vector<uint32_t> group_place;     // per group
    struct ShareTerms {
        uint32_t terms = 0;     // 1 or 2 for a shared transition
        uint32_t group[2] = {0, 0};
        double c[2] = {0, 0};   // share of term k: c[k] / tokens(group_place[group[k]])
    };
    std::vector<ShareTerms> share_terms;   // per transition
    uint32_t first_tracked_expr = 0;   // exprs[first_tracked_expr..] are time-averaged
    /// Count columns of a snapshot: when transition t fires, every (column, coef) of
    /// count_terms[t] adds coef to that column (a weighted firing count). Only the transitions
    /// that measures read have terms, so the cost per firing is independent of the net size.
    struct CountTerm {
        uint32_t column;
        double coef;
    };
    std::vector<Range> count_terms;    // per transition
    std::vector<CountTerm> count_pool;
    uint32_t num_count_columns = 0;

    /// The exponential race: per transition, its rate when its clocks need no identity —
    /// timed, exponential, no `speed`, not shared, not a fused chain's head — else 0. Such
    /// transitions get no clocks: by memorylessness, the next of their firings is one
    /// exponential draw at the sum of rate × busy servers over them, and the winner is drawn in
    /// proportion to its share (SimEngine). `race_slot[t]` is t's leaf in the engine's tree of
    /// rates; `race_leaves` their number.
    std::vector<double> race_rate;
    std::vector<uint32_t> race_slot;
    uint32_t race_leaves = 0;
    /// Fills race_rate and race_slot (after fuse_chains()).
    void find_race();

    std::vector<std::string> place_names, transition_names;

    /// Fused chains (fuse_chains()): per transition, how many of the net's firings one of its
    /// firings stands for — 1, or the length of the chain it heads.
    std::vector<uint32_t> firings;
    uint32_t fused_chains = 0;       // chains merged
    uint32_t fused_transitions = 0;  // transitions they hold, heads included

    /// Flattens `net`; `tracked` are the expressions to time-average, `counted` the
    /// transitions whose firings are counted. Throws SolveError(Invalid) for nets the
    /// simulator cannot run (e.g. a timed source with infinite servers).
    static CompiledNet build(const net::PetriNet& net, const std::vector<net::MarkingExpr>& tracked,
                             const std::vector<uint32_t>& counted, uint64_t unbounded_tokens);
    /// As build(), with general count columns: column c accumulates Σ coef over the firings of
    /// the (transition, coef) pairs of `columns[c]`.
    using CountColumn = std::vector<std::pair<uint32_t, double>>;
    /// With Fusion::On, private chains of timed transitions then run as one event
    /// (fuse_chains()).
    static CompiledNet build_columns(const net::PetriNet& net,
                                     const std::vector<net::MarkingExpr>& tracked,
                                     const std::vector<CountColumn>& columns,
                                     uint64_t unbounded_tokens, Fusion fusion = Fusion::Off);

    /// Series reduction of the flattened net, exact in distribution. A chain
    /// u0 →p1→ u1 →p2→ … → uk (k >= 1) is fused when every place p_j is private (its only arcs
    /// are one output arc of u_{j−1} and one input arc of u_j, both of weight 1; no inhibitor,
    /// speed or measure reads it; no `bound`; initially empty), every u_j has that place as its
    /// only input, no inhibitor and no speed, and no output but p_{j+1} (j < k); u0 is timed
    /// and its input place e is private to it in the same way (with at most one initial
    /// token); u1 … uk−1 may be immediate (zero delay), uk is timed. Then u0, once enabled,
    /// runs for the sum of the members' delays and fires with uk's outputs; u1 … uk are never
    /// enabled again. Each firing counts one firing of every member (at the chain's end).
    /// Nothing outside the chain can tell the difference while it holds one token at a time:
    /// its places are read by no one and its transitions cannot be disabled or slowed. A
    /// second token in e would make the chain a tandem queue, so e's limit becomes 1
    /// (kLimitChain): the engine then stops with SimEngine::Status::ChainOverlap and
    /// simulate() runs the net unfused.
    void fuse_chains(const net::PetriNet& net);
    /// Fills shared, share_group, group_place and interest_threshold (after the transitions).
    void find_share_groups();

    uint32_t num_tracked() const { return static_cast<uint32_t>(exprs.size()) - first_tracked_expr; }
    /// Width of a snapshot row: count columns then tracked integrals.
    uint32_t snapshot_width() const { return num_count_columns + num_tracked(); }
};

/// A list of server slots with room for two inline: single- and two-server transitions (most of
/// a large net) never allocate, so starting a replication of a net with 10⁵ transitions costs
/// no 10⁵ heap allocations.
class SlotList {
public:
    SlotList() = default;
    SlotList(const SlotList&) = delete;
    SlotList& operator=(const SlotList&) = delete;
    SlotList(SlotList&& o) noexcept : size_(o.size_), cap_(o.cap_), u_(o.u_) { o.cap_ = 0; o.size_ = 0; }
    ~SlotList() { if (cap_ > kInline) delete[] u_.heap; }
    uint32_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    uint32_t* begin() { return data(); }
    uint32_t* end() { return data() + size_; }
    const uint32_t* begin() const { return data(); }
    const uint32_t* end() const { return data() + size_; }
    uint32_t& operator[](uint32_t i) { return data()[i]; }
    uint32_t back() const { return data()[size_ - 1]; }
    void pop_back() { --size_; }
    void push_back(uint32_t v) {
        if (size_ == capacity()) grow();
        data()[size_++] = v;
    }

private:
    static constexpr uint32_t kInline = 2;
    uint32_t capacity() const { return cap_ > kInline ? cap_ : kInline; }
    uint32_t* data() { return cap_ > kInline ? u_.heap : u_.in; }
    const uint32_t* data() const { return cap_ > kInline ? u_.heap : u_.in; }
    void grow() {
        const uint32_t nc = capacity() * 2;
        uint32_t* h = new uint32_t[nc];
        for (uint32_t i = 0; i < size_; ++i) h[i] = data()[i];
        if (cap_ > kInline) delete[] u_.heap;
        u_.heap = h;
        cap_ = nc;
    }
    uint32_t size_ = 0, cap_ = 0;
    union U {
        uint32_t in[kInline];
        uint32_t* heap;
    } u_{};
};

/// The state of one replication. Nothing in run_until() allocates once the per-transition
/// clock lists have reached their steady-state size, throws, or calls virtual functions.
class SimEngine {
public:
    enum class Status : uint8_t { Ok, Deadlock, BoundExceeded, Unbounded, TimelessTrap, BadSpeed,
                                  Aborted, ChainOverlap };

    /// Maximum immediate firings at one instant before Status::TimelessTrap.
    static constexpr uint64_t kMaxImmediateFirings = 1'000'000;

    /// Initial marking, time 0, RNG stream `stream` of `seed`. `net` must outlive the engine.
    SimEngine(const CompiledNet& net, uint64_t seed, uint64_t stream);

    using Clock = std::chrono::steady_clock;
    /// Simulates until simulated time `t_end` (>= now()); on Ok, now() == t_end. Every 65536
    /// events it reads the wall clock and returns Aborted once `deadline` has passed.
    Status run_until(double t_end, Clock::time_point deadline = Clock::time_point::max());
    /// Fires timed transitions until `n` more have fired (immediates are not counted).
    Status run_events(uint64_t n);
    /// Resolves pending immediate transitions and brings time-averages up to now():
    /// afterwards the marking is tangible. Returns Deadlock if no clock can ever complete.
    Status settle();

    double now() const { return now_; }
    /// Transition firings so far (timed and immediate).
    uint64_t events() const { return events_; }
    uint64_t rng_draws() const { return rng_.draws(); }
    const std::vector<uint32_t>& marking() const { return marking_; }
    /// Place or transition the last error concerns.
    uint32_t error_element() const { return error_element_; }

    /// Writes snapshot_width() cumulative values at now(): the count columns (weighted firing
    /// counts), then ∫ expr dt over [0, now()] of every tracked expression.
    void snapshot(double* out) const;
    /// Writes num_count_columns values at now(): ∫ count dt over [0, now()] of every count
    /// column, i.e. Σ coef·(now() − firing time) over its firings.
    void count_integrals(double* out) const;
    /// A description of the tangible state (marking, then per transition its running clocks'
    /// remaining work and suspended work) used to find the period of deterministic nets.
    /// Precondition: settle() returned Ok.
    void state_signature(std::vector<double>& out) const;
    /// Hash of the marking only.
    uint64_t marking_hash() const;

private:
    Status fire(uint32_t t);
    Status settle_inline();
    Status resolve_immediates();
    void update(uint32_t t);
    /// Enabling degree of t; when 0, `blocker` is the interest of an arc that disables it.
    uint32_t degree(uint32_t t, uint32_t& blocker) const;
    void watch(uint32_t interest);
    void unwatch(uint32_t interest);
    void set_watch_mode(uint32_t t, uint32_t mode);
    void add_clock(uint32_t t);
    void drop_clock(uint32_t t);
    /// Removes `slot` from t's running clocks (the slot itself stays allocated).
    void detach_clock(uint32_t t, uint32_t slot);
    void remove_clock_slot(uint32_t t, uint32_t slot);
    Status fire_top();
    double remaining_work(uint32_t slot) const;
    double speed_value(uint32_t expr) const;
    void flush_exprs();
    void set_immediate_enabled(uint32_t t, bool on);
    uint32_t new_slot();
    // Share groups.
    uint32_t binding(uint32_t t) const;
    void place_job(uint32_t slot, uint32_t t, uint32_t bound, double work);
    double unplace_job(uint32_t slot, uint32_t t);
    void schedule_group(uint32_t g);
    void shift_group(uint32_t g, uint32_t tokens);

    const CompiledNet& net_;
    Rng rng_;
    double now_ = 0;
    uint64_t events_ = 0;
    uint32_t error_element_ = 0;
    Status status_ = Status::Ok;  // sticky error raised inside update()
    std::vector<uint32_t> marking_;
    std::vector<double> counts_;                 // per count column
    std::vector<double> count_times_;            // per count column: Σ coef·firing time

    // Clocks ("server slots"): per transition the running slots in start order.
    std::vector<SlotList> clocks_;
    std::vector<std::vector<double>> suspended_;  // age memory: remaining work of paused clocks
    std::vector<uint32_t> slot_owner_, slot_index_;
    std::vector<double> slot_work_, slot_ref_;   // speed: work left at slot_ref_ time
    std::vector<uint32_t> free_slots_;
    // The slot of the timed firing being processed: still in the queue, so that a clock started
    // by the same firing reuses it with one sift instead of a pop and a push.
    uint32_t spare_slot_ = EventQueue::kNone;
    EventQueue queue_;
    std::vector<double> cur_speed_;               // per transition (1 without speed)

    // Share groups (CompiledNet::shared). Every clock of a group progresses at c / n, n the
    // tokens of the group's place and c its transition's constant, so it is kept as a finish
    // tag in virtual time v = ∫ dt / n: tag = v + work / c, fixed while n changes. The event
    // queue holds one entry per group, its smallest tag converted to real time.
    struct ShareGroup {
        IndexedHeap jobs;              // slots bound by this group's share, keyed by tag
        std::vector<uint32_t> others;  // slots of two-term clocks bound by their other term
        double v = 0;                  // virtual time at `at`
        double at = 0;
        double n = 0;                  // tokens of the place
        uint32_t qid = 0;              // id of the group's next completion in queue_
        double max_c = 0;              // largest constant of a clock that can bind here
        // A lower bound of the other term's share over the two-term clocks bound here: while
        // max_c / n stays at or below it, no clock here can move to its other term.
        double min_other = std::numeric_limits<double>::infinity();
    };
    static constexpr uint32_t kGroupSlot = EventQueue::kNone;  // slot_owner_ of a group's id
    std::vector<ShareGroup> groups_;
    std::vector<uint32_t> job_pos_;     // per slot: position in its group's heap
    std::vector<uint32_t> other_pos_;   // per slot: position in the other group's `others`
    std::vector<uint8_t> bound_term_;   // per slot: which term binds (0 or 1)
    std::vector<uint32_t> flips_;       // scratch

    // The exponential race (CompiledNet::race_rate): a sum tree over the race transitions'
    // current rates (rate × busy servers), leaves at [race_base_, 2·race_base_), node k =
    // node 2k + node 2k+1, recomputed from its children so that the root never drifts.
    // race_at_ is the time of the race's next firing, drawn lazily after every firing.
    std::vector<double> race_tree_;
    std::vector<uint32_t> race_busy_;  // per transition: servers busy in the race
    std::vector<uint32_t> race_owner_;  // per leaf: its transition
    /// Per transition: for a race transition whose only arc is one input (no inhibitor, no
    /// other interest), that arc's index in arc_pool, which alone sets its busy servers; else
    /// kNone.
    std::vector<uint32_t> race_input_;
    uint32_t race_base_ = 1;
    bool has_race_ = false;  // any race transition at all (else the queue alone decides)
    double race_at_ = 0;
    bool race_drawn_ = false;
    void race_set(uint32_t t, uint32_t busy);
    /// Time of the next timed firing: the earlier of the queue's top and the race's next.
    double next_time();
    /// Fires the race's winner at race_at_.
    Status fire_race();

    // Immediates currently enabled (unordered set with positions).
    std::vector<uint32_t> imm_enabled_;
    std::vector<uint32_t> imm_pos_;

    // Watch lists: a place's change re-examines only the transitions watching it. An enabled
    // transition watches all its interests; a disabled one only the interest of one arc that
    // disables it (an input short of tokens or an inhibitor at its threshold): while that arc
    // keeps disabling it no other change can enable it, and a disabled transition's speed is
    // evaluated when it is enabled again. Intrusive doubly-linked lists over interest ids.
    struct WatchNode {
        uint32_t next, prev;  // kNone: end of list
        uint32_t owner;       // the interest's transition
        uint32_t linked;      // 1 while in its place's list
    };
    std::vector<uint32_t> watch_head_;            // per place: interests told of every change
    std::vector<uint32_t> thresh_head_;           // per place: told when it empties or fills
    std::vector<uint8_t> place_extra_;            // per place: in a share group or read by a
                                                  // tracked expression
    std::vector<WatchNode> watch_;                // per interest
    std::vector<uint32_t> watch_mode_;            // per transition: kWatchAll or a blocker interest
    static constexpr uint32_t kWatchAll = EventQueue::kNone - 1;
    static constexpr uint32_t kWatchNone = EventQueue::kNone;

    // Re-examination after a firing.
    std::vector<uint32_t> pending_;
    std::vector<uint32_t> stamp_;
    uint32_t epoch_ = 0;

    // Tracked expressions (index relative to first_tracked_expr).
    std::vector<double> expr_value_, expr_integral_, expr_last_;
    std::vector<uint8_t> expr_dirty_;
    std::vector<uint32_t> dirty_list_;
};

}  // namespace sgdnet::solver
