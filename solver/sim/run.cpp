// Monte Carlo steady-state estimation: TBB replications, sequential stopping, ordered reduction.
//
// Method (docs/solver-sim.md): a pilot run fixes the batch length; kReplications independent
// replications (stream = replication index) are simulated in rounds, each round doubling every
// replication's simulated length; after each round the MSER truncation point of the
// cross-replication batch-mean series removes the warm-up, each replication yields one estimate
// per measure over the kept span (its ends averaged over about one step), and a Student-t
// interval across replications is formed.
// Stopping is checked only between rounds, so the batches used never depend on timing or on
// the thread count. Nets that draw no random number are solved exactly by finding the period
// of their trajectory.
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "solver/sim/engine.hpp"
#include "solver/sim/estimators.hpp"
#include "solver/solve.hpp"

namespace sgdnet::solver {

namespace {

using Clock = std::chrono::steady_clock;
using Status = SimEngine::Status;

constexpr uint32_t kReplications = 16;
constexpr uint64_t kPilotEvents = 20'000;
// The pilot continues (doubling) until the first measure's transitions fired kPilotActivity
// times, up to kMaxPilotEvents timed firings.
constexpr double kPilotActivity = 20;
// ... and until each of them fired kPilotActivityPerTransition times on average.
constexpr double kPilotActivityPerTransition = 4;
constexpr uint64_t kMaxPilotEvents = 2'000'000;
// A batch is long enough for kBatchActivity firings of the first measure's transitions.
constexpr double kBatchActivity = 2;
// Precision is only claimed when every replication's kept window holds at least this many
// firings of the first measure's transitions per transition of the measure.
constexpr double kMinWindowActivity = 10;
constexpr double kBatchEvents = 1'000;        // target timed firings per batch (one replication)
constexpr std::size_t kFirstRoundBatches = 32;
constexpr std::size_t kMaxBatches = 512;      // more → adjacent batches are merged
// MSER reads the batch-mean series averaged down to at most this many values.
constexpr std::size_t kMserPoints = 64;
// Precision is only claimed when MSER's warm-up cut of the first measure is at most this
// fraction of the run: a longer cut says the run is too short to tell warm-up from steady state.
constexpr double kMaxWarmupShare = 0.125;
// Estimates never use the first kMinWarmupShare of a replication, whatever MSER says. MSER only
// removes batches that stand out from the noise, so the tail of a transient (a deviation below
// the noise of one batch that lasts many batches) stays in its kept window and biases every
// replication alike, by more than the interval's width. With the run at least 1/kMaxWarmupShare
// MSER cuts long, discarding kMinWarmupShare keeps twice MSER's cut out of the estimate.
constexpr double kMinWarmupShare = 0.25;
// Confidence of the paired test for a trend between the halves of the kept window.
constexpr double kDriftConfidence = 0.999;
constexpr uint64_t kPilotStream = ~0ULL;
constexpr std::size_t kMaxPeriodRecords = 100'000;
constexpr std::size_t kMaxPeriodDoubles = 4'000'000;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string fmt(double v) {
    std::ostringstream os;
    os.precision(6);
    os << v;
    return os.str();
}

std::string marking_text(const CompiledNet& cn, const std::vector<uint32_t>& m) {
    std::string out;
    int shown = 0;
    for (uint32_t p = 0; p < cn.num_places; ++p) {
        if (m[p] == 0) continue;
        if (shown == 20) {
            out += ", …";
            break;
        }
        if (shown++) out += ", ";
        out += cn.place_names[p] + "=" + std::to_string(m[p]);
    }
    return out.empty() ? "all places empty" : out;
}

/// A second token entered a fused chain: the run starts over with the net unfused.
struct ChainOverlap {};

[[noreturn]] void throw_status(const CompiledNet& cn, const SimEngine& e, Status st,
                               const std::string& where) {
    if (st == Status::ChainOverlap) throw ChainOverlap{};
    const std::string at = " at t=" + fmt(e.now()) + " s (" + where + ")";
    const uint32_t el = e.error_element();
    switch (st) {
        case Status::Deadlock:
            throw SolveError(SolveError::Kind::Deadlock,
                             "deadlock" + at + ": no transition can fire again; marking: " +
                                 marking_text(cn, e.marking()));
        case Status::BoundExceeded:
            throw SolveError(SolveError::Kind::BoundExceeded,
                             "place '" + cn.place_names[el] + "' exceeds its bound " +
                                 std::to_string(cn.limit[el]) + at + "; marking: " +
                                 marking_text(cn, e.marking()),
                             el);
        case Status::Unbounded:
            throw SolveError(SolveError::Kind::Unbounded,
                             "place '" + cn.place_names[el] + "' seems unbounded: it holds more than " +
                                 std::to_string(cn.limit[el]) + " tokens" + at +
                                 " (limit: unbounded_tokens)",
                             el);
        case Status::TimelessTrap:
            throw SolveError(SolveError::Kind::Deadlock,
                             "time cannot advance: more than " +
                                 std::to_string(SimEngine::kMaxImmediateFirings) +
                                 " immediate firings" + at + ", e.g. '" +
                                 cn.transition_names[el] + "'; marking: " +
                                 marking_text(cn, e.marking()),
                             {}, el);
        case Status::BadSpeed:
            throw SolveError(SolveError::Kind::Invalid,
                             "the speed of transition '" + cn.transition_names[el] +
                                 "' is negative or not a number" + at + "; marking: " +
                                 marking_text(cn, e.marking()),
                             {}, el);
        case Status::Ok:
        case Status::Aborted:
        case Status::ChainOverlap: break;
    }
    throw SolveError(SolveError::Kind::Invalid, "simulation stopped" + at);
}

/// How each measure reads a snapshot row. A throughput measure reads one column, the weighted
/// count Σ coef·firings; an inverse-throughput measure one count column per term; a time
/// average its integral column.
struct MeasurePlan {
    net::Measure::Kind kind;
    std::vector<std::pair<uint32_t, double>> terms;  // (column, coef)
    uint32_t expr_col = 0;
    double max_coef = 0;  // largest |coef| of a throughput term (zero-firing bound)
};

/// Value of measure `m` over a window of length `span` in which snapshot column c grew by
/// delta(c).
template <class Delta>
double measure_value(const MeasurePlan& m, Delta&& delta, double span) {
    switch (m.kind) {
        case net::Measure::Kind::Throughput: {
            double s = 0;
            for (auto [col, coef] : m.terms) s += coef * delta(col);
            return s / span;
        }
        case net::Measure::Kind::TimeAverage: return delta(m.expr_col) / span;
        case net::Measure::Kind::MeanInverseThroughput: {
            double s = 0;
            for (auto [col, coef] : m.terms) {
                const double d = delta(col);
                s += d > 0 ? coef * span / d : std::numeric_limits<double>::infinity();
            }
            return s;
        }
    }
    return 0;
}

/// Value of measure `m` over a window of length `span` between snapshot rows `a` and `b`.
double measure_value(const MeasurePlan& m, const double* a, const double* b, double span) {
    return measure_value(m, [&](uint32_t c) { return b[c] - a[c]; }, span);
}

/// Series used by MSER for a measure: its batch value, or for an inverse-throughput measure
/// the total throughput of its terms (finite in every batch).
double mser_value(const MeasurePlan& m, const double* a, const double* b, double span) {
    if (m.kind != net::Measure::Kind::MeanInverseThroughput) return measure_value(m, a, b, span);
    double s = 0;
    for (auto [col, coef] : m.terms) s += b[col] - a[col];
    return s / span;
}

bool close_enough(const std::vector<double>& a, const double* b, double now) {
    // Residuals carry rounding errors of a few ulp of the current time.
    const double tol = 1e-11 * std::fabs(now);
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::fabs(a[i] - b[i]) > tol + 1e-12 * std::fabs(a[i])) return false;
    return true;
}

/// Exact measures of a net whose trajectory uses no randomness: find two tangible instants
/// with the same state; the measures are the increments over that period divided by it.
bool solve_periodic(const CompiledNet& cn, SimEngine& e, const std::vector<MeasurePlan>& plans,
                    std::vector<double>& values) {
    struct Record {
        double time;
        std::size_t sig_begin, sig_len, snap_begin;
    };
    const uint32_t w = cn.snapshot_width();
    std::vector<Record> records;
    std::vector<double> sigs, snaps, sig, snap(w);
    std::unordered_map<uint64_t, std::vector<uint32_t>> by_marking;
    while (records.size() < kMaxPeriodRecords) {
        const Status st = e.settle();
        if (st != Status::Ok) throw_status(cn, e, st, "deterministic run");
        e.state_signature(sig);
        e.snapshot(snap.data());
        auto& bucket = by_marking[e.marking_hash()];
        for (uint32_t r : bucket) {
            const Record& rec = records[r];
            if (rec.sig_len != sig.size() || !close_enough(sig, sigs.data() + rec.sig_begin, e.now()))
                continue;
            const double period = e.now() - rec.time;
            if (!(period > 0)) continue;
            values.clear();
            for (const MeasurePlan& m : plans)
                values.push_back(
                    measure_value(m, snaps.data() + rec.snap_begin, snap.data(), period));
            return true;
        }
        if (sigs.size() + sig.size() > kMaxPeriodDoubles) return false;
        bucket.push_back(static_cast<uint32_t>(records.size()));
        records.push_back({e.now(), sigs.size(), sig.size(), snaps.size()});
        sigs.insert(sigs.end(), sig.begin(), sig.end());
        snaps.insert(snaps.end(), snap.begin(), snap.end());
        const Status fs = e.run_events(1);
        if (fs != Status::Ok) throw_status(cn, e, fs, "deterministic run");
    }
    return false;
}

/// A number in [0, 1) fixed by (seed, replication), independent of the replication's stream.
double phase_offset(uint64_t seed, uint32_t r) {
    uint64_t st = seed ^ (0x5851f42d4c957f2dULL * (r + 1));
    splitmix64(st);
    return static_cast<double>(splitmix64(st) >> 11) * 0x1.0p-53;
}

/// Per-replication state kept across rounds.
struct Replication {
    std::unique_ptr<SimEngine> engine;
    std::vector<double> rows;  // (batches + 1) rows: a snapshot, then the count integrals
    double offset = 0;         // simulated time of the first row
    Status status = Status::Ok;
};

SolveResult simulate_from(const net::PetriNet& net, const SolveOptions& options,
                          Clock::time_point t0, bool fuse);

}  // namespace

SolveResult simulate(const net::PetriNet& net, const SolveOptions& options) {
    const Clock::time_point t0 = Clock::now();
    if (options.fuse_chains) {
        try {
            return simulate_from(net, options, t0, true);
        } catch (const ChainOverlap&) {
            // A chain holds two tokens at once somewhere: run the net as it is.
        }
    }
    return simulate_from(net, options, t0, false);
}

namespace {

SolveResult simulate_from(const net::PetriNet& net, const SolveOptions& options,
                          Clock::time_point t0, bool fuse) {
    if (const auto problems = net::validate(net); !problems.empty())
        throw SolveError(SolveError::Kind::Invalid, "invalid net: " + problems.front());
    if (!(options.confidence > 0 && options.confidence < 1))
        throw SolveError(SolveError::Kind::Invalid, "confidence must lie in (0, 1)");

    // Measures → count columns and time-averaged expressions. A throughput measure gets one
    // weighted column; an inverse-throughput measure one unweighted column per transition
    // (shared between measures). The last count column is the first measure's activity: the
    // firings of its transitions, or of the transitions that change a place its expression
    // reads.
    std::vector<CompiledNet::CountColumn> columns;
    std::unordered_map<uint32_t, uint32_t> count_column_of;
    std::vector<net::MarkingExpr> tracked;
    std::vector<MeasurePlan> plans;
    for (const net::Measure& m : net.measures) {
        MeasurePlan p{m.kind, {}, 0, 0};
        if (m.kind == net::Measure::Kind::TimeAverage) {
            p.expr_col = static_cast<uint32_t>(tracked.size());
            tracked.push_back(m.expr);
        } else if (m.kind == net::Measure::Kind::Throughput) {
            CompiledNet::CountColumn col;
            for (const net::Measure::Term& term : m.terms) {
                col.push_back({term.transition.value, term.coef});
                p.max_coef = std::max(p.max_coef, std::fabs(term.coef));
            }
            p.terms.push_back({static_cast<uint32_t>(columns.size()), 1.0});
            columns.push_back(std::move(col));
        } else {
            for (const net::Measure::Term& term : m.terms) {
                auto [it, fresh] = count_column_of.try_emplace(
                    term.transition.value, static_cast<uint32_t>(columns.size()));
                if (fresh) columns.push_back({{term.transition.value, 1.0}});
                p.terms.push_back({it->second, term.coef});
            }
        }
        plans.push_back(std::move(p));
    }
    // Activity of the first measure and the number of transitions it is spread over.
    double activity_transitions = 1;
    {
        CompiledNet::CountColumn act;
        if (!net.measures.empty()) {
            const net::Measure& m0 = net.measures.front();
            if (m0.kind == net::Measure::Kind::TimeAverage) {
                std::vector<uint8_t> reads(net.places.size(), 0);
                for (uint32_t pl : m0.expr.places())
                    if (pl < reads.size()) reads[pl] = 1;
                for (uint32_t t = 0; t < net.transitions.size(); ++t) {
                    const net::Transition& tr = net.transitions[t];
                    std::unordered_map<uint32_t, int64_t> delta;
                    for (const net::Arc& a : tr.inputs) delta[a.place.value] -= a.multiplicity;
                    for (const net::Arc& a : tr.outputs) delta[a.place.value] += a.multiplicity;
                    for (auto [pl, d] : delta)
                        if (d != 0 && pl < reads.size() && reads[pl]) {
                            act.push_back({t, 1.0});
                            break;
                        }
                }
            } else {
                std::vector<uint32_t> ts;
                for (const net::Measure::Term& term : m0.terms) ts.push_back(term.transition.value);
                std::sort(ts.begin(), ts.end());
                ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
                for (uint32_t t : ts) act.push_back({t, 1.0});
                activity_transitions = std::max<double>(1, static_cast<double>(ts.size()));
            }
        }
        columns.push_back(std::move(act));
    }
    const uint32_t activity_col = static_cast<uint32_t>(columns.size() - 1);
    for (MeasurePlan& p : plans)
        if (p.kind == net::Measure::Kind::TimeAverage)
            p.expr_col += static_cast<uint32_t>(columns.size());
    const CompiledNet cn =
        CompiledNet::build_columns(net, tracked, columns, options.unbounded_tokens, fuse);
    const uint32_t w = cn.snapshot_width();
    std::vector<double> row_buf(w);
    // A replication's row: its snapshot (count columns first), then ∫ count dt of every count
    // column.
    const uint32_t nc = cn.num_count_columns;
    const uint32_t rw = w + nc;
    auto record = [&](const SimEngine& e, double* row) {
        e.snapshot(row);
        e.count_integrals(row + w);
    };
    auto activity_of = [&](const SimEngine& e) {
        e.snapshot(row_buf.data());
        return row_buf[activity_col];
    };

    SolveResult result;
    result.solver = "sim";
    for (const net::Measure& m : net.measures)
        result.measures.push_back({m.name, 0, 0, 0, m.unit});

    // Pilot: fixes the batch length and detects nets without randomness.
    SimEngine pilot(cn, options.seed, kPilotStream);
    if (const Status st = pilot.run_events(kPilotEvents); st != Status::Ok)
        throw_status(cn, pilot, st, "pilot run");
    if (!(pilot.now() > 0))
        throw SolveError(SolveError::Kind::Deadlock,
                         "time does not advance: " + std::to_string(kPilotEvents) +
                             " timed firings all happen at t=0");
    if (pilot.rng_draws() == 0) {
        std::vector<double> values;
        if (solve_periodic(cn, pilot, plans, values)) {
            for (std::size_t i = 0; i < values.size(); ++i)
                result.measures[i].mean = result.measures[i].ci_low = result.measures[i].ci_high =
                    values[i];
            result.stats.replications = 1;
            result.stats.events = pilot.events();
            result.stats.simulated_s = pilot.now();
            result.stats.wall_s = seconds_since(t0);
            return result;
        }
    }
    if (plans.empty()) {
        result.stats.events = pilot.events();
        result.stats.simulated_s = pilot.now();
        result.stats.wall_s = seconds_since(t0);
        return result;
    }
    // A net without randomness whose period was not found: every replication would be the
    // same, so one replication is run and its batches give the interval.
    const bool deterministic = pilot.rng_draws() == 0;
    const uint32_t n_rep = deterministic ? 1 : kReplications;

    // Batch length: ≈ kBatchEvents timed firings, and long enough for kBatchActivity firings of
    // the first measure. A measure that fires rarely extends the pilot (doubling) until it has
    // fired kPilotActivity times or the pilot reached kMaxPilotEvents timed firings.
    uint64_t pilot_events = kPilotEvents;
    if (!deterministic) {
        while (activity_of(pilot) < std::max(kPilotActivity,
                                             kPilotActivityPerTransition * activity_transitions) &&
               pilot_events < kMaxPilotEvents) {
            if (const Status st = pilot.run_events(pilot_events); st != Status::Ok)
                throw_status(cn, pilot, st, "pilot run");
            pilot_events *= 2;
        }
    }
    const double pilot_time = pilot.now();
    const double pilot_activity = activity_of(pilot);
    double batch_len = pilot_time * kBatchEvents / static_cast<double>(pilot_events);
    if (pilot_activity > 0)
        batch_len = std::max(batch_len, pilot_time * kBatchActivity / pilot_activity);
    // Replications start their batches at a random phase within one mean interval between
    // firings of one of the first measure's transitions (a step of one worker), or one batch
    // if that is longer.
    const double phase_span =
        pilot_activity > 0
            ? std::max(batch_len, pilot_time * activity_transitions / pilot_activity)
            : batch_len;
    std::size_t batches = 0;
    std::size_t target = kFirstRoundBatches;
    std::vector<Replication> reps(n_rep);
    tbb::task_arena arena(options.threads == 0 ? tbb::task_arena::automatic
                                               : static_cast<int>(options.threads));
    std::vector<std::string> suspect_transient;
    std::size_t first_cut = 0;  // the first measure's warm-up cut in the last round, in batches
    // The first measure in the last round: its cut was long and still in the transient, or
    // its kept window still trends.
    bool long_warmup = false, drifting = false;
    double prev_hw = 0;  // the first measure's half-width in the previous round
    for (int round = 0;; ++round) {
        // The first round always completes; later ones stop at the cap (a cap beyond a year
        // is treated as none, which also keeps the time_point arithmetic in range).
        const Clock::time_point deadline =
            round == 0 || !(options.max_time_s < 3.2e7)
                ? Clock::time_point::max()
                : t0 + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(options.max_time_s));
        arena.execute([&] {
            tbb::parallel_for(uint32_t{0}, n_rep, [&](uint32_t r) {
                Replication& rep = reps[r];
                if (!rep.engine) {
                    rep.engine = std::make_unique<SimEngine>(cn, options.seed, r);
                    // Batch boundaries of replication r start at a pseudo-random offset in
                    // [0, L): with every replication started in the same state, a nearly
                    // periodic process would otherwise put the same firings at the window
                    // ends in every replication, and the count's discretisation error would
                    // be common to all of them (unseen by the interval). With a random phase
                    // the count over a window is unbiased and its error independent.
                    rep.offset = phase_offset(options.seed, r) * phase_span;
                    rep.status = rep.engine->run_until(rep.offset, deadline);
                    if (rep.status != Status::Ok) return;
                    rep.rows.resize(rw);
                    record(*rep.engine, rep.rows.data());
                }
                rep.rows.reserve((target + 1) * rw);
                for (std::size_t b = batches + 1; b <= target; ++b) {
                    rep.status = rep.engine->run_until(
                        rep.offset + static_cast<double>(b) * batch_len, deadline);
                    if (rep.status != Status::Ok) return;
                    const std::size_t at = rep.rows.size();
                    rep.rows.resize(at + rw);
                    record(*rep.engine, rep.rows.data() + at);
                }
            });
        });
        bool aborted = false;
        for (uint32_t r = 0; r < n_rep; ++r) {
            const Status st = reps[r].status;
            if (st == Status::Aborted) aborted = true;
            else if (st != Status::Ok)
                throw_status(cn, *reps[r].engine, st, "replication " + std::to_string(r));
        }
        if (aborted) {
            result.precision_reached = false;
            break;  // keep the previous round's estimate
        }
        batches = target;

        // Warm-up: MSER on the cross-replication mean series of each measure. With several
        // replications the cut is cross-fitted: the cut found on the odd replications is
        // applied to the even ones and vice versa, so that no estimate is computed on the data
        // that chose its own truncation point (choosing it on the same data biases the
        // estimate by a fraction of its standard error and makes the interval too narrow).
        const std::size_t half = batches / 2;
        std::vector<std::array<std::size_t, 2>> cuts(plans.size());
        std::vector<std::size_t> mser_cut(plans.size());  // before the kMinWarmupShare floor
        std::vector<double> series(batches), series_part[2] = {std::vector<double>(batches),
                                                               std::vector<double>(batches)};
        // Smoothed window ends. A count over [a, b] is exact only up to the firings that
        // straddle a and b: up to one step of every worker for a nearly periodic process, an
        // error of the order 1/k of a window holding k steps that dominates the spread across
        // replications of such a process. Each end of a window is instead the mean of the
        // column over the `block` batches that span about one mean step (the mean interval
        // between firings of one transition of the first measure), over which a periodic error
        // averages out, and the window is the distance between the two blocks' centres. A count
        // is averaged exactly, from its integral; an integral (a time average), which is
        // continuous, by the trapezoidal rule over the rows. In steady state cumulative counts
        // and integrals have stationary increments, so the estimate stays unbiased; for a
        // process without period its variance grows by a fraction of block / window. With a
        // step shorter than half a batch (block 0) the window's ends are its rows.
        std::size_t block = 0;
        {
            double activity = 0;
            const std::size_t from = batches / 4;
            for (const Replication& rep : reps)
                activity +=
                    rep.rows[batches * rw + activity_col] - rep.rows[from * rw + activity_col];
            if (activity > 0)  // batches per mean step
                block = static_cast<std::size_t>(
                    std::round(static_cast<double>((batches - from) * n_rep) *
                               activity_transitions / activity));
        }
        auto window = [&](const Replication& rep, const MeasurePlan& m, std::size_t from,
                          std::size_t to) {
            const double* rows = rep.rows.data();
            const std::size_t k = std::min(block, (to - from) / 4);
            if (k == 0)
                return measure_value(m, rows + from * rw, rows + to * rw,
                                     static_cast<double>(to - from) * batch_len);
            const double kd = static_cast<double>(k);
            // Mean of column c over batches [first, first + k).
            auto mean = [&](uint32_t c, std::size_t first) {
                const double* r = rows + first * rw;
                if (c < nc) return (r[k * rw + w + c] - r[w + c]) / (kd * batch_len);
                double s = (r[c] + r[k * rw + c]) / 2;
                for (std::size_t j = 1; j < k; ++j) s += r[j * rw + c];
                return s / kd;
            };
            return measure_value(
                m, [&](uint32_t c) { return mean(c, to - k) - mean(c, from); },
                static_cast<double>(to - from - k) * batch_len);
        };
        // A paired comparison across replications of a measure over [from_r, mid_r) and
        // [mid_r, batches): it *shifts* when the difference is significant at kDriftConfidence
        // and larger than `precision` × the level over [level_r, batches). `identical`: every
        // replication has the same difference (the counts of a nearly deterministic process
        // seen from the same start, not a trend the replications could measure).
        struct Shift {
            bool shifts = false, identical = false;
        };
        auto compare = [&](const MeasurePlan& m, auto&& split) {
            std::vector<double> diff;
            double level = 0;
            for (uint32_t r = 0; r < n_rep; ++r) {
                const auto [from, mid, level_from] = split(r);
                if (mid <= from || mid >= batches) return Shift{};
                diff.push_back(window(reps[r], m, from, mid) - window(reps[r], m, mid, batches));
                level += window(reps[r], m, level_from, batches);
            }
            level /= static_cast<double>(n_rep);
            const Interval t = student_interval(diff, kDriftConfidence);
            return Shift{std::fabs(t.mean) > t.half_width &&
                             std::fabs(t.mean) > options.precision * std::fabs(level),
                         std::all_of(diff.begin(), diff.end(),
                                     [&](double x) { return x == diff[0]; })};
        };
        suspect_transient.clear();
        for (std::size_t i = 0; i < plans.size(); ++i) {
            const MeasurePlan& m = plans[i];
            for (std::size_t b = 0; b < batches; ++b) {
                double s[2] = {0, 0};
                for (uint32_t r = 0; r < n_rep; ++r) {
                    const double* row = reps[r].rows.data() + b * rw;
                    s[r & 1] += mser_value(m, row, row + rw, batch_len);
                }
                series[b] = (s[0] + s[1]) / n_rep;
                series_part[0][b] = s[0];
                series_part[1][b] = s[1];
            }
            if (n_rep > 1) {
                // cuts[i][k]: the cut applied to replications of parity k.
                cuts[i][0] = mser_truncation(series_part[1], kMserPoints);
                cuts[i][1] = mser_truncation(series_part[0], kMserPoints);
            } else {
                cuts[i][0] = cuts[i][1] = mser_truncation(series, kMserPoints);
            }
            mser_cut[i] = std::max(cuts[i][0], cuts[i][1]);
            const auto floor_cut =
                static_cast<std::size_t>(kMinWarmupShare * static_cast<double>(batches));
            for (std::size_t& c : cuts[i]) c = std::max(c, floor_cut);
            const std::size_t cut = std::max(cuts[i][0], cuts[i][1]);
            // MSER at its limit (half the run) may be noise or a transient longer than the run:
            // a paired test across replications of first half vs second half tells them apart.
            // Only a drift that matters at the requested precision is reported.
            if (cut >= half && half > 0 && n_rep > 1 &&
                compare(m, [&](uint32_t) { return std::tuple{std::size_t{0}, half, half}; }).shifts)
                suspect_transient.push_back(net.measures[i].name);
        }

        // One estimate per replication. Without randomness, or when every replication gives
        // the same value although the net is random (a deterministic sub-process observed over
        // identical windows, whose count is only exact up to the firings straddling the window
        // ends), replication 0's kept batches are split into 16 consecutive groups instead, so
        // that the interval reflects that granularity rather than claiming zero width.
        std::vector<std::vector<double>> samples(plans.size());
        std::vector<double> sample_span(plans.size());  // simulated time behind each sample
        for (std::size_t i = 0; i < plans.size(); ++i) {
            if (!deterministic) {
                for (uint32_t r = 0; r < n_rep; ++r)
                    samples[i].push_back(window(reps[r], plans[i], cuts[i][r & 1], batches));
                sample_span[i] = static_cast<double>(batches - std::max(cuts[i][0], cuts[i][1])) *
                                 batch_len;
                const bool all_equal = std::all_of(samples[i].begin(), samples[i].end(),
                                                   [&](double x) { return x == samples[i][0]; });
                if (!all_equal) continue;
                samples[i].clear();
            }
            const std::size_t groups = kReplications;
            const std::size_t per = (batches - cuts[i][0]) / groups;
            sample_span[i] = static_cast<double>(per) * batch_len;
            const std::size_t start = batches - per * groups;
            for (std::size_t g = 0; g < groups; ++g)
                samples[i].push_back(
                    window(reps[0], plans[i], start + g * per, start + (g + 1) * per));
        }
        for (std::size_t i = 0; i < plans.size(); ++i) {
            const Interval ci = student_interval(samples[i], options.confidence);
            MeasureEstimate& est = result.measures[i];
            est.mean = ci.mean;
            est.ci_low = ci.mean - ci.half_width;
            est.ci_high = ci.mean + ci.half_width;
            // A throughput whose transitions never fired in any window is not known to be 0:
            // with no firing in a total time T the rate is below −ln(1 − confidence)/T at the
            // requested confidence (Poisson), so the interval is [0, that bound × max |coef|].
            if (plans[i].kind == net::Measure::Kind::Throughput && ci.half_width == 0 &&
                ci.mean == 0 && plans[i].max_coef > 0) {
                const double span = sample_span[i] * static_cast<double>(samples[i].size());
                est.ci_high = -std::log1p(-options.confidence) / span * plans[i].max_coef;
                est.ci_low = 0;
                est.mean = 0;
            }
        }
        // Enough activity: every replication's kept window of the first measure holds at least
        // kMinWindowActivity firings per transition of the measure (the batch-group fallback:
        // every group).
        bool enough_activity = true;
        if (!columns[activity_col].empty()) {  // empty: a constant expression
            const std::size_t cut0 = std::max(cuts[0][0], cuts[0][1]);
            double least = std::numeric_limits<double>::infinity();
            for (uint32_t r = 0; r < n_rep; ++r) {
                const double* a = reps[r].rows.data() + cut0 * rw;
                const double* b = reps[r].rows.data() + batches * rw;
                least = std::min(least, b[activity_col] - a[activity_col]);
            }
            // With the fallback, samples come from groups of replication 0: scale down.
            const double group_share = sample_span[0] /
                                       (static_cast<double>(batches - cut0) * batch_len);
            if (group_share < 0.999) least *= group_share;
            enough_activity = least >= kMinWindowActivity * activity_transitions;
        }
        // Warm-up of the first measure. Every replication starts in the same state, so a
        // transient left in the kept windows biases all estimates alike and the interval does
        // not show it. Two signs keep the run going (each must be significant in a paired test
        // across replications at kDriftConfidence and larger than `precision` × the estimate):
        // an MSER cut beyond kMaxWarmupShare of the run whose removed head differs from the kept
        // tail (the run is too short to tell where the transient ends), or a kept window whose
        // two halves differ (a slow approach that MSER does not cut on a short run).
        first_cut = mser_cut[0];
        long_warmup = drifting = false;
        if (n_rep > 1 && !deterministic) {
            const auto& cut0 = cuts[0];
            if (static_cast<double>(first_cut) > kMaxWarmupShare * static_cast<double>(batches)) {
                const Shift s = compare(plans[0], [&](uint32_t r) {
                    return std::tuple{std::size_t{0}, cut0[r & 1], cut0[r & 1]};
                });
                long_warmup = s.shifts && !s.identical;
            } else {
                const Shift s = compare(plans[0], [&](uint32_t r) {
                    return std::tuple{cut0[r & 1], (cut0[r & 1] + batches) / 2, cut0[r & 1]};
                });
                drifting = s.shifts && !s.identical;
            }
        }
        const bool warmed_up = !long_warmup && !drifting;
        const MeasureEstimate& first = result.measures.front();
        const double hw = (first.ci_high - first.ci_low) / 2;
        // The previous round's half-width, scaled to this round's doubled length, must meet the
        // target too: stopping on one round's interval alone would stop preferentially where
        // the spread across replications came out small by chance (15 degrees of freedom), and
        // such intervals cover less often than their level.
        const double expected_hw = prev_hw / std::sqrt(2.0);
        prev_hw = hw;
        if (enough_activity && warmed_up && hw <= options.precision * std::fabs(first.mean) &&
            expected_hw <= options.precision * std::fabs(first.mean)) {
            result.precision_reached = true;
            break;
        }
        // The next round simulates as much as all previous ones together: start it only if it
        // is expected to finish within the wall-clock cap.
        if (2 * seconds_since(t0) > options.max_time_s) {
            result.precision_reached = false;
            break;
        }
        if (batches >= kMaxBatches) {
            for (Replication& rep : reps) {
                for (std::size_t b = 1; 2 * b <= batches; ++b)
                    std::copy_n(rep.rows.data() + 2 * b * rw, rw, rep.rows.data() + b * rw);
                rep.rows.resize((batches / 2 + 1) * rw);
            }
            batches /= 2;
            batch_len *= 2;
        }
        target = 2 * batches;
    }

    for (const Replication& rep : reps) {
        if (!rep.engine) continue;
        ++result.stats.replications;
        result.stats.events += rep.engine->events();
        result.stats.simulated_s += rep.engine->now();
    }
    result.stats.wall_s = seconds_since(t0);
    if (!result.precision_reached) {
        const MeasureEstimate& first = result.measures.front();
        const double rel = (first.ci_high - first.ci_low) / 2 / std::fabs(first.mean);
        result.warnings.push_back("precision not reached within " + fmt(options.max_time_s) +
                                  " s: relative half-width of '" + first.name + "' is " +
                                  fmt(rel) + " > " + fmt(options.precision) +
                                  "; the estimate is the best so far");
    }
    if (!result.precision_reached && drifting)
        result.warnings.push_back("measure '" + result.measures.front().name +
                                  "' still drifts between the halves of the kept run: the "
                                  "estimate may be biased");
    else if (!result.precision_reached && long_warmup)
        result.warnings.push_back(
            "the warm-up of '" + result.measures.front().name + "' was still " +
            fmt(static_cast<double>(first_cut) * batch_len) + " s of the " +
            fmt(static_cast<double>(batches) * batch_len) +
            " s simulated per replication (more than an eighth): the estimate may be biased");
    const bool first_warned = !result.precision_reached && (drifting || long_warmup);
    for (const std::string& name : suspect_transient) {
        if (first_warned && name == result.measures.front().name) continue;  // said above
        result.warnings.push_back("measure '" + name +
                                  "' still drifts over the whole run (warm-up removal cut half of "
                                  "it and the halves differ): the estimate may be biased");
    }
    return result;
}

}  // namespace

}  // namespace sgdnet::solver
