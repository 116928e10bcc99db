// Monte Carlo steady-state estimation: TBB replications, sequential stopping, ordered reduction.
//
// Method (docs/solver-sim.md): a pilot run fixes the batch length; kReplications independent
// replications (stream = replication index) are simulated in rounds, each round doubling every
// replication's simulated length; after each round the MSER truncation point of the
// cross-replication batch-mean series removes the warm-up, each replication yields one estimate
// per measure over the kept span, and a Student-t interval across replications is formed.
// Stopping is checked only between rounds, so the batches used never depend on timing or on
// the thread count. Nets that draw no random number are solved exactly by finding the period
// of their trajectory.
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "solver/sim_engine.hpp"
#include "solver/sim_estimators.hpp"
#include "solver/solve.hpp"

namespace sgdnet::solver {

namespace {

using Clock = std::chrono::steady_clock;
using Status = SimEngine::Status;

constexpr uint32_t kReplications = 16;
constexpr uint64_t kPilotEvents = 20'000;
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

[[noreturn]] void throw_status(const CompiledNet& cn, const SimEngine& e, Status st,
                               const std::string& where) {
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
        case Status::Aborted: break;
    }
    throw SolveError(SolveError::Kind::Invalid, "simulation stopped" + at);
}

/// How each measure reads a snapshot row.
struct MeasurePlan {
    net::Measure::Kind kind;
    std::vector<std::pair<uint32_t, double>> terms;  // (column, coef)
    uint32_t expr_col = 0;
};

/// Value of measure `m` over a window of length `span` given the row difference `diff`.
double measure_value(const MeasurePlan& m, const double* diff, double span) {
    switch (m.kind) {
        case net::Measure::Kind::Throughput: {
            double s = 0;
            for (auto [col, coef] : m.terms) s += coef * diff[col];
            return s / span;
        }
        case net::Measure::Kind::TimeAverage: return diff[m.expr_col] / span;
        case net::Measure::Kind::MeanInverseThroughput: {
            double s = 0;
            for (auto [col, coef] : m.terms)
                s += diff[col] > 0 ? coef * span / diff[col] : std::numeric_limits<double>::infinity();
            return s;
        }
    }
    return 0;
}

/// Series used by MSER for a measure: its batch value, or for an inverse-throughput measure
/// the total throughput of its terms (finite in every batch).
double mser_value(const MeasurePlan& m, const double* diff, double span) {
    if (m.kind != net::Measure::Kind::MeanInverseThroughput) return measure_value(m, diff, span);
    double s = 0;
    for (auto [col, coef] : m.terms) s += diff[col];
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
    std::vector<double> sigs, snaps, sig, snap(w), diff(w);
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
            for (uint32_t c = 0; c < w; ++c) diff[c] = snap[c] - snaps[rec.snap_begin + c];
            values.clear();
            for (const MeasurePlan& m : plans) values.push_back(measure_value(m, diff.data(), period));
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

/// Per-replication state kept across rounds.
struct Replication {
    std::unique_ptr<SimEngine> engine;
    std::vector<double> rows;  // (batches + 1) snapshot rows of width w
    Status status = Status::Ok;
};

}  // namespace

SolveResult simulate(const net::PetriNet& net, const SolveOptions& options) {
    const Clock::time_point t0 = Clock::now();
    if (const auto problems = net::validate(net); !problems.empty())
        throw SolveError(SolveError::Kind::Invalid, "invalid net: " + problems.front());
    if (!(options.confidence > 0 && options.confidence < 1))
        throw SolveError(SolveError::Kind::Invalid, "confidence must lie in (0, 1)");

    // Measures → counted transitions and time-averaged expressions.
    std::vector<uint32_t> counted;
    std::vector<net::MarkingExpr> tracked;
    std::vector<MeasurePlan> plans;
    for (const net::Measure& m : net.measures) {
        MeasurePlan p{m.kind, {}, 0};
        if (m.kind == net::Measure::Kind::TimeAverage) {
            p.expr_col = static_cast<uint32_t>(tracked.size());
            tracked.push_back(m.expr);
        } else {
            for (const net::Measure::Term& term : m.terms) {
                auto it = std::find(counted.begin(), counted.end(), term.transition.value);
                if (it == counted.end()) it = counted.insert(counted.end(), term.transition.value);
                p.terms.push_back({static_cast<uint32_t>(it - counted.begin()), term.coef});
            }
        }
        plans.push_back(std::move(p));
    }
    for (MeasurePlan& p : plans)
        if (p.kind == net::Measure::Kind::TimeAverage)
            p.expr_col += static_cast<uint32_t>(counted.size());
    const CompiledNet cn = CompiledNet::build(net, tracked, counted, options.unbounded_tokens);
    const uint32_t w = cn.snapshot_width();

    SolveResult result;
    result.solver = "sim";
    for (const net::Measure& m : net.measures)
        result.measures.push_back({m.name, 0, 0, 0, m.unit});

    // Pilot: fixes the batch length and detects nets without randomness.
    SimEngine pilot(cn, options.seed, kPilotStream);
    if (const Status st = pilot.run_events(kPilotEvents); st != Status::Ok)
        throw_status(cn, pilot, st, "pilot run");
    const double pilot_time = pilot.now();
    if (!(pilot_time > 0))
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

    double batch_len = pilot_time * kBatchEvents / static_cast<double>(kPilotEvents);
    std::size_t batches = 0;
    std::size_t target = kFirstRoundBatches;
    std::vector<Replication> reps(n_rep);
    tbb::task_arena arena(options.threads == 0 ? tbb::task_arena::automatic
                                               : static_cast<int>(options.threads));
    std::vector<std::string> suspect_transient;
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
                    rep.rows.assign(w, 0.0);
                }
                rep.rows.reserve((target + 1) * w);
                for (std::size_t b = batches + 1; b <= target; ++b) {
                    rep.status = rep.engine->run_until(static_cast<double>(b) * batch_len, deadline);
                    if (rep.status != Status::Ok) return;
                    const std::size_t at = rep.rows.size();
                    rep.rows.resize(at + w);
                    rep.engine->snapshot(rep.rows.data() + at);
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

        // Warm-up: MSER on the cross-replication mean series of each measure.
        const std::size_t half = batches / 2;
        std::vector<std::size_t> cuts(plans.size());
        std::vector<double> series(batches), diff(w);
        auto window = [&](const Replication& rep, const MeasurePlan& m, std::size_t from,
                          std::size_t to) {
            const double* a = rep.rows.data() + from * w;
            const double* b = rep.rows.data() + to * w;
            for (uint32_t c = 0; c < w; ++c) diff[c] = b[c] - a[c];
            return measure_value(m, diff.data(), static_cast<double>(to - from) * batch_len);
        };
        suspect_transient.clear();
        for (std::size_t i = 0; i < plans.size(); ++i) {
            const MeasurePlan& m = plans[i];
            for (std::size_t b = 0; b < batches; ++b) {
                double s = 0;
                for (const Replication& rep : reps) {
                    const double* row = rep.rows.data() + b * w;
                    for (uint32_t c = 0; c < w; ++c) diff[c] = row[w + c] - row[c];
                    s += mser_value(m, diff.data(), batch_len);
                }
                series[b] = s / n_rep;
            }
            cuts[i] = mser_truncation(series);
            // MSER at its limit (half the run) may be noise or a transient longer than the run:
            // a paired test across replications of first half vs second half tells them apart.
            if (cuts[i] >= half && half > 0 && n_rep > 1) {
                std::vector<double> d;
                for (const Replication& rep : reps)
                    d.push_back(window(rep, m, 0, half) - window(rep, m, half, batches));
                // Only a drift that matters at the requested precision is reported.
                const Interval t = student_interval(d, 0.999);
                double level = 0;
                for (const Replication& rep : reps) level += window(rep, m, half, batches);
                level /= n_rep;
                if (std::fabs(t.mean) > t.half_width &&
                    std::fabs(t.mean) > options.precision * std::fabs(level))
                    suspect_transient.push_back(net.measures[i].name);
            }
        }

        // One estimate per replication. Without randomness, or when every replication gives
        // the same value although the net is random (a deterministic sub-process observed over
        // identical windows, whose count is only exact up to the firings straddling the window
        // ends), replication 0's kept batches are split into 16 consecutive groups instead, so
        // that the interval reflects that granularity rather than claiming zero width.
        std::vector<std::vector<double>> samples(plans.size());
        for (std::size_t i = 0; i < plans.size(); ++i) {
            if (!deterministic) {
                for (const Replication& rep : reps)
                    samples[i].push_back(window(rep, plans[i], cuts[i], batches));
                const bool all_equal = std::all_of(samples[i].begin(), samples[i].end(),
                                                   [&](double x) { return x == samples[i][0]; });
                if (!all_equal) continue;
                samples[i].clear();
            }
            const std::size_t groups = kReplications;
            const std::size_t per = (batches - cuts[i]) / groups;
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
        }
        const MeasureEstimate& first = result.measures.front();
        const double hw = (first.ci_high - first.ci_low) / 2;
        if (hw <= options.precision * std::fabs(first.mean)) {
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
                    std::copy_n(rep.rows.data() + 2 * b * w, w, rep.rows.data() + b * w);
                rep.rows.resize((batches / 2 + 1) * w);
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
    for (const std::string& name : suspect_transient)
        result.warnings.push_back("measure '" + name +
                                  "' still drifts over the whole run (warm-up removal cut half of "
                                  "it and the halves differ): the estimate may be biased");
    return result;
}

}  // namespace sgdnet::solver
