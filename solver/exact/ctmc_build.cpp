// Reachability graph of a net → tangible CTMC, vanishing markings eliminated on the fly.
#include "solver/exact/ctmc_build.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

#include "solver/exact/phase_type.hpp"
#include "solver/solve_result.hpp"

namespace sgdnet::solver {
namespace {

constexpr uint32_t kEmpty = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kInfiniteDegree = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kMaxDenseVanishing = 4000;

/// Markings of fixed width packed in one arena, with an open-addressing hash index of state
/// numbers (no per-marking heap objects).
class MarkingTable {
public:
    explicit MarkingTable(uint32_t width) : width_(width) { reset_slots(1024); }

    uint64_t size() const { return count_; }
    const uint32_t* get(uint64_t i) const { return arena_.data() + i * width_; }
    std::vector<uint32_t>& arena() { return arena_; }

    /// Index of `m` if present, else kEmpty.
    uint32_t find(const uint32_t* m) const {
        for (uint64_t pos = hash(m) & mask_;; pos = (pos + 1) & mask_) {
            const uint32_t idx = slots_[pos];
            if (idx == kEmpty) return kEmpty;
            if (std::memcmp(get(idx), m, width_ * sizeof(uint32_t)) == 0) return idx;
        }
    }

    /// Inserts `m` (which must not point into this table) and returns {index, inserted}.
    std::pair<uint32_t, bool> insert(const uint32_t* m) {
        uint64_t pos = hash(m) & mask_;
        for (;; pos = (pos + 1) & mask_) {
            const uint32_t idx = slots_[pos];
            if (idx == kEmpty) break;
            if (std::memcmp(get(idx), m, width_ * sizeof(uint32_t)) == 0) return {idx, false};
        }
        const auto idx = static_cast<uint32_t>(count_);
        arena_.insert(arena_.end(), m, m + width_);
        slots_[pos] = idx;
        ++count_;
        if (2 * count_ > slots_.size()) rehash(2 * slots_.size());
        return {idx, true};
    }

    void clear() {
        arena_.clear();
        count_ = 0;
        if (slots_.size() > 1024) reset_slots(1024);
        else std::fill(slots_.begin(), slots_.end(), kEmpty);
    }

private:
    uint64_t hash(const uint32_t* m) const {
        uint64_t h = 0x9E3779B97F4A7C15ULL;
        for (uint32_t i = 0; i < width_; ++i) {
            h = (h ^ m[i]) * 0xBF58476D1CE4E5B9ULL;
            h ^= h >> 31;
        }
        h ^= h >> 29;
        h *= 0x94D049BB133111EBULL;
        return h ^ (h >> 32);
    }
    void reset_slots(uint64_t n) {
        slots_.assign(n, kEmpty);
        mask_ = n - 1;
    }
    void rehash(uint64_t n) {
        reset_slots(n);
        for (uint64_t i = 0; i < count_; ++i) {
            uint64_t pos = hash(get(i)) & mask_;
            while (slots_[pos] != kEmpty) pos = (pos + 1) & mask_;
            slots_[pos] = static_cast<uint32_t>(i);
        }
    }

    uint32_t width_;
    std::vector<uint32_t> arena_;
    std::vector<uint32_t> slots_;
    uint64_t mask_ = 0;
    uint64_t count_ = 0;
};

struct ArcF {
    uint32_t place;
    uint32_t mult;
};

/// A transition flattened for the hot loop.
struct Trans {
    uint32_t id = 0;
    bool immediate = false;
    std::vector<ArcF> inputs, outputs, inhibitors;
    uint32_t servers = 1;
    double rate = 0;                        // exponential: base rate (1/s)
    const net::MarkingExpr* speed = nullptr;
    int priority = 0;
    double weight = 1;
    int ph = -1;                            // index into phase types, or -1
    bool age_memory = false;
};

struct VEdge {
    uint32_t from;
    uint32_t to;       // local vanishing index, or global tangible index when `tangible`
    double prob;
    uint32_t trans;
    bool tangible;
};

class Builder {
public:
    Builder(const net::PetriNet& net, const SolveOptions& options,
            const std::vector<uint32_t>& tracked)
        : net_(net), options_(options), np_(static_cast<uint32_t>(net.places.size())) {
        out_.tracked = tracked;
        tracked_pos_.assign(net.transitions.size(), -1);
        for (size_t k = 0; k < tracked.size(); ++k) tracked_pos_[tracked[k]] = static_cast<int>(k);
        prepare_transitions();
        width_ = np_ + static_cast<uint32_t>(phase_types_.size());
        out_.num_places = np_;
        out_.width = width_;
        out_.flow.assign(tracked.size(), {});
        out_.max_tokens.assign(np_, 0);
        for (uint32_t p = 0; p < np_; ++p) {
            if (net.places[p].bound) bounded_.push_back(p);
        }
        table_.emplace(width_);
        local_.emplace(width_);
        cur_.resize(width_);
        next_.resize(width_);
        vscratch_.resize(width_);
        next_v_.resize(width_);
        counts_.assign(tracked.size(), 0.0);
    }

    Ctmc run() {
        // Initial marking → initial tangible states.
        std::fill(next_.begin(), next_.end(), 0u);
        for (uint32_t p = 0; p < np_; ++p) next_[p] = net_.places[p].initial;
        check_bounds(next_.data());
        resolve(next_.data());
        for (auto& [idx, prob] : targets_) out_.initial_states.push_back(idx);
        std::sort(out_.initial_states.begin(), out_.initial_states.end());
        out_.initial_states.erase(
            std::unique(out_.initial_states.begin(), out_.initial_states.end()),
            out_.initial_states.end());

        // Pass 1: every tangible state, its exit rate and flows; count the rates into each.
        std::vector<uint32_t> in_count;
        std::vector<double> flow_s(out_.tracked.size());
        for (uint64_t s = 0; s < table_->size(); ++s) {
            const double exit = explore(s, flow_s, [&](uint32_t to, double) {
                if (to >= in_count.size()) in_count.resize(table_->size(), 0);
                ++in_count[to];
            });
            out_.exit_rate.push_back(exit);
            for (size_t k = 0; k < flow_s.size(); ++k) out_.flow[k].push_back(flow_s[k]);
        }
        const uint64_t n = table_->size();
        out_.num_states = n;
        in_count.resize(n, 0);
        out_.in_start.assign(n + 1, 0);
        for (uint64_t j = 0; j < n; ++j) out_.in_start[j + 1] = out_.in_start[j] + in_count[j];
        in_count = {};
        // Pass 2: the same firings again, each rate written into its column; sources ascending.
        out_.in_from.resize(out_.in_start[n]);
        out_.in_rate.resize(out_.in_start[n]);
        std::vector<uint64_t> cursor(out_.in_start.begin(), out_.in_start.end() - 1);
        for (uint64_t s = 0; s < n; ++s) {
            explore(s, flow_s, [&](uint32_t to, double r) {
                const uint64_t k = cursor[to]++;
                out_.in_from[k] = static_cast<uint32_t>(s);
                out_.in_rate[k] = r;
            });
        }
        if (table_->size() != n) throw std::logic_error("build_ctmc: the second pass found new states");
        out_.arena = std::move(table_->arena());
        out_.arena.shrink_to_fit();
        out_.exit_rate.shrink_to_fit();
        for (auto& f : out_.flow) f.shrink_to_fit();
        return std::move(out_);
    }

private:
    /// Fires every enabled timed transition of tangible state `s` and hands each off-diagonal
    /// rate (to, rate) to `emit`, after resolving vanishing markings. Fills `flow_s` with the
    /// firings per second of the tracked transitions in `s`; returns the exit rate. Throws
    /// SolveError on a deadlock, a bound, or too many states.
    template <class Emit>
    double explore(uint64_t s, std::vector<double>& flow_s, const Emit& emit) {
        std::memcpy(cur_.data(), table_->get(s), width_ * sizeof(uint32_t));
        std::fill(flow_s.begin(), flow_s.end(), 0.0);
        double exit = 0;
        bool can_fire = false;
        const auto from = static_cast<uint32_t>(s);
        auto add_rate = [&](uint32_t to, double r) {
            if (to == from || r <= 0) return;
            emit(to, r);
            exit += r;
        };
        for (const Trans& t : timed_) {
            if (!enabled(t, cur_.data())) continue;
            double r = timed_rate(t, cur_.data());
            if (!(r > 0)) continue;
            can_fire = true;
            double fire_rate = r;
            if (t.ph >= 0) {
                const PhaseType& ph = phase_types_[t.ph];
                const uint32_t slot = np_ + static_cast<uint32_t>(t.ph);
                const uint32_t phase = cur_[slot];
                const double pr = ph.rates_per_s[phase] * (r / t.rate);
                const double c = ph.cont[phase];
                if (c > 0) {
                    std::memcpy(next_.data(), cur_.data(), width_ * sizeof(uint32_t));
                    next_[slot] = phase + 1;
                    add_rate(insert_tangible(next_.data()), pr * c);
                }
                fire_rate = pr * (1 - c);
                if (!(fire_rate > 0)) continue;
                fire(t, cur_.data(), next_.data());
                next_[slot] = 0;
            } else {
                fire(t, cur_.data(), next_.data());
            }
            normalize_phases(next_.data());
            check_bounds(next_.data());
            resolve(next_.data());
            for (auto& [idx, prob] : targets_) add_rate(idx, fire_rate * prob);
            if (tracked_pos_[t.id] >= 0) flow_s[tracked_pos_[t.id]] += fire_rate;
            for (size_t k = 0; k < counts_.size(); ++k) flow_s[k] += fire_rate * counts_[k];
        }
        if (!can_fire) {
            throw SolveError(SolveError::Kind::Deadlock,
                             "deadlock: the net reaches the marking " +
                                 describe_marking(net_, cur_.data()) +
                                 " where no timed transition can fire");
        }
        return exit;
    }

    void prepare_transitions() {
        for (uint32_t i = 0; i < net_.transitions.size(); ++i) {
            const net::Transition& tr = net_.transitions[i];
            Trans t;
            t.id = i;
            t.immediate = tr.kind == net::TransitionKind::Immediate;
            for (const auto& a : tr.inputs) t.inputs.push_back({a.place.value, a.multiplicity});
            for (const auto& a : tr.outputs) t.outputs.push_back({a.place.value, a.multiplicity});
            for (const auto& a : tr.inhibitors) {
                t.inhibitors.push_back({a.place.value, a.multiplicity});
            }
            t.servers = tr.servers;
            t.speed = tr.speed ? &*tr.speed : nullptr;
            t.priority = tr.priority;
            t.weight = tr.weight;
            t.age_memory = tr.memory == net::Memory::Age || tr.speed.has_value();
            if (t.immediate) {
                immediate_.push_back(std::move(t));
                continue;
            }
            if (t.inputs.empty() && t.servers == net::kInfiniteServers) {
                throw SolveError(SolveError::Kind::Invalid,
                                 "transition '" + tr.name +
                                     "' has no input place and server = infinite: its firing "
                                     "rate is unbounded",
                                 std::nullopt, i);
            }
            if (net::is_exponential(tr.delay)) {
                t.rate = net::exponential_rate(tr.delay);
            } else if (!options_.phase_type) {
                throw SolveError(SolveError::Kind::NotExponential,
                                 "transition '" + tr.name + "' has the non-exponential delay " +
                                     net::to_readable_string(tr.delay) +
                                     "; the exact solver needs exponential delays (use "
                                     "--solver sim, or --phase-type to approximate it)",
                                 std::nullopt, i);
            } else if (t.servers != 1) {
                throw SolveError(SolveError::Kind::NotExponential,
                                 "transition '" + tr.name + "' has the non-exponential delay " +
                                     net::to_readable_string(tr.delay) +
                                     " and several servers; --phase-type expands only "
                                     "single-server transitions (use --solver sim)",
                                 std::nullopt, i);
            } else {
                PhaseType ph;
                try {
                    ph = fit_phase_type(tr.delay);
                } catch (const std::invalid_argument&) {
                    throw SolveError(SolveError::Kind::NotExponential,
                                     "transition '" + tr.name + "' has the delay " +
                                         net::to_readable_string(tr.delay) +
                                         " whose mean is not positive; it cannot be expanded "
                                         "to a phase type (make it immediate)",
                                     std::nullopt, i);
                }
                // The phase rates carry the whole delay; `rate` only scales the multiplier.
                t.rate = 1;
                t.ph = static_cast<int>(phase_types_.size());
                out_.warnings.push_back("transition '" + tr.name + "': non-exponential delay " +
                                        net::to_readable_string(tr.delay) +
                                        " replaced by the moment-matched phase type " +
                                        ph.description + " (--phase-type)");
                phase_types_.push_back(std::move(ph));
            }
            timed_.push_back(std::move(t));
        }
        // Highest priority first; stable so that equal priorities keep net order.
        std::stable_sort(immediate_.begin(), immediate_.end(),
                         [](const Trans& a, const Trans& b) { return a.priority > b.priority; });
        for (const Trans& t : timed_) {
            if (t.ph >= 0) ph_trans_.push_back(&t);
        }
    }

    static uint64_t degree(const Trans& t, const uint32_t* m) {
        for (const ArcF& a : t.inhibitors) {
            if (m[a.place] >= a.mult) return 0;
        }
        uint64_t d = kInfiniteDegree;
        for (const ArcF& a : t.inputs) d = std::min<uint64_t>(d, m[a.place] / a.mult);
        return d;
    }
    static bool enabled(const Trans& t, const uint32_t* m) { return degree(t, m) > 0; }

    double timed_rate(const Trans& t, const uint32_t* m) const {
        const uint64_t d = degree(t, m);
        double mult = 1;
        if (t.servers == net::kInfiniteServers) mult = static_cast<double>(d);
        else if (t.servers > 1) mult = static_cast<double>(std::min<uint64_t>(t.servers, d));
        double r = t.rate * mult;
        if (t.speed) r *= std::max(0.0, t.speed->evaluate(m));
        return r;
    }

    void fire(const Trans& t, const uint32_t* m, uint32_t* out) const {
        std::memcpy(out, m, width_ * sizeof(uint32_t));
        for (const ArcF& a : t.inputs) out[a.place] -= a.mult;
        for (const ArcF& a : t.outputs) {
            if (out[a.place] > std::numeric_limits<uint32_t>::max() - a.mult) {
                throw SolveError(SolveError::Kind::Unbounded,
                                 "place '" + net_.places[a.place].name +
                                     "' overflows 2^32 tokens: the net is unbounded (use "
                                     "--solver sim)",
                                 a.place);
            }
            out[a.place] += a.mult;
        }
    }

    /// Enabling memory: a disabled phase-type transition forgets its phase.
    void normalize_phases(uint32_t* m) const {
        for (const Trans* t : ph_trans_) {
            if (!t->age_memory && !enabled(*t, m)) m[np_ + t->ph] = 0;
        }
    }

    void check_bounds(const uint32_t* m) const {
        for (uint32_t p : bounded_) {
            if (m[p] > *net_.places[p].bound) {
                throw SolveError(SolveError::Kind::BoundExceeded,
                                 "place '" + net_.places[p].name + "' exceeds its bound " +
                                     std::to_string(*net_.places[p].bound) + " (holds " +
                                     std::to_string(m[p]) + " tokens in the marking " +
                                     describe_marking(net_, m) + ")",
                                 p);
            }
        }
    }

    /// Enabled immediates of the highest priority: fills imm_enabled_, returns their weight sum
    /// (0 when the marking is tangible).
    double enabled_immediates(const uint32_t* m) {
        imm_enabled_.clear();
        double total = 0;
        int prio = 0;
        for (const Trans& t : immediate_) {
            if (!imm_enabled_.empty() && t.priority < prio) break;
            if (!enabled(t, m)) continue;
            prio = t.priority;
            imm_enabled_.push_back(&t);
            total += t.weight;
        }
        return total;
    }

    uint32_t insert_tangible(const uint32_t* m) {
        auto [idx, inserted] = table_->insert(m);
        if (inserted) {
            for (uint32_t p = 0; p < np_; ++p) {
                out_.max_tokens[p] = std::max(out_.max_tokens[p], m[p]);
            }
            if (table_->size() > options_.max_states) too_large();
        }
        return idx;
    }

    [[noreturn]] void too_large() const {
        std::string msg = "the state space exceeds --max-states = " +
                          std::to_string(options_.max_states) + " tangible states";
        int64_t best_growth = 0;
        std::optional<uint32_t> best;
        for (uint32_t p = 0; p < np_; ++p) {
            const int64_t g = static_cast<int64_t>(out_.max_tokens[p]) - net_.places[p].initial;
            if (g > best_growth) {
                best_growth = g;
                best = p;
            }
        }
        if (best) {
            const uint32_t p = *best;
            msg += "; place '" + net_.places[p].name + "' grew the most (from " +
                   std::to_string(net_.places[p].initial) + " to " +
                   std::to_string(out_.max_tokens[p]) + " tokens)";
            if (out_.max_tokens[p] >= 1000) msg += " and looks unbounded";
        }
        msg += "; use --solver sim, or raise --max-states";
        throw SolveError(SolveError::Kind::StateSpaceTooLarge, msg, best);
    }

    /// Resolves the marking `m` (already bound-checked) into tangible states: fills targets_
    /// with (state, probability) and counts_ with the expected firings of tracked immediates.
    void resolve(const uint32_t* m) {
        targets_.clear();
        std::fill(counts_.begin(), counts_.end(), 0.0);
        if (enabled_immediates(m) == 0) {
            targets_.emplace_back(insert_tangible(m), 1.0);
            return;
        }
        local_->clear();
        edges_.clear();
        local_->insert(m);
        for (uint64_t v = 0; v < local_->size(); ++v) {
            std::memcpy(vscratch_.data(), local_->get(v), width_ * sizeof(uint32_t));
            const double total = enabled_immediates(vscratch_.data());
            const std::vector<const Trans*> enabled_now = imm_enabled_;
            for (const Trans* t : enabled_now) {
                fire(*t, vscratch_.data(), next_v_.data());
                normalize_phases(next_v_.data());
                check_bounds(next_v_.data());
                const double p = t->weight / total;
                if (enabled_immediates(next_v_.data()) > 0) {
                    auto [w, inserted] = local_->insert(next_v_.data());
                    if (inserted && local_->size() > kMaxVanishingChain) {
                        throw SolveError(SolveError::Kind::Invalid,
                                         "more than " + std::to_string(kMaxVanishingChain) +
                                             " vanishing markings follow the marking " +
                                             describe_marking(net_, m) +
                                             " without a timed transition: immediate "
                                             "transitions fire without end (e.g. '" +
                                             net_.transitions[t->id].name + "')",
                                         std::nullopt, t->id);
                    }
                    edges_.push_back({static_cast<uint32_t>(v), w, p, t->id, false});
                } else {
                    edges_.push_back(
                        {static_cast<uint32_t>(v), insert_tangible(next_v_.data()), p, t->id, true});
                }
            }
        }
        visits(m);
        for (const VEdge& e : edges_) {
            const double f = visits_[e.from] * e.prob;
            if (e.tangible) targets_.emplace_back(e.to, f);
            if (tracked_pos_[e.trans] >= 0) counts_[tracked_pos_[e.trans]] += f;
        }
    }

    /// Expected number of visits to each local vanishing marking starting from marking 0.
    void visits(const uint32_t* start) {
        const uint64_t n = local_->size();
        visits_.assign(n, 0.0);
        // Kahn's algorithm: a topological order exists unless the vanishing graph has a loop.
        indeg_.assign(n, 0);
        for (const VEdge& e : edges_) {
            if (!e.tangible) ++indeg_[e.to];
        }
        // Edges are grouped by `from` in increasing order: index them.
        first_.assign(n + 1, 0);
        for (const VEdge& e : edges_) ++first_[e.from + 1];
        for (uint64_t v = 0; v < n; ++v) first_[v + 1] += first_[v];
        order_.clear();
        for (uint64_t v = 0; v < n; ++v) {
            if (indeg_[v] == 0) order_.push_back(static_cast<uint32_t>(v));
        }
        for (size_t i = 0; i < order_.size(); ++i) {
            const uint32_t v = order_[i];
            for (uint32_t k = first_[v]; k < first_[v + 1]; ++k) {
                const VEdge& e = edges_[k];
                if (!e.tangible && --indeg_[e.to] == 0) order_.push_back(e.to);
            }
        }
        if (order_.size() == n) {
            visits_[0] = 1;
            for (uint32_t v : order_) {
                for (uint32_t k = first_[v]; k < first_[v + 1]; ++k) {
                    const VEdge& e = edges_[k];
                    if (!e.tangible) visits_[e.to] += visits_[v] * e.prob;
                }
            }
            return;
        }
        // A loop of vanishing markings: every marking must be able to leave to a tangible one.
        std::vector<std::vector<uint32_t>> preds(n);
        std::vector<char> exits(n, 0);
        std::vector<uint32_t> stack;
        for (const VEdge& e : edges_) {
            if (e.tangible) {
                if (!exits[e.from]) stack.push_back(e.from);
                exits[e.from] = 1;
            } else {
                preds[e.to].push_back(e.from);
            }
        }
        while (!stack.empty()) {
            const uint32_t v = stack.back();
            stack.pop_back();
            for (uint32_t u : preds[v]) {
                if (!exits[u]) {
                    exits[u] = 1;
                    stack.push_back(u);
                }
            }
        }
        for (uint64_t v = 0; v < n; ++v) {
            if (exits[v]) continue;
            std::string names;
            std::vector<uint32_t> seen;
            for (const VEdge& e : edges_) {
                if (!exits[e.from] &&
                    std::find(seen.begin(), seen.end(), e.trans) == seen.end()) {
                    seen.push_back(e.trans);
                    if (!names.empty()) names += ", ";
                    names += "'" + net_.transitions[e.trans].name + "'";
                }
            }
            throw SolveError(SolveError::Kind::Invalid,
                             "vanishing loop: from the marking " + describe_marking(net_, start) +
                                 " the immediate transitions " + names +
                                 " can fire forever without reaching a marking where time "
                                 "advances",
                             std::nullopt, seen.empty() ? std::nullopt
                                                        : std::optional<uint32_t>(seen[0]));
        }
        if (n > kMaxDenseVanishing) {
            throw SolveError(SolveError::Kind::Invalid,
                             "a loop of " + std::to_string(n) +
                                 " vanishing markings follows the marking " +
                                 describe_marking(net_, start) + "; at most " +
                                 std::to_string(kMaxDenseVanishing) + " are supported");
        }
        // Expected visits y solve (I - P)^T y = e_0, P the vanishing-to-vanishing probabilities.
        Eigen::MatrixXd a = Eigen::MatrixXd::Identity(static_cast<Eigen::Index>(n),
                                                      static_cast<Eigen::Index>(n));
        for (const VEdge& e : edges_) {
            if (!e.tangible) a(e.to, e.from) -= e.prob;
        }
        Eigen::VectorXd rhs = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(n));
        rhs(0) = 1;
        Eigen::VectorXd y = a.partialPivLu().solve(rhs);
        for (uint64_t v = 0; v < n; ++v) visits_[v] = std::max(0.0, y(static_cast<Eigen::Index>(v)));
    }

    const net::PetriNet& net_;
    const SolveOptions& options_;
    uint32_t np_;
    uint32_t width_ = 0;
    std::vector<Trans> timed_, immediate_;
    std::vector<const Trans*> ph_trans_;
    std::vector<PhaseType> phase_types_;
    std::vector<int> tracked_pos_;
    std::vector<uint32_t> bounded_;
    std::optional<MarkingTable> table_, local_;
    std::vector<uint32_t> cur_, next_, vscratch_, next_v_;
    std::vector<const Trans*> imm_enabled_;
    std::vector<std::pair<uint32_t, double>> targets_;
    std::vector<double> counts_;
    std::vector<VEdge> edges_;
    std::vector<double> visits_;
    std::vector<uint32_t> indeg_, first_, order_;
    Ctmc out_;
};

}  // namespace

std::string describe_marking(const net::PetriNet& net, const uint32_t* marking) {
    std::string s = "{";
    bool first = true;
    for (size_t p = 0; p < net.places.size(); ++p) {
        if (marking[p] == 0) continue;
        if (!first) s += ", ";
        first = false;
        s += net.places[p].name + "=" + std::to_string(marking[p]);
    }
    return s + "}";
}

Ctmc build_ctmc(const net::PetriNet& net, const SolveOptions& options,
                const std::vector<uint32_t>& tracked) {
    Builder b(net, options, tracked);
    return b.run();
}

}  // namespace sgdnet::solver
