// Steady-state estimates from the batch rows of the replications (docs/solver-sim.md,
// Estimation, steps 4–6): the measures' count columns, smoothed windows, cross-fitted MSER
// warm-up cuts, Student-t intervals and the warm-up tests of the stopping rule.
#include "solver/sim/estimate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <tuple>
#include <unordered_map>

#include "solver/sim/estimators.hpp"

namespace sgdnet::solver::sim {

namespace {

// Precision is only claimed when every replication's kept window holds at least this many
// firings of the first measure's transitions per transition of the measure.
constexpr double kMinWindowActivity = 10;
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

/// Activity of the first measure: the firings of its transitions, or for a time average of
/// the transitions that change a place its expression reads (empty for a constant expression
/// or a net without measures). `transitions`: the number of transitions it is spread over.
CompiledNet::CountColumn activity_column(const net::PetriNet& net, double& transitions) {
    CompiledNet::CountColumn act;
    if (net.measures.empty()) return act;
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
        transitions = std::max<double>(1, static_cast<double>(ts.size()));
    }
    return act;
}

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

/// Series used by MSER for a measure: its batch value, or for an inverse-throughput measure
/// the total throughput of its terms (finite in every batch).
double mser_value(const MeasurePlan& m, const double* a, const double* b, double span) {
    if (m.kind != net::Measure::Kind::MeanInverseThroughput) return measure_value(m, a, b, span);
    double s = 0;
    for (auto [col, coef] : m.terms) s += b[col] - a[col];
    return s / span;
}

/// A paired comparison across replications (Windows::compare()).
struct Shift {
    bool shifts = false, identical = false;
};

/// A round's rows read as windows with smoothed ends. A count over [a, b] is exact only up to
/// the firings that straddle a and b: up to one step of every worker for a nearly periodic
/// process, an error of the order 1/k of a window holding k steps that dominates the spread
/// across replications of such a process. Each end of a window is instead the mean of the
/// column over the `block` batches that span about one mean step (the mean interval between
/// firings of one transition of the first measure), over which a periodic error averages out,
/// and the window is the distance between the two blocks' centres. A count is averaged
/// exactly, from its integral; an integral (a time average), which is continuous, by the
/// trapezoidal rule over the rows. In steady state cumulative counts and integrals have
/// stationary increments, so the estimate stays unbiased; for a process without period its
/// variance grows by a fraction of block / window. With a step shorter than half a batch
/// (block 0) the window's ends are its rows.
struct Windows {
    const RoundRows& rr;
    std::size_t block = 0;

    uint32_t replications() const { return static_cast<uint32_t>(rr.rows.size()); }

    /// Value of measure `m` in replication `r` over batches [from, to).
    double value(uint32_t r, const MeasurePlan& m, std::size_t from, std::size_t to) const {
        const uint32_t w = rr.layout.w, nc = rr.layout.nc, rw = rr.layout.rw;
        const double batch_len = rr.batch_len;
        const double* rows = rr.rows[r];
        const std::size_t k = std::min(block, (to - from) / 4);
        if (k == 0)
            return measure_value(m, rows + from * rw, rows + to * rw,
                                 static_cast<double>(to - from) * batch_len);
        const double kd = static_cast<double>(k);
        // Mean of column c over batches [first, first + k).
        auto mean = [&](uint32_t c, std::size_t first) {
            const double* row = rows + first * rw;
            if (c < nc) return (row[k * rw + w + c] - row[w + c]) / (kd * batch_len);
            double s = (row[c] + row[k * rw + c]) / 2;
            for (std::size_t j = 1; j < k; ++j) s += row[j * rw + c];
            return s / kd;
        };
        return measure_value(
            m, [&](uint32_t c) { return mean(c, to - k) - mean(c, from); },
            static_cast<double>(to - from - k) * batch_len);
    }

    /// A paired comparison across replications of a measure over [from_r, mid_r) and
    /// [mid_r, batches), with (from_r, mid_r, level_r) = split(r): it *shifts* when the
    /// difference is significant at kDriftConfidence and larger than `precision` × the level
    /// over [level_r, batches). `identical`: every replication has the same difference (the
    /// counts of a nearly deterministic process seen from the same start, not a trend the
    /// replications could measure).
    template <class Split>
    Shift compare(const MeasurePlan& m, Split&& split, double precision) const {
        const std::size_t batches = rr.batches;
        const uint32_t n_rep = replications();
        std::vector<double> diff;
        double level = 0;
        for (uint32_t r = 0; r < n_rep; ++r) {
            const auto [from, mid, level_from] = split(r);
            if (mid <= from || mid >= batches) return Shift{};
            diff.push_back(value(r, m, from, mid) - value(r, m, mid, batches));
            level += value(r, m, level_from, batches);
        }
        level /= static_cast<double>(n_rep);
        const Interval t = student_interval(diff, kDriftConfidence);
        return Shift{std::fabs(t.mean) > t.half_width &&
                         std::fabs(t.mean) > precision * std::fabs(level),
                     std::all_of(diff.begin(), diff.end(),
                                 [&](double x) { return x == diff[0]; })};
    }
};

/// The smoothing block: the number of batches in one mean step (the mean interval between
/// firings of one of the first measure's transitions over the last three quarters of the
/// round, all replications pooled), 0 without activity.
std::size_t smoothing_block(const RoundRows& rr, const ColumnPlan& plan) {
    const std::size_t batches = rr.batches, rw = rr.layout.rw;
    const uint32_t activity_col = plan.activity_col;
    const auto n_rep = static_cast<uint32_t>(rr.rows.size());
    double activity = 0;
    const std::size_t from = batches / 4;
    for (const double* rows : rr.rows)
        activity += rows[batches * rw + activity_col] - rows[from * rw + activity_col];
    if (!(activity > 0)) return 0;
    // batches per mean step
    return static_cast<std::size_t>(std::round(static_cast<double>((batches - from) * n_rep) *
                                               plan.activity_transitions / activity));
}

/// Warm-up cuts of every measure, in batches.
struct WarmupCuts {
    /// cuts[i][k]: the cut applied to replications of parity k (kMinWarmupShare floor included).
    std::vector<std::array<std::size_t, 2>> cuts;
    /// MSER's cut, before the kMinWarmupShare floor.
    std::vector<std::size_t> mser;
};

/// Warm-up: MSER on the cross-replication mean series of each measure. With several
/// replications the cut is cross-fitted: the cut found on the odd replications is applied to
/// the even ones and vice versa, so that no estimate is computed on the data that chose its own
/// truncation point (choosing it on the same data biases the estimate by a fraction of its
/// standard error and makes the interval too narrow).
WarmupCuts cut_warmup(const RoundRows& rr, const std::vector<MeasurePlan>& plans) {
    const std::size_t batches = rr.batches, rw = rr.layout.rw;
    const double batch_len = rr.batch_len;
    const auto n_rep = static_cast<uint32_t>(rr.rows.size());
    WarmupCuts out{std::vector<std::array<std::size_t, 2>>(plans.size()),
                   std::vector<std::size_t>(plans.size())};
    std::vector<double> series(batches), series_part[2] = {std::vector<double>(batches),
                                                           std::vector<double>(batches)};
    for (std::size_t i = 0; i < plans.size(); ++i) {
        const MeasurePlan& m = plans[i];
        for (std::size_t b = 0; b < batches; ++b) {
            double s[2] = {0, 0};
            for (uint32_t r = 0; r < n_rep; ++r) {
                const double* row = rr.rows[r] + b * rw;
                s[r & 1] += mser_value(m, row, row + rw, batch_len);
            }
            series[b] = (s[0] + s[1]) / n_rep;
            series_part[0][b] = s[0];
            series_part[1][b] = s[1];
        }
        auto& cuts = out.cuts[i];
        if (n_rep > 1) {
            cuts[0] = mser_truncation(series_part[1], kMserPoints);
            cuts[1] = mser_truncation(series_part[0], kMserPoints);
        } else {
            cuts[0] = cuts[1] = mser_truncation(series, kMserPoints);
        }
        out.mser[i] = std::max(cuts[0], cuts[1]);
        const auto floor_cut =
            static_cast<std::size_t>(kMinWarmupShare * static_cast<double>(batches));
        for (std::size_t& c : cuts) c = std::max(c, floor_cut);
    }
    return out;
}

/// Measures whose cut reached MSER's limit (half the run), which may be noise or a transient
/// longer than the run: a paired test across replications of first half vs second half tells
/// them apart. Only a drift that matters at the requested precision is reported.
std::vector<std::string> suspect_transients(const Windows& win, const ColumnPlan& plan,
                                            const WarmupCuts& wc, const net::PetriNet& net,
                                            double precision) {
    std::vector<std::string> out;
    const std::size_t half = win.rr.batches / 2;
    for (std::size_t i = 0; i < plan.plans.size(); ++i) {
        const std::size_t cut = std::max(wc.cuts[i][0], wc.cuts[i][1]);
        if (cut >= half && half > 0 && win.replications() > 1 &&
            win.compare(
                   plan.plans[i],
                   [&](uint32_t) { return std::tuple{std::size_t{0}, half, half}; }, precision)
                .shifts)
            out.push_back(net.measures[i].name);
    }
    return out;
}

/// One estimate per replication and measure (samples[i]), and the simulated time behind each.
struct Samples {
    std::vector<std::vector<double>> values;
    std::vector<double> span;
};

/// One estimate per replication. Without randomness, or when every replication gives the same
/// value although the net is random (a deterministic sub-process observed over identical
/// windows, whose count is only exact up to the firings straddling the window ends),
/// replication 0's kept batches are split into 16 consecutive groups instead, so that the
/// interval reflects that granularity rather than claiming zero width.
Samples take_samples(const Windows& win, const std::vector<MeasurePlan>& plans,
                     const WarmupCuts& wc, bool deterministic) {
    const std::size_t batches = win.rr.batches;
    const double batch_len = win.rr.batch_len;
    const uint32_t n_rep = win.replications();
    Samples out{std::vector<std::vector<double>>(plans.size()), std::vector<double>(plans.size())};
    for (std::size_t i = 0; i < plans.size(); ++i) {
        std::vector<double>& samples = out.values[i];
        const auto& cuts = wc.cuts[i];
        if (!deterministic) {
            for (uint32_t r = 0; r < n_rep; ++r)
                samples.push_back(win.value(r, plans[i], cuts[r & 1], batches));
            out.span[i] = static_cast<double>(batches - std::max(cuts[0], cuts[1])) * batch_len;
            const bool all_equal = std::all_of(samples.begin(), samples.end(),
                                               [&](double x) { return x == samples[0]; });
            if (!all_equal) continue;
            samples.clear();
        }
        const std::size_t groups = kReplications;
        const std::size_t per = (batches - cuts[0]) / groups;
        out.span[i] = static_cast<double>(per) * batch_len;
        const std::size_t start = batches - per * groups;
        for (std::size_t g = 0; g < groups; ++g)
            samples.push_back(win.value(0, plans[i], start + g * per, start + (g + 1) * per));
    }
    return out;
}

/// Student-t intervals of the samples at `confidence`.
void set_intervals(const Samples& samples, const std::vector<MeasurePlan>& plans,
                   double confidence, std::vector<MeasureEstimate>& measures) {
    for (std::size_t i = 0; i < plans.size(); ++i) {
        const Interval ci = student_interval(samples.values[i], confidence);
        MeasureEstimate& est = measures[i];
        est.mean = ci.mean;
        est.ci_low = ci.mean - ci.half_width;
        est.ci_high = ci.mean + ci.half_width;
        // A throughput whose transitions never fired in any window is not known to be 0:
        // with no firing in a total time T the rate is below −ln(1 − confidence)/T at the
        // requested confidence (Poisson), so the interval is [0, that bound × max |coef|].
        if (plans[i].kind == net::Measure::Kind::Throughput && ci.half_width == 0 &&
            ci.mean == 0 && plans[i].max_coef > 0) {
            const double span = samples.span[i] * static_cast<double>(samples.values[i].size());
            est.ci_high = -std::log1p(-confidence) / span * plans[i].max_coef;
            est.ci_low = 0;
            est.mean = 0;
        }
        // A fraction of time cannot leave [0, 1], whatever the sampling noise of its estimate.
        if (plans[i].fraction) {
            est.mean = std::clamp(est.mean, 0.0, 1.0);
            est.ci_low = std::clamp(est.ci_low, 0.0, 1.0);
            est.ci_high = std::clamp(est.ci_high, 0.0, 1.0);
        }
    }
}

/// Enough activity: every replication's kept window of the first measure holds at least
/// kMinWindowActivity firings per transition of the measure (the batch-group fallback: every
/// group).
bool enough_activity(const RoundRows& rr, const ColumnPlan& plan,
                     const std::array<std::size_t, 2>& first_cuts, double first_span) {
    if (plan.columns[plan.activity_col].empty()) return true;  // a constant expression
    const std::size_t batches = rr.batches, rw = rr.layout.rw;
    const uint32_t activity_col = plan.activity_col;
    const std::size_t cut0 = std::max(first_cuts[0], first_cuts[1]);
    double least = std::numeric_limits<double>::infinity();
    for (const double* rows : rr.rows) {
        const double* a = rows + cut0 * rw;
        const double* b = rows + batches * rw;
        least = std::min(least, b[activity_col] - a[activity_col]);
    }
    // With the fallback, samples come from groups of replication 0: scale down.
    const double group_share = first_span / (static_cast<double>(batches - cut0) * rr.batch_len);
    if (group_share < 0.999) least *= group_share;
    return least >= kMinWindowActivity * plan.activity_transitions;
}

/// Warm-up of the first measure. Every replication starts in the same state, so a transient
/// left in the kept windows biases all estimates alike and the interval does not show it. Two
/// signs keep the run going (each must be significant in a paired test across replications at
/// kDriftConfidence and larger than `precision` × the estimate): an MSER cut beyond
/// kMaxWarmupShare of the run whose removed head differs from the kept tail (the run is too
/// short to tell where the transient ends) — `long_warmup` — or a kept window whose two halves
/// differ (a slow approach that MSER does not cut on a short run) — `drifting`.
void test_first_warmup(const Windows& win, const MeasurePlan& first, const WarmupCuts& wc,
                       bool deterministic, double precision, RoundEstimate& est) {
    const std::size_t batches = win.rr.batches;
    est.first_cut = wc.mser[0];
    est.long_warmup = est.drifting = false;
    if (win.replications() <= 1 || deterministic) return;
    const auto& cut0 = wc.cuts[0];
    if (static_cast<double>(est.first_cut) > kMaxWarmupShare * static_cast<double>(batches)) {
        const Shift s = win.compare(
            first,
            [&](uint32_t r) { return std::tuple{std::size_t{0}, cut0[r & 1], cut0[r & 1]}; },
            precision);
        est.long_warmup = s.shifts && !s.identical;
    } else {
        const Shift s = win.compare(
            first,
            [&](uint32_t r) {
                return std::tuple{cut0[r & 1], (cut0[r & 1] + batches) / 2, cut0[r & 1]};
            },
            precision);
        est.drifting = s.shifts && !s.identical;
    }
}

}  // namespace

ColumnPlan plan_columns(const net::PetriNet& net) {
    ColumnPlan out;
    std::unordered_map<uint32_t, uint32_t> count_column_of;
    for (const net::Measure& m : net.measures) {
        MeasurePlan p{m.kind, {}, 0, 0, m.fraction};
        if (m.kind == net::Measure::Kind::TimeAverage) {
            p.expr_col = static_cast<uint32_t>(out.tracked.size());
            out.tracked.push_back(m.expr);
        } else if (m.kind == net::Measure::Kind::Throughput) {
            CompiledNet::CountColumn col;
            for (const net::Measure::Term& term : m.terms) {
                col.push_back({term.transition.value, term.coef});
                p.max_coef = std::max(p.max_coef, std::fabs(term.coef));
            }
            p.terms.push_back({static_cast<uint32_t>(out.columns.size()), 1.0});
            out.columns.push_back(std::move(col));
        } else {
            for (const net::Measure::Term& term : m.terms) {
                auto [it, fresh] = count_column_of.try_emplace(
                    term.transition.value, static_cast<uint32_t>(out.columns.size()));
                if (fresh) out.columns.push_back({{term.transition.value, 1.0}});
                p.terms.push_back({it->second, term.coef});
            }
        }
        out.plans.push_back(std::move(p));
    }
    out.columns.push_back(activity_column(net, out.activity_transitions));
    out.activity_col = static_cast<uint32_t>(out.columns.size() - 1);
    // Time averages read their integral after the count columns.
    for (MeasurePlan& p : out.plans)
        if (p.kind == net::Measure::Kind::TimeAverage)
            p.expr_col += static_cast<uint32_t>(out.columns.size());
    return out;
}

double measure_value(const MeasurePlan& m, const double* a, const double* b, double span) {
    return measure_value(m, [&](uint32_t c) { return b[c] - a[c]; }, span);
}

RoundEstimate estimate_round(const RoundRows& rows, const ColumnPlan& plan,
                             const net::PetriNet& net, bool deterministic,
                             const SolveOptions& options, std::vector<MeasureEstimate>& measures) {
    const WarmupCuts cuts = cut_warmup(rows, plan.plans);
    const Windows win{rows, smoothing_block(rows, plan)};
    RoundEstimate est;
    est.suspect_transient = suspect_transients(win, plan, cuts, net, options.precision);
    const Samples samples = take_samples(win, plan.plans, cuts, deterministic);
    set_intervals(samples, plan.plans, options.confidence, measures);
    est.enough_activity = enough_activity(rows, plan, cuts.cuts[0], samples.span[0]);
    test_first_warmup(win, plan.plans[0], cuts, deterministic, options.precision, est);
    return est;
}

}  // namespace sgdnet::solver::sim
