// One replication of the discrete-event simulation of a net: events, incremental enabling,
// immediates, fused chains.
#include "solver/sim/engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "solver/solve_result.hpp"

namespace sgdnet::solver {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void append_range(std::vector<CompiledNet::Range>& ranges, std::size_t begin, std::size_t end) {
    ranges.push_back({static_cast<uint32_t>(begin), static_cast<uint32_t>(end)});
}

/// The SpeedForm of a postfix speed program, if it is c / tokens(p) or
/// min(c1 / tokens(p1), c2 / tokens(p2)); terms == 0 otherwise.
CompiledNet::SpeedForm speed_form(const net::MarkingExpr& e) {
    using C = net::ExprOp::Code;
    const auto& k = e.code;
    auto share = [&](std::size_t i) {
        return k[i].code == C::Const && k[i + 1].code == C::Tokens && k[i + 2].code == C::Div;
    };
    CompiledNet::SpeedForm f;
    if (k.size() == 3 && share(0)) {
        f.terms = 1;
    } else if (k.size() == 7 && share(0) && share(3) && k[6].code == C::Min) {
        f.terms = 2;
        f.c2 = k[3].value;
        f.p2 = k[4].place;
    } else {
        return f;
    }
    f.c1 = k[0].value;
    f.p1 = k[1].place;
    return f;
}

constexpr uint32_t kNoInterest = std::numeric_limits<uint32_t>::max();

void add_places(CompiledNet& c, const net::PetriNet& net, uint64_t unbounded_tokens) {
    const uint64_t max_tokens = std::min<uint64_t>(unbounded_tokens, 0x7fffffffULL);
    for (const net::Place& p : net.places) {
        c.initial.push_back(p.initial);
        c.place_names.push_back(p.name);
        const bool bounded = p.bound && *p.bound < max_tokens;
        c.limit.push_back(bounded ? *p.bound : max_tokens);
        c.limit_is_bound.push_back(bounded ? CompiledNet::kLimitBound
                                           : CompiledNet::kLimitUnbounded);
    }
}

/// Builds the interests of transition t: the distinct places of its input and inhibitor arcs,
/// then of its speed, each once.
class InterestBuilder {
public:
    /// `place_interest[p]`: the last interest created for p (it belongs to t when its id is
    /// at least t's first interest).
    InterestBuilder(CompiledNet& c, std::vector<uint32_t>& place_interest,
                    const net::Transition& tr, uint32_t t)
        : c_(c), place_interest_(place_interest), tr_(tr), t_(t), first_(c.interest_pool.size()) {}

    void check_place(uint32_t p) const {
        if (p >= c_.num_places)
            throw SolveError(SolveError::Kind::Invalid,
                             "transition '" + tr_.name + "' refers to a missing place", {}, t_);
    }
    /// The interest of t in place p, created on first use.
    uint32_t of(uint32_t p) {
        check_place(p);
        const uint32_t seen = place_interest_[p];
        if (seen != kNoInterest && seen >= first_) return seen;
        const auto id = static_cast<uint32_t>(c_.interest_pool.size());
        c_.interest_pool.push_back(p);
        c_.interest_owner.push_back(t_);
        place_interest_[p] = id;
        return id;
    }
    /// Closes t's range of interests.
    void finish() { append_range(c_.interests, first_, c_.interest_pool.size()); }

private:
    CompiledNet& c_;
    std::vector<uint32_t>& place_interest_;
    const net::Transition& tr_;
    uint32_t t_;
    std::size_t first_;
};

/// Input and inhibitor arcs of a transition, then its marking change (non-zero deltas by place).
void add_arcs(CompiledNet& c, const net::Transition& tr, InterestBuilder& interests) {
    std::size_t b = c.arc_pool.size();
    for (const net::Arc& a : tr.inputs)
        c.arc_pool.push_back({a.place.value, std::max<uint32_t>(1, a.multiplicity),
                              interests.of(a.place.value)});
    append_range(c.inputs, b, c.arc_pool.size());
    b = c.arc_pool.size();
    for (const net::Arc& a : tr.inhibitors)
        c.arc_pool.push_back({a.place.value, std::max<uint32_t>(1, a.multiplicity),
                              interests.of(a.place.value)});
    append_range(c.inhibitors, b, c.arc_pool.size());
    std::map<uint32_t, int64_t> delta;
    for (const net::Arc& a : tr.inputs) delta[a.place.value] -= a.multiplicity;
    for (const net::Arc& a : tr.outputs) {
        interests.check_place(a.place.value);
        delta[a.place.value] += a.multiplicity;
    }
    b = c.delta_pool.size();
    for (auto [p, d] : delta)
        if (d != 0) c.delta_pool.push_back({p, static_cast<int32_t>(d)});
    append_range(c.deltas, b, c.delta_pool.size());
}

/// How transition t fires: kind, servers, priority, weight, memory, then its delay and speed
/// (timed) or checks its weight (immediate).
void add_firing_rule(CompiledNet& c, const net::Transition& tr, uint32_t t) {
    const bool imm = tr.kind == net::TransitionKind::Immediate;
    c.immediate.push_back(imm ? 1 : 0);
    c.servers.push_back(std::max<uint32_t>(1, tr.servers));
    c.priority.push_back(tr.priority);
    c.weight.push_back(tr.weight);
    c.age.push_back(!imm && (tr.memory == net::Memory::Age || tr.speed) ? 1 : 0);
    if (imm) {
        if (!(tr.weight > 0) || !std::isfinite(tr.weight))
            throw SolveError(SolveError::Kind::Invalid,
                             "immediate transition '" + tr.name + "' has a weight that is not > 0",
                             {}, t);
        c.dist.push_back(0);
        c.speed.push_back(-1);
        return;
    }
    if (tr.inputs.empty() && tr.servers == net::kInfiniteServers)
        throw SolveError(SolveError::Kind::Invalid,
                         "timed transition '" + tr.name +
                             "' has no input place and infinite servers: it would fire "
                             "infinitely often",
                         {}, t);
    try {
        c.dist.push_back(c.dists.add(tr.delay));
    } catch (const std::invalid_argument& e) {
        throw SolveError(SolveError::Kind::Invalid,
                         "transition '" + tr.name + "': " + e.what(), {}, t);
    }
    if (tr.speed && !tr.speed->code.empty()) {
        c.speed.push_back(static_cast<int32_t>(c.exprs.size()));
        c.exprs.push_back(*tr.speed);
        c.speed_forms.push_back(speed_form(*tr.speed));
    } else {
        c.speed.push_back(-1);
    }
}

void add_transitions(CompiledNet& c, const net::PetriNet& net) {
    std::vector<uint32_t> place_interest(c.num_places, kNoInterest);
    for (uint32_t t = 0; t < c.num_transitions; ++t) {
        const net::Transition& tr = net.transitions[t];
        c.transition_names.push_back(tr.name);
        InterestBuilder interests(c, place_interest, tr, t);
        add_arcs(c, tr, interests);
        if (tr.kind != net::TransitionKind::Immediate && tr.speed)
            for (uint32_t p : tr.speed->places()) interests.of(p);
        interests.finish();
        add_firing_rule(c, tr, t);
    }
}

/// The time-averaged expressions, after the speeds in `exprs`, and per place the ones that
/// read it.
void add_tracked(CompiledNet& c, const std::vector<net::MarkingExpr>& tracked) {
    c.first_tracked_expr = static_cast<uint32_t>(c.exprs.size());
    std::vector<std::vector<uint32_t>> place_exprs(c.num_places);
    for (uint32_t i = 0; i < tracked.size(); ++i) {
        c.exprs.push_back(tracked[i]);
        for (uint32_t p : tracked[i].places()) {
            if (p >= c.num_places)
                throw SolveError(SolveError::Kind::Invalid, "a measure refers to a missing place");
            place_exprs[p].push_back(i);
        }
    }
    for (uint32_t p = 0; p < c.num_places; ++p) {
        const std::size_t b = c.place_expr_pool.size();
        c.place_expr_pool.insert(c.place_expr_pool.end(), place_exprs[p].begin(),
                                 place_exprs[p].end());
        append_range(c.place_exprs, b, c.place_expr_pool.size());
    }
}

/// Per transition, the count columns its firings add to.
void add_count_columns(CompiledNet& c, const std::vector<CompiledNet::CountColumn>& columns) {
    std::vector<std::vector<CompiledNet::CountTerm>> terms(c.num_transitions);
    for (uint32_t col = 0; col < columns.size(); ++col)
        for (auto [t, coef] : columns[col]) {
            if (t >= c.num_transitions)
                throw SolveError(SolveError::Kind::Invalid,
                                 "a measure refers to a missing transition");
            terms[t].push_back({col, coef});
        }
    for (uint32_t t = 0; t < c.num_transitions; ++t) {
        const std::size_t b = c.count_pool.size();
        c.count_pool.insert(c.count_pool.end(), terms[t].begin(), terms[t].end());
        append_range(c.count_terms, b, c.count_pool.size());
    }
    c.num_count_columns = static_cast<uint32_t>(columns.size());
}

}  // namespace

CompiledNet CompiledNet::build(const net::PetriNet& net, const std::vector<net::MarkingExpr>& tracked,
                               const std::vector<uint32_t>& counted,
                               uint64_t unbounded_tokens) {
    std::vector<CountColumn> columns;
    for (uint32_t t : counted) columns.push_back({{t, 1.0}});
    return build_columns(net, tracked, columns, unbounded_tokens);
}

CompiledNet CompiledNet::build_columns(const net::PetriNet& net,
                                       const std::vector<net::MarkingExpr>& tracked,
                                       const std::vector<CountColumn>& columns,
                                       uint64_t unbounded_tokens, Fusion fusion) {
    CompiledNet c;
    c.num_places = static_cast<uint32_t>(net.places.size());
    c.num_transitions = static_cast<uint32_t>(net.transitions.size());
    add_places(c, net, unbounded_tokens);
    add_transitions(c, net);
    c.find_share_groups();
    add_tracked(c, tracked);
    add_count_columns(c, columns);
    c.firings.assign(c.num_transitions, 1);
    if (fusion == Fusion::On) c.fuse_chains(net);
    c.find_race();
    return c;
}

void CompiledNet::find_race() {
    race_rate.assign(num_transitions, 0.0);
    race_slot.assign(num_transitions, 0);
    race_leaves = 0;
    for (uint32_t t = 0; t < num_transitions; ++t) {
        if (immediate[t] || speed[t] >= 0 || shared[t] || firings[t] != 1) continue;
        const double r = dists.exp_rate(dist[t]);
        if (r > 0) {
            race_rate[t] = r;
            race_slot[t] = race_leaves++;
        }
    }
}

void CompiledNet::find_share_groups() {
    shared.assign(num_transitions, 0);
    share_terms.assign(num_transitions, {});
    share_group.assign(num_places, -1);
    auto input_of_weight_1 = [&](uint32_t t, uint32_t p) {
        bool found = false;
        for (uint32_t i = inputs[t].begin; i < inputs[t].end; ++i)
            if (arc_pool[i].place == p) {
                if (arc_pool[i].mult != 1) return false;
                found = true;
            }
        return found;
    };
    auto good_constant = [](double c) { return c > 0 && std::isfinite(c); };
    for (uint32_t t = 0; t < num_transitions; ++t) {
        if (immediate[t] || speed[t] < 0 || servers[t] != 1) continue;
        const SpeedForm& f = speed_forms[static_cast<uint32_t>(speed[t])];
        if (f.terms == 0 || !good_constant(f.c1) || !input_of_weight_1(t, f.p1)) continue;
        if (f.terms == 2 &&
            (f.p2 == f.p1 || !good_constant(f.c2) || !input_of_weight_1(t, f.p2)))
            continue;
        shared[t] = 1;
        ShareTerms& st = share_terms[t];
        st.terms = f.terms;
        for (uint32_t k = 0; k < f.terms; ++k) {
            const uint32_t p = k == 0 ? f.p1 : f.p2;
            if (share_group[p] < 0) {
                share_group[p] = static_cast<int32_t>(group_place.size());
                group_place.push_back(p);
            }
            st.group[k] = static_cast<uint32_t>(share_group[p]);
            st.c[k] = k == 0 ? f.c1 : f.c2;
        }
    }
    // Threshold interests: a single-server or immediate transition is enabled or not, and an
    // arc of weight 1 only asks whether its place is empty.
    interest_threshold.assign(interest_pool.size(), 0);
    for (uint32_t t = 0; t < num_transitions; ++t) {
        if (!immediate[t] && servers[t] != 1) continue;
        std::vector<uint32_t> speed_places;
        if (speed[t] >= 0 && !shared[t])
            speed_places = exprs[static_cast<uint32_t>(speed[t])].places();
        for (uint32_t id = interests[t].begin; id < interests[t].end; ++id) {
            const uint32_t p = interest_pool[id];
            bool ok = std::find(speed_places.begin(), speed_places.end(), p) == speed_places.end();
            for (Range r : {inputs[t], inhibitors[t]})
                for (uint32_t i = r.begin; i < r.end; ++i)
                    if (arc_pool[i].place == p && arc_pool[i].mult != 1) ok = false;
            interest_threshold[id] = ok ? 1 : 0;
        }
    }
}

void CompiledNet::fuse_chains(const net::PetriNet& net) {
    constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
    // Per place: its arcs, and whether anything but one producer and one consumer sees it.
    std::vector<uint32_t> producers(num_places, 0), consumers(num_places, 0);
    std::vector<uint32_t> producer(num_places, kNone), consumer(num_places, kNone);
    std::vector<uint8_t> seen(num_places, 0);
    for (uint32_t t = 0; t < num_transitions; ++t) {
        const net::Transition& tr = net.transitions[t];
        for (const net::Arc& a : tr.outputs) {
            ++producers[a.place.value];
            producer[a.place.value] = t;
            if (a.multiplicity != 1) seen[a.place.value] = 1;
        }
        for (const net::Arc& a : tr.inputs) {
            ++consumers[a.place.value];
            consumer[a.place.value] = t;
            if (a.multiplicity != 1) seen[a.place.value] = 1;
        }
        for (const net::Arc& a : tr.inhibitors) seen[a.place.value] = 1;
    }
    for (const net::MarkingExpr& e : exprs)  // speeds and measures
        for (uint32_t p : e.places()) seen[p] = 1;
    // An explicit bound is checked on the marking, which a fused chain does not reproduce.
    for (uint32_t p = 0; p < num_places; ++p)
        if (net.places[p].bound) seen[p] = 1;
    auto is_private = [&](uint32_t p) {
        return producers[p] == 1 && consumers[p] == 1 && !seen[p] && producer[p] != consumer[p];
    };
    // A transition that can follow in a chain: unslowed, its only input private. Immediate
    // members (zero-delay steps) add nothing to the sum; a chain starts at a timed one.
    auto member = [&](uint32_t t) {
        const net::Transition& tr = net.transitions[t];
        return speed[t] < 0 && tr.inputs.size() == 1 && tr.inhibitors.empty() &&
               is_private(tr.inputs[0].place.value);
    };
    // The member that follows t: t's only output is a private, initially empty place.
    auto next = [&](uint32_t t) {
        const net::Transition& tr = net.transitions[t];
        if (tr.outputs.size() != 1) return kNone;
        const uint32_t p = tr.outputs[0].place.value;
        if (!is_private(p) || initial[p] != 0 || !member(consumer[p])) return kNone;
        return consumer[p];
    };
    std::vector<uint8_t> used(num_transitions, 0);
    // Chains start at the lowest id; a chain entered in its middle is still exact, only shorter.
    for (uint32_t head = 0; head < num_transitions; ++head) {
        if (used[head] || immediate[head] || !member(head)) continue;
        const uint32_t entry = net.transitions[head].inputs[0].place.value;
        if (initial[entry] > 1) continue;
        std::vector<uint32_t> chain{head};
        used[head] = 1;
        for (uint32_t u = next(head); u != kNone && !used[u]; u = next(u)) {
            chain.push_back(u);
            used[u] = 1;
        }
        // An immediate at the end would show its outputs at the instant of the last timed
        // member's firing, before immediates of higher priority enabled then: keep it apart.
        while (immediate[chain.back()]) {
            used[chain.back()] = 0;
            chain.pop_back();
        }
        if (chain.size() < 2) continue;
        const uint32_t last = chain.back();
        const uint32_t last_in = net.transitions[last].inputs[0].place.value;
        // The head now consumes the entry token and produces what the last member produces.
        std::map<uint32_t, int64_t> delta{{entry, -1}};
        for (uint32_t i = deltas[last].begin; i < deltas[last].end; ++i)
            if (delta_pool[i].place != last_in) delta[delta_pool[i].place] += delta_pool[i].delta;
        const std::size_t db = delta_pool.size();
        for (auto [p, d] : delta)
            if (d != 0) delta_pool.push_back({p, static_cast<int32_t>(d)});
        deltas[head] = {static_cast<uint32_t>(db), static_cast<uint32_t>(delta_pool.size())};
        std::map<uint32_t, double> count;
        std::vector<uint32_t> roots;
        for (uint32_t u : chain) {
            if (!immediate[u]) roots.push_back(dist[u]);  // an immediate adds no delay
            for (uint32_t i = count_terms[u].begin; i < count_terms[u].end; ++i)
                count[count_pool[i].column] += count_pool[i].coef;
        }
        const std::size_t cb = count_pool.size();
        for (auto [col, coef] : count) count_pool.push_back({col, coef});
        count_terms[head] = {static_cast<uint32_t>(cb), static_cast<uint32_t>(count_pool.size())};
        dist[head] = dists.add_sum(roots);
        firings[head] = static_cast<uint32_t>(chain.size());
        if (limit[entry] > 1) {
            limit[entry] = 1;
            limit_is_bound[entry] = kLimitChain;
        }
        ++fused_chains;
        fused_transitions += static_cast<uint32_t>(chain.size());
    }
}

SimEngine::SimEngine(const CompiledNet& net, uint64_t seed, uint64_t stream)
    : net_(net), rng_(seed, stream) {
    marking_ = net.initial;
    counts_.assign(net.num_count_columns, 0.0);
    count_times_.assign(net.num_count_columns, 0.0);
    clocks_.resize(net.num_transitions);
    suspended_.resize(net.num_transitions);
    cur_speed_.assign(net.num_transitions, 1.0);
    imm_pos_.assign(net.num_transitions, EventQueue::kNone);
    watch_head_.assign(net.num_places, EventQueue::kNone);
    thresh_head_.assign(net.num_places, EventQueue::kNone);
    place_extra_.assign(net.num_places, 0);
    for (uint32_t p = 0; p < net.num_places; ++p)
        place_extra_[p] =
            net.share_group[p] >= 0 || net.place_exprs[p].end > net.place_exprs[p].begin;
    watch_.resize(net.interest_pool.size());
    for (std::size_t i = 0; i < watch_.size(); ++i)
        watch_[i] = {EventQueue::kNone, EventQueue::kNone, net.interest_owner[i], 0};
    watch_mode_.assign(net.num_transitions, kWatchNone);
    stamp_.assign(net.num_transitions, 0);
    pending_.reserve(net.num_transitions);
    const uint32_t n_expr = net.num_tracked();
    expr_value_.resize(n_expr);
    expr_integral_.assign(n_expr, 0);
    expr_last_.assign(n_expr, 0);
    expr_dirty_.assign(n_expr, 0);
    dirty_list_.reserve(n_expr);
    for (uint32_t i = 0; i < n_expr; ++i)
        expr_value_[i] = net.exprs[net.first_tracked_expr + i].evaluate(marking_.data());
    has_race_ = net.race_leaves > 0;
    while (race_base_ < net.race_leaves) race_base_ *= 2;
    race_tree_.assign(2 * static_cast<std::size_t>(race_base_), 0.0);
    race_busy_.assign(net.num_transitions, 0);
    race_owner_.assign(race_base_, 0);
    race_input_.assign(net.num_transitions, EventQueue::kNone);
    for (uint32_t t = 0; t < net.num_transitions; ++t) {
        if (!(net.race_rate[t] > 0)) continue;
        race_owner_[net.race_slot[t]] = t;
        const CompiledNet::Range in = net.inputs[t], ir = net.interests[t];
        if (in.end - in.begin == 1 && net.inhibitors[t].begin == net.inhibitors[t].end &&
            ir.end - ir.begin == 1)
            race_input_[t] = in.begin;
    }
    groups_.resize(net.group_place.size());
    for (uint32_t g = 0; g < groups_.size(); ++g) {
        const uint32_t slot = new_slot();
        slot_owner_[slot] = kGroupSlot;
        slot_index_[slot] = g;
        groups_[g].qid = slot;
        groups_[g].n = net.initial[net.group_place[g]];
    }
    for (uint32_t t = 0; t < net.num_transitions; ++t) {
        const CompiledNet::ShareTerms& st = net.share_terms[t];
        for (uint32_t k = 0; k < st.terms; ++k)
            groups_[st.group[k]].max_c = std::max(groups_[st.group[k]].max_c, st.c[k]);
    }
    for (uint32_t t = 0; t < net.num_transitions; ++t) {
        const CompiledNet::Range ir = net.interests[t];
        if (ir.end - ir.begin == 1) watch(ir.begin);
        update(t);
    }
}

inline uint32_t SimEngine::degree(uint32_t t, uint32_t& blocker) const {
    const CompiledNet::Range inh = net_.inhibitors[t];
    for (uint32_t i = inh.begin; i < inh.end; ++i) {
        const CompiledNet::ArcRef a = net_.arc_pool[i];
        if (marking_[a.place] >= a.mult) {
            blocker = a.interest;
            return 0;
        }
    }
    uint32_t d = std::numeric_limits<uint32_t>::max();
    const CompiledNet::Range in = net_.inputs[t];
    for (uint32_t i = in.begin; i < in.end; ++i) {
        const CompiledNet::ArcRef a = net_.arc_pool[i];
        uint32_t m = marking_[a.place];
        // A branch, not a select: the division is rare and would otherwise run on every arc.
        if (a.mult != 1) [[unlikely]]
            m /= a.mult;
        d = std::min(d, m);
        if (d == 0) {
            blocker = a.interest;
            return 0;
        }
    }
    return d;
}

void SimEngine::watch(uint32_t id) {
    WatchNode& n = watch_[id];
    if (n.linked) return;
    n.linked = 1;
    const uint32_t p = net_.interest_pool[id];
    uint32_t& head = net_.interest_threshold[id] ? thresh_head_[p] : watch_head_[p];
    n.prev = EventQueue::kNone;
    n.next = head;
    if (head != EventQueue::kNone) watch_[head].prev = id;
    head = id;
}

void SimEngine::unwatch(uint32_t id) {
    WatchNode& n = watch_[id];
    if (!n.linked) return;
    n.linked = 0;
    if (n.prev != EventQueue::kNone) watch_[n.prev].next = n.next;
    else if (net_.interest_threshold[id]) thresh_head_[net_.interest_pool[id]] = n.next;
    else watch_head_[net_.interest_pool[id]] = n.next;
    if (n.next != EventQueue::kNone) watch_[n.next].prev = n.prev;
}

void SimEngine::set_watch_mode(uint32_t t, uint32_t mode) {
    const uint32_t old = watch_mode_[t];
    if (old == mode) return;
    watch_mode_[t] = mode;
    const CompiledNet::Range r = net_.interests[t];
    if (mode == kWatchAll) {
        for (uint32_t id = r.begin; id < r.end; ++id) watch(id);
        return;
    }
    if (old == kWatchAll) {
        for (uint32_t id = r.begin; id < r.end; ++id)
            if (id != mode) unwatch(id);
    } else if (old != kWatchNone) {
        unwatch(old);
    }
    watch(mode);
}

double SimEngine::speed_value(uint32_t expr) const {
    const CompiledNet::SpeedForm& f = net_.speed_forms[expr];
    if (f.terms == 0) return net_.exprs[expr].evaluate(marking_.data());
    const double a = f.c1 / static_cast<double>(marking_[f.p1]);
    if (f.terms == 1) return a;
    return std::min(a, f.c2 / static_cast<double>(marking_[f.p2]));
}

double SimEngine::remaining_work(uint32_t slot) const {
    const uint32_t t = slot_owner_[slot];
    if (net_.shared[t]) {
        const CompiledNet::ShareTerms& st = net_.share_terms[t];
        const uint32_t b = bound_term_[slot];
        const ShareGroup& g = groups_[st.group[b]];
        const double v = now_ > g.at && g.n > 0 ? g.v + (now_ - g.at) / g.n : g.v;
        return std::max(0.0, (g.jobs.time(job_pos_, slot) - v) * st.c[b]);
    }
    if (net_.speed[t] < 0) return std::max(0.0, queue_.time(slot) - now_);
    const double sp = cur_speed_[t];
    if (now_ == slot_ref_[slot] || sp == 0) return slot_work_[slot];
    if (sp == kInf) return 0;
    return std::max(0.0, slot_work_[slot] - (now_ - slot_ref_[slot]) * sp);
}

uint32_t SimEngine::new_slot() {
    if (!free_slots_.empty()) {
        const uint32_t slot = free_slots_.back();
        free_slots_.pop_back();
        return slot;
    }
    const auto slot = static_cast<uint32_t>(slot_owner_.size());
    slot_owner_.push_back(0);
    slot_index_.push_back(0);
    slot_work_.push_back(0);
    slot_ref_.push_back(0);
    job_pos_.push_back(EventQueue::kNone);
    other_pos_.push_back(EventQueue::kNone);
    bound_term_.push_back(0);
    queue_.reserve(slot + 1);
    return slot;
}

void SimEngine::add_clock(uint32_t t) {
    // A shared clock lives in its group's heap, not in the queue: the spare is not for it.
    const bool reuse = spare_slot_ != EventQueue::kNone && !net_.shared[t];
    uint32_t slot;
    if (reuse) {
        slot = spare_slot_;
        spare_slot_ = EventQueue::kNone;
    } else {
        slot = new_slot();
    }
    auto& cl = clocks_[t];
    slot_owner_[slot] = t;
    slot_index_[slot] = static_cast<uint32_t>(cl.size());
    cl.push_back(slot);
    double work;
    auto& susp = suspended_[t];
    if (!susp.empty()) {
        work = susp.back();
        susp.pop_back();
    } else {
        work = net_.dists.sample(net_.dist[t], rng_);
    }
    if (net_.shared[t]) {
        place_job(slot, t, binding(t), work);
        return;
    }
    double when;
    if (net_.speed[t] < 0) {
        when = now_ + work;
    } else {
        slot_work_[slot] = work;
        slot_ref_[slot] = now_;
        const double sp = cur_speed_[t];
        when = sp == 0 ? kInf : (sp == kInf ? now_ : now_ + work / sp);
    }
    if (reuse) queue_.update(slot, when);
    else queue_.push(slot, when);
}

void SimEngine::detach_clock(uint32_t t, uint32_t slot) {
    auto& cl = clocks_[t];
    const uint32_t i = slot_index_[slot];
    const uint32_t last = cl.back();
    cl[i] = last;
    slot_index_[last] = i;
    cl.pop_back();
}

void SimEngine::remove_clock_slot(uint32_t t, uint32_t slot) {
    detach_clock(t, slot);
    if (!net_.shared[t]) queue_.erase(slot);  // a shared clock has left its group already
    free_slots_.push_back(slot);
}

void SimEngine::drop_clock(uint32_t t) {
    const uint32_t slot = clocks_[t].back();
    if (net_.shared[t]) suspended_[t].push_back(unplace_job(slot, t));  // speed implies age
    else if (net_.age[t]) suspended_[t].push_back(remaining_work(slot));
    remove_clock_slot(t, slot);
}

void SimEngine::set_immediate_enabled(uint32_t t, bool on) {
    const bool was = imm_pos_[t] != EventQueue::kNone;
    if (on == was) return;
    if (on) {
        imm_pos_[t] = static_cast<uint32_t>(imm_enabled_.size());
        imm_enabled_.push_back(t);
    } else {
        const uint32_t i = imm_pos_[t];
        const uint32_t last = imm_enabled_.back();
        imm_enabled_[i] = last;
        imm_pos_[last] = i;
        imm_enabled_.pop_back();
        imm_pos_[t] = EventQueue::kNone;
    }
}

void SimEngine::update(uint32_t t) {
    if (const uint32_t arc = race_input_[t]; arc != EventQueue::kNone) {
        // A race transition with one input arc and nothing else: its busy servers are
        // min(servers, degree), without the general enabling and watch-mode logic.
        const CompiledNet::ArcRef a = net_.arc_pool[arc];
        uint32_t m = marking_[a.place];
        if (a.mult != 1) [[unlikely]]
            m /= a.mult;
        race_set(t, std::min(net_.servers[t], m));
        return;
    }
    uint32_t blocker = EventQueue::kNone;
    const uint32_t deg = degree(t, blocker);
    // With one interest, "all" and "the blocker" are the same list: it never changes.
    const CompiledNet::Range ir = net_.interests[t];
    if (ir.end - ir.begin > 1) {
        const uint32_t mode = deg > 0 ? kWatchAll : blocker;
        if (mode != watch_mode_[t]) set_watch_mode(t, mode);
    }
    if (net_.immediate[t]) {
        set_immediate_enabled(t, deg > 0);
        return;
    }
    const uint32_t target = std::min(net_.servers[t], deg);
    if (has_race_ && net_.race_rate[t] > 0) {
        race_set(t, target);
        return;
    }
    auto& cl = clocks_[t];
    const int32_t sx = net_.speed[t];
    // A speed matters only to running clocks and to the clocks about to start.
    if (sx >= 0 && !net_.shared[t] && (target > 0 || !cl.empty())) {
        const double sp = speed_value(static_cast<uint32_t>(sx));
        if (!(sp >= 0)) {  // negative or NaN
            if (status_ == Status::Ok) {
                status_ = Status::BadSpeed;
                error_element_ = t;
            }
        } else if (sp != cur_speed_[t]) {
            // Bring every running clock's remaining work up to now at the old speed, then
            // reschedule at the new one (docs/language.md §6: exact for any distribution).
            for (uint32_t slot : cl) {
                slot_work_[slot] = remaining_work(slot);
                slot_ref_[slot] = now_;
                const double w = slot_work_[slot];
                queue_.update(slot, sp == 0 ? kInf : (sp == kInf ? now_ : now_ + w / sp));
            }
            cur_speed_[t] = sp;
        }
    }
    while (cl.size() > target) drop_clock(t);
    while (cl.size() < target) add_clock(t);
}

void SimEngine::race_set(uint32_t t, uint32_t busy) {
    if (race_busy_[t] == busy) return;
    race_busy_[t] = busy;
    uint32_t k = race_base_ + net_.race_slot[t];
    double v = net_.race_rate[t] * busy;
    race_tree_[k] = v;
    // Up the path, carrying the node's new value in a register: a node is still the sum of its
    // two children (IEEE addition commutes), but no level waits for the store of the one below.
    for (; k > 1; k >>= 1) {
        v += race_tree_[k ^ 1];
        race_tree_[k >> 1] = v;
    }
}

[[gnu::always_inline]] inline double SimEngine::next_time() {
    if (!has_race_) return queue_.top_time();
    if (!race_drawn_) {
        const double total = race_tree_[1];
        race_at_ = total > 0 ? now_ + rng_.exponential() / total : kInf;
        race_drawn_ = true;
    }
    return std::min(queue_.top_time(), race_at_);
}

SimEngine::Status SimEngine::fire_race() {
    now_ = race_at_;
    // The winner, in proportion to its rate: descend the tree by a uniform share of the total
    // (a child of weight 0 is never taken).
    double u = rng_.uniform() * race_tree_[1];
    uint32_t k = 1;
    while (k < race_base_) {
        const double left = race_tree_[2 * k];
        if (u < left || !(race_tree_[2 * k + 1] > 0)) {
            k = 2 * k;
        } else {
            u -= left;
            k = 2 * k + 1;
        }
    }
    return fire(race_owner_[k - race_base_]);
}

SimEngine::Status SimEngine::fire(uint32_t t) {
    race_drawn_ = false;  // the rates may change: the race is drawn again (memoryless)
    events_ += net_.firings[t];
    const CompiledNet::Range ct = net_.count_terms[t];
    for (uint32_t i = ct.begin; i < ct.end; ++i) {
        const CompiledNet::CountTerm& k = net_.count_pool[i];
        counts_[k.column] += k.coef;
        count_times_[k.column] += k.coef * now_;
    }
    if (++epoch_ == 0) {
        std::fill(stamp_.begin(), stamp_.end(), 0);
        epoch_ = 1;
    }
    pending_.clear();
    // A clocked transition is re-examined after its firing (its clock is done). A race
    // transition has no clock: what it does depends on the marking alone, so it is re-examined
    // only when a place it watches tells it, as any other transition.
    if (!(has_race_ && net_.race_rate[t] > 0)) {
        stamp_[t] = epoch_;
        pending_.push_back(t);
    }
    Status st = Status::Ok;
    const CompiledNet::Range dr = net_.deltas[t];
    for (uint32_t i = dr.begin; i < dr.end; ++i) {
        const CompiledNet::Delta d = net_.delta_pool[i];
        const uint32_t old = marking_[d.place];
        const uint32_t m = static_cast<uint32_t>(static_cast<int64_t>(old) + d.delta);
        marking_[d.place] = m;
        if (d.delta > 0 && m > net_.limit[d.place] && st == Status::Ok) {
            const uint8_t why = net_.limit_is_bound[d.place];
            st = why == CompiledNet::kLimitBound   ? Status::BoundExceeded
                 : why == CompiledNet::kLimitChain ? Status::ChainOverlap
                                                   : Status::Unbounded;
            error_element_ = d.place;
        }
        auto notify = [&](uint32_t head) {
            for (uint32_t id = head; id != EventQueue::kNone; id = watch_[id].next) {
                const uint32_t u = watch_[id].owner;
                if (stamp_[u] != epoch_) {
                    stamp_[u] = epoch_;
                    pending_.push_back(u);
                }
            }
        };
        notify(watch_head_[d.place]);
        if ((old == 0) != (m == 0)) notify(thresh_head_[d.place]);
        if (!place_extra_[d.place]) continue;
        if (const int32_t g = net_.share_group[d.place]; g >= 0)
            shift_group(static_cast<uint32_t>(g), m);
        const CompiledNet::Range er = net_.place_exprs[d.place];
        for (uint32_t j = er.begin; j < er.end; ++j) {
            const uint32_t e = net_.place_expr_pool[j];
            if (!expr_dirty_[e]) {
                expr_dirty_[e] = 1;
                dirty_list_.push_back(e);
            }
        }
    }
    if (st != Status::Ok) return st;
    for (uint32_t u : pending_) update(u);
    return status_;
}

SimEngine::Status SimEngine::resolve_immediates() {
    uint64_t count = 0;
    while (!imm_enabled_.empty()) {
        uint32_t t = imm_enabled_[0];
        if (imm_enabled_.size() > 1) {
            int best = std::numeric_limits<int>::min();
            double total = 0;
            uint32_t n_best = 0;
            for (uint32_t u : imm_enabled_) {
                const int p = net_.priority[u];
                if (p > best) {
                    best = p;
                    total = 0;
                    n_best = 0;
                    t = u;
                }
                if (p == best) {
                    total += net_.weight[u];
                    ++n_best;
                }
            }
            if (n_best > 1) {
                // Ties at the highest priority: probability proportional to weight.
                double x = rng_.uniform() * total;
                for (uint32_t u : imm_enabled_) {
                    if (net_.priority[u] != best) continue;
                    t = u;
                    x -= net_.weight[u];
                    if (x < 0) break;
                }
            }
        }
        if (++count > kMaxImmediateFirings) {
            error_element_ = t;
            return Status::TimelessTrap;
        }
        const Status st = fire(t);
        if (st != Status::Ok) return st;
    }
    return Status::Ok;
}

void SimEngine::flush_exprs() {
    for (uint32_t e : dirty_list_) {
        expr_integral_[e] += expr_value_[e] * (now_ - expr_last_[e]);
        expr_last_[e] = now_;
        expr_value_[e] = net_.exprs[net_.first_tracked_expr + e].evaluate(marking_.data());
        expr_dirty_[e] = 0;
    }
    dirty_list_.clear();
}

SimEngine::Status SimEngine::fire_top() {
    if (has_race_ && next_time() < queue_.top_time()) return fire_race();
    const uint32_t slot = queue_.top();
    now_ = queue_.time(slot);
    if (slot_owner_[slot] == kGroupSlot) {
        // A share group's next completion: its clock leaves the group, then fires.
        const uint32_t job = groups_[slot_index_[slot]].jobs.top();
        const uint32_t t = slot_owner_[job];
        unplace_job(job, t);
        remove_clock_slot(t, job);
        return fire(t);
    }
    const uint32_t t = slot_owner_[slot];
    // Detach the clock from its transition but keep the slot queued as the spare.
    detach_clock(t, slot);
    spare_slot_ = slot;
    const Status st = fire(t);
    if (spare_slot_ != EventQueue::kNone) {
        queue_.erase(spare_slot_);
        free_slots_.push_back(spare_slot_);
        spare_slot_ = EventQueue::kNone;
    }
    return st;
}

// Inlined into the event loops: between two timed firings there is usually no immediate to
// resolve and no tracked expression to bring up to date, and then settling is two tests.
[[gnu::always_inline]] inline SimEngine::Status SimEngine::settle_inline() {
    if (status_ != Status::Ok) [[unlikely]]
        return status_;
    if (!imm_enabled_.empty()) {
        const Status st = resolve_immediates();
        if (st != Status::Ok) return st;
    }
    if (!dirty_list_.empty()) flush_exprs();
    if (next_time() == kInf) [[unlikely]]
        return Status::Deadlock;
    return Status::Ok;
}

SimEngine::Status SimEngine::settle() { return settle_inline(); }

SimEngine::Status SimEngine::run_until(double t_end, Clock::time_point deadline) {
    const bool check = deadline != Clock::time_point::max();
    uint32_t since_check = 0;
    for (;;) {
        const Status st = settle_inline();
        if (st != Status::Ok) return st;
        const double tn = next_time();
        if (tn > t_end) {
            now_ = t_end;
            return Status::Ok;
        }
        const Status fs = fire_top();
        if (fs != Status::Ok) return fs;
        if (check && ++since_check >= 65536) {
            since_check = 0;
            if (Clock::now() > deadline) return Status::Aborted;
        }
    }
}

SimEngine::Status SimEngine::run_events(uint64_t n) {
    for (uint64_t k = 0; k < n; ++k) {
        const Status st = settle_inline();
        if (st != Status::Ok) return st;
        const Status fs = fire_top();
        if (fs != Status::Ok) return fs;
    }
    return settle();
}

void SimEngine::count_integrals(double* out) const {
    for (std::size_t c = 0; c < counts_.size(); ++c) out[c] = now_ * counts_[c] - count_times_[c];
}

void SimEngine::snapshot(double* out) const {
    for (double c : counts_) *out++ = c;
    for (uint32_t e = 0; e < expr_value_.size(); ++e)
        *out++ = expr_integral_[e] + expr_value_[e] * (now_ - expr_last_[e]);
}

uint32_t SimEngine::binding(uint32_t t) const {
    const CompiledNet::ShareTerms& st = net_.share_terms[t];
    if (st.terms == 1) return 0;
    // c1 / n1 < c0 / n0, with an empty place's share infinite.
    return st.c[1] * groups_[st.group[0]].n < st.c[0] * groups_[st.group[1]].n ? 1 : 0;
}

namespace {
void bring(double now, double& v, double& at, double n) {
    if (now > at) {
        if (n > 0) v += (now - at) / n;
        at = now;
    }
}
}  // namespace

void SimEngine::place_job(uint32_t slot, uint32_t t, uint32_t bound, double work) {
    const CompiledNet::ShareTerms& st = net_.share_terms[t];
    const uint32_t gi = st.group[bound];
    ShareGroup& g = groups_[gi];
    bring(now_, g.v, g.at, g.n);
    g.jobs.push(job_pos_, slot, g.v + work / st.c[bound]);
    bound_term_[slot] = static_cast<uint8_t>(bound);
    if (st.terms == 2) {
        ShareGroup& o = groups_[st.group[1 - bound]];
        other_pos_[slot] = static_cast<uint32_t>(o.others.size());
        o.others.push_back(slot);
        g.min_other = std::min(g.min_other, st.c[1 - bound] / o.n);
    }
    schedule_group(gi);
}

double SimEngine::unplace_job(uint32_t slot, uint32_t t) {
    const CompiledNet::ShareTerms& st = net_.share_terms[t];
    const uint32_t bound = bound_term_[slot];
    const uint32_t gi = st.group[bound];
    ShareGroup& g = groups_[gi];
    bring(now_, g.v, g.at, g.n);
    const double work = std::max(0.0, (g.jobs.time(job_pos_, slot) - g.v) * st.c[bound]);
    g.jobs.erase(job_pos_, slot);
    if (st.terms == 2) {
        auto& others = groups_[st.group[1 - bound]].others;
        const uint32_t i = other_pos_[slot];
        const uint32_t last = others.back();
        others[i] = last;
        other_pos_[last] = i;
        others.pop_back();
    }
    schedule_group(gi);
    return work;
}

void SimEngine::schedule_group(uint32_t gi) {
    ShareGroup& g = groups_[gi];
    if (g.jobs.empty()) {
        if (queue_.contains(g.qid)) queue_.erase(g.qid);
        return;
    }
    const double when = std::max(now_, g.at + (g.jobs.top_time() - g.v) * g.n);
    if (queue_.contains(g.qid)) queue_.update(g.qid, when);
    else queue_.push(g.qid, when);
}

void SimEngine::shift_group(uint32_t gi, uint32_t tokens) {
    ShareGroup& g = groups_[gi];
    bring(now_, g.v, g.at, g.n);
    const double old = g.n;
    const double n = tokens;
    g.n = n;
    flips_.clear();
    if (n < old && g.max_c / n > g.min_other) {
        // This share grew: a clock bound here moves to its other term if that is now smaller.
        // The scan also recomputes the bound of the other shares of the clocks that stay.
        double least = std::numeric_limits<double>::infinity();
        for (const IndexedHeap::Entry& e : g.jobs.entries()) {
            const CompiledNet::ShareTerms& st = net_.share_terms[slot_owner_[e.id]];
            if (st.terms != 2) continue;
            const uint32_t b = bound_term_[e.id];
            const double no = groups_[st.group[1 - b]].n;
            if (st.c[1 - b] * n < st.c[b] * no) flips_.push_back(e.id);
            else least = std::min(least, st.c[1 - b] / no);
        }
        g.min_other = least;
    } else if (n > old) {
        // This share shrank: a clock bound elsewhere moves here if this is now smaller; one
        // that stays has this smaller share as its other term.
        for (uint32_t slot : g.others) {
            const CompiledNet::ShareTerms& st = net_.share_terms[slot_owner_[slot]];
            const uint32_t b = bound_term_[slot];
            ShareGroup& there = groups_[st.group[b]];
            if (st.c[1 - b] * there.n < st.c[b] * n) flips_.push_back(slot);
            else there.min_other = std::min(there.min_other, st.c[1 - b] / n);
        }
    }
    for (uint32_t slot : flips_) {
        const uint32_t t = slot_owner_[slot];
        place_job(slot, t, 1 - bound_term_[slot], unplace_job(slot, t));
    }
    schedule_group(gi);
}

void SimEngine::state_signature(std::vector<double>& out) const {
    out.clear();
    for (uint32_t m : marking_) out.push_back(m);
    for (uint32_t t = 0; t < net_.num_transitions; ++t) {
        if (clocks_[t].empty() && suspended_[t].empty()) continue;
        out.push_back(-1.0 - t);
        for (uint32_t slot : clocks_[t]) out.push_back(remaining_work(slot));
        out.push_back(-1);
        for (double w : suspended_[t]) out.push_back(w);
    }
}

uint64_t SimEngine::marking_hash() const {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (uint32_t m : marking_) {
        h ^= m;
        h *= 0x100000001b3ULL;
    }
    return h;
}

}  // namespace sgdnet::solver
