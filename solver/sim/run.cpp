// Monte Carlo steady-state estimation: TBB replications, sequential stopping, ordered reduction.
//
// Method (docs/solver-sim.md): a pilot run fixes the batch length; kReplications independent
// replications (stream = replication index) are simulated in rounds, each round doubling every
// replication's simulated length; after each round the MSER truncation point of the
// cross-replication batch-mean series removes the warm-up, each replication yields one estimate
// per measure over the kept span (its ends averaged over about one step), and a Student-t
// interval across replications is formed (estimate.cpp).
// Stopping is checked only between rounds, so the batches used never depend on timing or on
// the thread count. Nets that draw no random number are solved exactly by finding the period
// of their trajectory.
//
// simulate_from() runs the steps in order: plan_columns() → start_pilot() → (solve_periodic())
// → choose_batching() → run_rounds() (each round: extend_replications(), estimate_round(),
// StoppingRule) → add_replication_stats(), add_warnings().
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "solver/sim/engine.hpp"
#include "solver/sim/estimate.hpp"
#include "solver/solve.hpp"

namespace sgdnet::solver {

namespace {

using Clock = std::chrono::steady_clock;
using Status = SimEngine::Status;
using sim::ColumnPlan;
using sim::kReplications;
using sim::measure_value;
using sim::MeasurePlan;
using sim::RoundEstimate;
using sim::RoundRows;
using sim::RowLayout;

constexpr uint64_t kPilotEvents = 20'000;
// The pilot continues (doubling) until the first measure's transitions fired kPilotActivity
// times, up to kMaxPilotEvents timed firings.
constexpr double kPilotActivity = 20;
// ... and until each of them fired kPilotActivityPerTransition times on average.
constexpr double kPilotActivityPerTransition = 4;
constexpr uint64_t kMaxPilotEvents = 2'000'000;
// A batch is long enough for kBatchActivity firings of the first measure's transitions.
constexpr double kBatchActivity = 2;
constexpr double kBatchEvents = 1'000;        // target timed firings per batch (one replication)
constexpr std::size_t kFirstRoundBatches = 32;
constexpr std::size_t kMaxBatches = 512;      // more → adjacent batches are merged
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

/// What every step of one simulation reads.
struct Setup {
    const net::PetriNet& net;
    const SolveOptions& options;
    Clock::time_point t0;  // when simulate() was called
    const ColumnPlan& plan;
    const CompiledNet& cn;
    RowLayout row;
};

void check_inputs(const net::PetriNet& net, const SolveOptions& options) {
    if (const auto problems = net::validate(net); !problems.empty())
        throw SolveError(SolveError::Kind::Invalid, "invalid net: " + problems.front());
    if (!(options.confidence > 0 && options.confidence < 1))
        throw SolveError(SolveError::Kind::Invalid, "confidence must lie in (0, 1)");
}

SolveResult empty_result(const net::PetriNet& net) {
    SolveResult result;
    result.solver = "sim";
    for (const net::Measure& m : net.measures)
        result.measures.push_back({m.name, 0, 0, 0, m.unit});
    return result;
}

/// A replication's row: its snapshot (count columns first), then ∫ count dt of every count
/// column.
RowLayout row_layout(const CompiledNet& cn) {
    const uint32_t w = cn.snapshot_width();
    const uint32_t nc = cn.num_count_columns;
    return {w, nc, w + nc};
}

void record(const SimEngine& e, const RowLayout& row, double* out) {
    e.snapshot(out);
    e.count_integrals(out + row.w);
}

/// The first measure's activity so far (ColumnPlan::activity_col).
double activity_of(const Setup& s, const SimEngine& e) {
    std::vector<double> row(s.row.w);
    e.snapshot(row.data());
    return row[s.plan.activity_col];
}

/// Pilot: its first kPilotEvents timed firings must advance time. It then tells nets without
/// randomness (no random draw) and fixes the batch length (choose_batching()).
void start_pilot(const CompiledNet& cn, SimEngine& pilot) {
    if (const Status st = pilot.run_events(kPilotEvents); st != Status::Ok)
        throw_status(cn, pilot, st, "pilot run");
    if (!(pilot.now() > 0))
        throw SolveError(SolveError::Kind::Deadlock,
                         "time does not advance: " + std::to_string(kPilotEvents) +
                             " timed firings all happen at t=0");
}

/// The result of a run that ends with the pilot: a net without randomness whose period gave
/// the exact `values` (one replication), or a net without measures (no replication).
SolveResult pilot_result(SolveResult result, const std::vector<double>& values,
                         uint64_t replications, const SimEngine& pilot, Clock::time_point t0) {
    for (std::size_t i = 0; i < values.size(); ++i)
        result.measures[i].mean = result.measures[i].ci_low = result.measures[i].ci_high =
            values[i];
    result.stats.replications = replications;
    result.stats.events = pilot.events();
    result.stats.simulated_s = pilot.now();
    result.stats.wall_s = seconds_since(t0);
    return result;
}

/// The batch grid fixed by the pilot.
struct Batching {
    double batch_len = 0;   // simulated time per batch
    double phase_span = 0;  // replication r's first row is at phase_offset(seed, r) · phase_span
};

/// Batch length: ≈ kBatchEvents timed firings, and long enough for kBatchActivity firings of
/// the first measure. A measure that fires rarely extends the pilot (doubling) until it has
/// fired kPilotActivity times or the pilot reached kMaxPilotEvents timed firings.
Batching choose_batching(const Setup& s, SimEngine& pilot, bool deterministic) {
    const double activity_transitions = s.plan.activity_transitions;
    uint64_t pilot_events = kPilotEvents;
    if (!deterministic) {
        const double least =
            std::max(kPilotActivity, kPilotActivityPerTransition * activity_transitions);
        while (activity_of(s, pilot) < least && pilot_events < kMaxPilotEvents) {
            if (const Status st = pilot.run_events(pilot_events); st != Status::Ok)
                throw_status(s.cn, pilot, st, "pilot run");
            pilot_events *= 2;
        }
    }
    const double pilot_time = pilot.now();
    const double pilot_activity = activity_of(s, pilot);
    Batching out;
    out.batch_len = pilot_time * kBatchEvents / static_cast<double>(pilot_events);
    if (pilot_activity > 0)
        out.batch_len = std::max(out.batch_len, pilot_time * kBatchActivity / pilot_activity);
    // Replications start their batches at a random phase within one mean interval between
    // firings of one of the first measure's transitions (a step of one worker), or one batch
    // if that is longer.
    out.phase_span =
        pilot_activity > 0
            ? std::max(out.batch_len, pilot_time * activity_transitions / pilot_activity)
            : out.batch_len;
    return out;
}

/// The replications and their batch grid, carried from round to round.
struct Rounds {
    std::vector<Replication> reps;
    double phase_span = 0;
    double batch_len = 0;      // doubles when adjacent batches are merged
    std::size_t batches = 0;   // batches every replication holds
    std::size_t target = kFirstRoundBatches;  // batches after the next round
};

/// The first round always completes; later ones stop at the cap (a cap beyond a year is
/// treated as none, which also keeps the time_point arithmetic in range).
Clock::time_point round_deadline(int round, const SolveOptions& options, Clock::time_point t0) {
    return round == 0 || !(options.max_time_s < 3.2e7)
               ? Clock::time_point::max()
               : t0 + std::chrono::duration_cast<Clock::duration>(
                          std::chrono::duration<double>(options.max_time_s));
}

/// Extends replication r to rounds.target batches, recording a row at every batch boundary;
/// a new replication first runs to its phase offset. Stops early on a status other than Ok.
void extend_replication(const Setup& s, const Rounds& rounds, uint32_t r,
                        Clock::time_point deadline, Replication& rep) {
    const uint32_t rw = s.row.rw;
    if (!rep.engine) {
        rep.engine = std::make_unique<SimEngine>(s.cn, s.options.seed, r);
        // Batch boundaries of replication r start at a pseudo-random offset in [0, L): with
        // every replication started in the same state, a nearly periodic process would
        // otherwise put the same firings at the window ends in every replication, and the
        // count's discretisation error would be common to all of them (unseen by the
        // interval). With a random phase the count over a window is unbiased and its error
        // independent.
        rep.offset = phase_offset(s.options.seed, r) * rounds.phase_span;
        rep.status = rep.engine->run_until(rep.offset, deadline);
        if (rep.status != Status::Ok) return;
        rep.rows.resize(rw);
        record(*rep.engine, s.row, rep.rows.data());
    }
    rep.rows.reserve((rounds.target + 1) * rw);
    for (std::size_t b = rounds.batches + 1; b <= rounds.target; ++b) {
        rep.status = rep.engine->run_until(
            rep.offset + static_cast<double>(b) * rounds.batch_len, deadline);
        if (rep.status != Status::Ok) return;
        const std::size_t at = rep.rows.size();
        rep.rows.resize(at + rw);
        record(*rep.engine, s.row, rep.rows.data() + at);
    }
}

/// One round: every replication extended in parallel. Throws the error of the first
/// replication (by index) that stopped on one; returns false if one reached the wall-clock cap.
bool extend_replications(const Setup& s, Rounds& rounds, tbb::task_arena& arena,
                         Clock::time_point deadline) {
    const auto n_rep = static_cast<uint32_t>(rounds.reps.size());
    arena.execute([&] {
        tbb::parallel_for(uint32_t{0}, n_rep, [&](uint32_t r) {
            extend_replication(s, rounds, r, deadline, rounds.reps[r]);
        });
    });
    bool aborted = false;
    for (uint32_t r = 0; r < n_rep; ++r) {
        const Status st = rounds.reps[r].status;
        if (st == Status::Aborted) aborted = true;
        else if (st != Status::Ok)
            throw_status(s.cn, *rounds.reps[r].engine, st, "replication " + std::to_string(r));
    }
    return !aborted;
}

RoundRows round_rows(const Setup& s, const Rounds& rounds) {
    RoundRows rr{{}, s.row, rounds.batches, rounds.batch_len};
    for (const Replication& rep : rounds.reps) rr.rows.push_back(rep.rows.data());
    return rr;
}

/// Stopping rule on the first measure: enough activity, no warm-up left, and its relative
/// half-width at most `precision`.
struct StoppingRule {
    double precision;
    double prev_hw = 0;  // the first measure's half-width in the previous round

    bool met(const RoundEstimate& est, const MeasureEstimate& first) {
        const bool warmed_up = !est.long_warmup && !est.drifting;
        const double hw = (first.ci_high - first.ci_low) / 2;
        // The previous round's half-width, scaled to this round's doubled length, must meet
        // the target too: stopping on one round's interval alone would stop preferentially
        // where the spread across replications came out small by chance (15 degrees of
        // freedom), and such intervals cover less often than their level.
        const double expected_hw = prev_hw / std::sqrt(2.0);
        prev_hw = hw;
        return est.enough_activity && warmed_up && hw <= precision * std::fabs(first.mean) &&
               expected_hw <= precision * std::fabs(first.mean);
    }
};

/// SolveOptions::on_progress after round `round` (0-based) with the first measure's estimate.
void report_progress(const Setup& s, const Rounds& rounds, int round,
                     const MeasureEstimate& first) {
    SimProgress p;
    p.rounds = round + 1;
    const double hw = (first.ci_high - first.ci_low) / 2;
    p.relative_half_width = first.mean != 0 ? hw / std::fabs(first.mean)
                            : hw == 0       ? 0
                                            : std::numeric_limits<double>::infinity();
    p.precision = s.options.precision;
    for (const Replication& rep : rounds.reps) {
        if (rep.engine) p.events += rep.engine->events();
    }
    p.wall_s = seconds_since(s.t0);
    s.options.on_progress(p);
}

/// Beyond kMaxBatches, adjacent batches are merged: every other row is kept.
void merge_batches(Rounds& rounds, uint32_t rw) {
    for (Replication& rep : rounds.reps) {
        for (std::size_t b = 1; 2 * b <= rounds.batches; ++b)
            std::copy_n(rep.rows.data() + 2 * b * rw, rw, rep.rows.data() + b * rw);
        rep.rows.resize((rounds.batches / 2 + 1) * rw);
    }
    rounds.batches /= 2;
    rounds.batch_len *= 2;
}

/// Rounds until the stopping rule is met or the wall-clock cap is near; each round doubles
/// every replication's length and estimates the measures into `result`. Returns the last
/// completed round's estimate.
RoundEstimate run_rounds(const Setup& s, bool deterministic, Rounds& rounds,
                         SolveResult& result) {
    tbb::task_arena arena(s.options.threads == 0 ? tbb::task_arena::automatic
                                                 : static_cast<int>(s.options.threads));
    StoppingRule stop{s.options.precision};
    RoundEstimate last;
    for (int round = 0;; ++round) {
        if (!extend_replications(s, rounds, arena, round_deadline(round, s.options, s.t0))) {
            result.precision_reached = false;
            break;  // keep the previous round's estimate
        }
        rounds.batches = rounds.target;
        last = estimate_round(round_rows(s, rounds), s.plan, s.net, deterministic, s.options,
                              result.measures);
        if (s.options.on_progress) report_progress(s, rounds, round, result.measures.front());
        if (stop.met(last, result.measures.front())) {
            result.precision_reached = true;
            break;
        }
        // The next round simulates as much as all previous ones together: start it only if
        // it is expected to finish within the wall-clock cap.
        if (2 * seconds_since(s.t0) > s.options.max_time_s) {
            result.precision_reached = false;
            break;
        }
        if (rounds.batches >= kMaxBatches) merge_batches(rounds, s.row.rw);
        rounds.target = 2 * rounds.batches;
    }
    return last;
}

void add_replication_stats(SolveResult& result, const std::vector<Replication>& reps,
                           Clock::time_point t0) {
    for (const Replication& rep : reps) {
        if (!rep.engine) continue;
        ++result.stats.replications;
        result.stats.events += rep.engine->events();
        result.stats.simulated_s += rep.engine->now();
    }
    result.stats.wall_s = seconds_since(t0);
}

/// Warnings: precision not reached (and why, for the first measure), measures still drifting.
void add_warnings(SolveResult& result, const SolveOptions& options, const RoundEstimate& last,
                  const Rounds& rounds) {
    const MeasureEstimate& first = result.measures.front();
    if (!result.precision_reached) {
        const double rel = (first.ci_high - first.ci_low) / 2 / std::fabs(first.mean);
        result.warnings.push_back("precision not reached within " + fmt(options.max_time_s) +
                                  " s: relative half-width of '" + first.name + "' is " +
                                  fmt(rel) + " > " + fmt(options.precision) +
                                  "; the estimate is the best so far");
    }
    if (!result.precision_reached && last.drifting)
        result.warnings.push_back("measure '" + first.name +
                                  "' still drifts between the halves of the kept run: the "
                                  "estimate may be biased");
    else if (!result.precision_reached && last.long_warmup)
        result.warnings.push_back(
            "the warm-up of '" + first.name + "' was still " +
            fmt(static_cast<double>(last.first_cut) * rounds.batch_len) + " s of the " +
            fmt(static_cast<double>(rounds.batches) * rounds.batch_len) +
            " s simulated per replication (more than an eighth): the estimate may be biased");
    const bool first_warned = !result.precision_reached && (last.drifting || last.long_warmup);
    for (const std::string& name : last.suspect_transient) {
        if (first_warned && name == first.name) continue;  // said above
        result.warnings.push_back("measure '" + name +
                                  "' still drifts over the whole run (warm-up removal cut half of "
                                  "it and the halves differ): the estimate may be biased");
    }
}

SolveResult simulate_from(const net::PetriNet& net, const SolveOptions& options,
                          Clock::time_point t0, Fusion fusion);

}  // namespace

SolveResult simulate(const net::PetriNet& net, const SolveOptions& options) {
    const Clock::time_point t0 = Clock::now();
    if (options.fuse_chains) {
        try {
            return simulate_from(net, options, t0, Fusion::On);
        } catch (const ChainOverlap&) {
            // A chain holds two tokens at once somewhere: run the net as it is.
        }
    }
    return simulate_from(net, options, t0, Fusion::Off);
}

namespace {

/// One simulation of `net`, its private chains fused or not.
SolveResult simulate_from(const net::PetriNet& net, const SolveOptions& options,
                          Clock::time_point t0, Fusion fusion) {
    check_inputs(net, options);
    const ColumnPlan plan = sim::plan_columns(net);
    const CompiledNet cn = CompiledNet::build_columns(net, plan.tracked, plan.columns,
                                                      options.unbounded_tokens, fusion);
    const Setup s{net, options, t0, plan, cn, row_layout(cn)};
    SolveResult result = empty_result(net);

    SimEngine pilot(cn, options.seed, kPilotStream);
    start_pilot(cn, pilot);
    if (pilot.rng_draws() == 0) {
        std::vector<double> values;
        if (solve_periodic(cn, pilot, plan.plans, values))
            return pilot_result(std::move(result), values, 1, pilot, t0);
    }
    if (plan.plans.empty()) return pilot_result(std::move(result), {}, 0, pilot, t0);
    // A net without randomness whose period was not found: every replication would be the
    // same, so one replication is run and its batches give the interval.
    const bool deterministic = pilot.rng_draws() == 0;
    const Batching batching = choose_batching(s, pilot, deterministic);

    Rounds rounds{std::vector<Replication>(deterministic ? 1 : kReplications),
                  batching.phase_span, batching.batch_len};
    const RoundEstimate last = run_rounds(s, deterministic, rounds, result);
    add_replication_stats(result, rounds.reps, t0);
    add_warnings(result, options, last, rounds);
    return result;
}

}  // namespace

}  // namespace sgdnet::solver
