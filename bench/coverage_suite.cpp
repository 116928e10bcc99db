// The coverage suite of the simulator's 95% intervals: independent runs of training models (ring, tree, parameter server), an M/M/1 queue and random small nets, each against a truth found without the solver's estimators; prints every case's coverage and the total.
//
//   coverage_suite [--scale X] [--threads K] [--truths FILE]
//
// Truths: the M/M/1's closed form; the random nets' exact CTMC solution; for a training model a
// replication/deletion estimate that shares nothing with simulate()'s estimators (no pilot,
// batches, MSER, smoothed ends or stopping rule): R independent engine runs from the initial
// marking, each timing how long the first measure's weighted count takes from K0 to K1
// (thousands of steps), their mean and its 95% Student-t interval, a small fraction of the
// runs' half-widths (both printed).
// `--scale` multiplies every case's number of runs (default 1: 300 training runs, 100 M/M/1
// runs, 100 random nets). With `--truths FILE`, the training truths are read from FILE when it
// exists (one line `MODEL N TRUTH HALF_WIDTH` each) and written to it otherwise: they take a
// few minutes and do not depend on the solver's estimators.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <stdexcept>
#include <string>
#include <vector>

#include "solver/sim/engine.hpp"
#include "solver/sim/estimators.hpp"
#include "solver/solve.hpp"
#include "tests/support/models.hpp"
#include "tests/support/random_nets.hpp"
#include "tests/support/test_nets.hpp"

using namespace sgdnet;

namespace {

struct Tally {
    int runs = 0, covered = 0;
    void add(bool c) {
        ++runs;
        covered += c;
    }
};

solver::SolveResult run_once(const net::PetriNet& net, uint64_t seed, double precision,
                             int threads, double max_time_s = 60) {
    solver::SolveOptions o;
    o.solver = solver::SolverKind::Sim;
    o.precision = precision;
    o.confidence = 0.95;
    o.seed = seed;
    o.threads = static_cast<unsigned>(threads);
    o.max_time_s = max_time_s;
    return solver::simulate(net, o);
}

/// The first measure's long-run value, from the time its weighted count C(t) takes to go from
/// k0 to k1: `reps` engine runs (seed 1,000,000 + r, so no run of the suite shares a stream
/// with them), each giving (C(b) − C(a)) / (b − a), where a and b are the firings at which C
/// first reaches k0 and k1. Counting firings over a fixed window of time instead would round
/// every replication's count to whole steps: on a nearly periodic model they then agree, and
/// their interval is far narrower than their common rounding error. Returns {mean, 95%
/// half-width}.
std::pair<double, double> long_run_truth(const net::PetriNet& net, int reps, double k0,
                                         double k1) {
    const net::Measure& m = net.measures.at(0);
    if (m.kind != net::Measure::Kind::Throughput) throw std::runtime_error("needs a throughput");
    solver::CompiledNet::CountColumn column;
    for (const auto& term : m.terms) column.push_back({term.transition.value, term.coef});
    const solver::CompiledNet cn =
        solver::CompiledNet::build_columns(net, {}, {column}, 1'000'000);
    auto one = [&](int r) {
        solver::SimEngine e(cn, 1'000'000 + static_cast<uint64_t>(r), 0);
        std::vector<double> c(cn.snapshot_width());
        auto reach = [&](double level) {
            for (;;) {
                if (e.run_events(1) != solver::SimEngine::Status::Ok)
                    throw std::runtime_error("the truth's run stopped");
                e.snapshot(c.data());
                if (c[0] >= level) return std::pair{e.now(), c[0]};
            }
        };
        const auto [ta, ca] = reach(k0);
        const auto [tb, cb] = reach(k1);
        return (cb - ca) / (tb - ta);
    };
    std::vector<double> x;
    for (int r = 0; r < reps; r += 2) {
        auto second = std::async(std::launch::async, one, r + 1);
        x.push_back(one(r));
        x.push_back(second.get());
    }
    const solver::Interval i = solver::student_interval(x, 0.95);
    return {i.mean, i.half_width};
}

struct TrainingCase {
    const char* model;
    int n;
    double k0, k1;  // the truth's window, in units of the first measure's count (steps)
    int runs;
};

/// The case's truth: from `cache` (MODEL N TRUTH HALF_WIDTH lines) when it has the case,
/// else computed and appended to it.
std::pair<double, double> truth_of(const TrainingCase& c, const net::PetriNet& net,
                                   const std::string& cache) {
    if (!cache.empty()) {
        if (FILE* f = std::fopen(cache.c_str(), "r")) {
            char model[128];
            int n = 0;
            double t = 0, hw = 0;
            while (std::fscanf(f, "%127s %d %lf %lf", model, &n, &t, &hw) == 4) {
                if (std::string(model) == c.model && n == c.n) {
                    std::fclose(f);
                    return {t, hw};
                }
            }
            std::fclose(f);
        }
    }
    const auto truth = long_run_truth(net, 32, c.k0, c.k1);
    if (!cache.empty()) {
        if (FILE* f = std::fopen(cache.c_str(), "a")) {
            std::fprintf(f, "%s %d %.10g %.4g\n", c.model, c.n, truth.first, truth.second);
            std::fclose(f);
        }
    }
    return truth;
}

Tally training_case(const TrainingCase& c, double scale, int threads, const std::string& cache) {
    compiler::Diagnostics diags;
    auto net = testing::compile_model(c.model, c.n, diags);
    if (!net) throw std::runtime_error(diags.render());
    const auto [truth, truth_hw] = truth_of(c, *net, cache);
    Tally t;
    double hw_sum = 0, mean_sum = 0;
    const int runs = std::max(1, static_cast<int>(std::lround(c.runs * scale)));
    for (int seed = 1; seed <= runs; ++seed) {
        const auto r = run_once(*net, static_cast<uint64_t>(seed), 0.01, threads);
        const auto& e = r.measures[0];
        const bool cover = e.ci_low <= truth && truth <= e.ci_high;
        t.add(cover);
        hw_sum += (e.ci_high - e.ci_low) / 2 / e.mean;
        mean_sum += e.mean;
        if (!cover)
            std::printf("  %s N=%d seed %d misses: %.7g [%.7g, %.7g]\n", c.model, c.n, seed,
                        e.mean, e.ci_low, e.ci_high);
    }
    std::printf("%-22s N=%-3d truth %.7g ± %.2g%%  runs: mean %.7g, mean half-width %.3g%%, "
                "covered %d/%d\n",
                c.model, c.n, truth, 100 * truth_hw / truth, mean_sum / t.runs,
                100 * hw_sum / t.runs, t.covered, t.runs);
    std::fflush(stdout);
    return t;
}

/// M/M/1, λ = 1, μ = 2: L = 1 and P(busy) = 0.5; one run gives two intervals.
Tally mm1_case(int runs, int threads) {
    testing::NetBuilder b("mm1");
    const uint32_t q = b.place("q");
    b.timed("arrive", testing::exp_rate(1), {}, {{q, 1}});
    b.timed("serve", testing::exp_rate(2), {{q, 1}}, {});
    b.tokens("L", q);
    b.average("busy", testing::positive(q), "");
    Tally t;
    for (int seed = 1; seed <= runs; ++seed) {
        const auto r = run_once(b.net, static_cast<uint64_t>(seed), 0.01, threads);
        t.add(r.measures[0].ci_low <= 1.0 && 1.0 <= r.measures[0].ci_high);
        t.add(r.measures[1].ci_low <= 0.5 && 0.5 <= r.measures[1].ci_high);
    }
    std::printf("%-22s        L and P(busy), closed form            covered %d/%d intervals\n",
                "mm1", t.covered, t.runs);
    std::fflush(stdout);
    return t;
}

/// Random nets against their exact solution, every measure, 2% precision (the property test's).
Tally random_case(int nets, int threads) {
    Tally t;
    int done = 0;
    for (uint64_t seed = 20240601; done < nets; ++seed) {
        const auto net = testing::random_net(seed);
        solver::SolveOptions o;
        o.solver = solver::SolverKind::Exact;
        solver::SolveResult exact;
        try {
            exact = solver::solve_exact(net, o);
        } catch (const solver::SolveError&) {
            continue;  // deadlocks, several closed classes: not a coverage question
        }
        ++done;
        // As the property test: 2% precision, at most 3 s (a measure that stays 0 never gets
        // there; its interval is the Poisson bound).
        const auto sim = run_once(net, seed, 0.02, threads, 3);
        for (std::size_t m = 0; m < exact.measures.size(); ++m) {
            const double truth = exact.measures[m].mean;
            const double slack = 1e-12 * std::max(1.0, std::abs(truth));
            t.add(sim.measures[m].ci_low - slack <= truth && truth <= sim.measures[m].ci_high + slack);
        }
    }
    std::printf("%-22s        %d nets, every measure, exact CTMC     covered %d/%d intervals\n",
                "random nets", nets, t.covered, t.runs);
    return t;
}

}  // namespace

int main(int argc, char** argv) {
    double scale = 1;
    int threads = 2;
    std::string cache;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--scale") == 0) scale = std::atof(argv[i + 1]);
        else if (std::strcmp(argv[i], "--threads") == 0) threads = std::atoi(argv[i + 1]);
        else if (std::strcmp(argv[i], "--truths") == 0) cache = argv[i + 1];
    }
    // The ring, tree and parameter-server models of models/, 1% precision, seeds 1, 2, ….
    const std::vector<TrainingCase> cases{
        {"allreduce_ring_coarse", 32, 250, 2250, 60},
        {"allreduce_ring_fine", 16, 250, 2250, 60},
        {"allreduce_tree_coarse", 16, 50, 1050, 60},
        {"ps_sync_fine", 8, 300, 3300, 60},
        {"ps_async_coarse", 8, 1500, 25500, 60},
    };
    Tally training;
    for (const auto& c : cases) {
        const Tally t = training_case(c, scale, threads, cache);
        training.runs += t.runs;
        training.covered += t.covered;
    }
    const Tally mm1 = mm1_case(std::max(1, static_cast<int>(std::lround(100 * scale))), threads);
    const Tally rnd = random_case(std::max(1, static_cast<int>(std::lround(100 * scale))), threads);
    const int all_runs = training.runs + mm1.runs + rnd.runs;
    const int all_cov = training.covered + mm1.covered + rnd.covered;
    std::printf("training models: %d/%d = %.1f%%\n", training.covered, training.runs,
                100.0 * training.covered / training.runs);
    std::printf("all intervals:   %d/%d = %.1f%%\n", all_cov, all_runs, 100.0 * all_cov / all_runs);
    return 0;
}
