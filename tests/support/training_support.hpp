// Helpers of the training truth tests: compile a model or lower a TrainingSpec, solve, look up.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>

#include "compiler/compile.hpp"
#include "solver/solve.hpp"
#include "tests/support/sim_check.hpp"
#include "training/training_spec.hpp"

namespace sgdnet::training_test {

using Estimates = std::map<std::string, solver::MeasureEstimate>;

inline Estimates estimates(const solver::SolveResult& r) {
    Estimates out;
    for (const auto& m : r.measures) out[m.name] = m;
    return out;
}

inline solver::SolveOptions sim_options(double precision = 0.005, uint64_t seed = 7) {
    solver::SolveOptions o;
    o.solver = solver::SolverKind::Sim;
    o.precision = precision;
    o.seed = seed;
    o.max_time_s = 60;
    return o;
}

/// Compiles `text` (a whole .sgdnet file); fails the test with the diagnostics when it does not.
inline net::PetriNet compile_text(const std::string& text, compiler::CompileOptions opts = {}) {
    compiler::Diagnostics diags;
    auto net = compiler::compile(text, "test.sgdnet", opts, diags);
    INFO(diags.render());
    REQUIRE(net.has_value());
    return *net;
}

inline net::PetriNet lower(const compiler::TrainingSpec& spec) {
    net::PetriNet net;
    net.name = "spec";
    const std::string error = compiler::lower_training_spec(spec, net);
    INFO(error);
    REQUIRE(error.empty());
    const auto violations = net::validate(net);
    REQUIRE(violations.empty());
    return net;
}

inline Estimates run_sim(const net::PetriNet& net, solver::SolveOptions o = sim_options()) {
    return estimates(solver::simulate(net, o));
}

/// A deterministic net's estimate equals `truth` within `rel` (0.5% by default).
inline void check_exact(const solver::MeasureEstimate& e, double truth, double rel = 0.005) {
    INFO(e.name << ": mean " << e.mean << " [" << e.ci_low << ", " << e.ci_high << "], truth "
                << truth);
    CHECK(std::fabs(e.mean - truth) <= rel * std::fabs(truth));
}

/// A stochastic estimate: the truth lies in the CI, and the CI is narrow (sim_check.hpp).
using testing::check_covers;

/// `n` homogeneous workers named `w[i]` with a coarse compute.
inline compiler::TrainingSpec homogeneous(int n, net::Distribution compute, double bw_Bps,
                                          double latency_s, net::Distribution update = {net::Det{0}}) {
    compiler::TrainingSpec s;
    for (int i = 0; i < n; ++i) {
        compiler::WorkerSpec w;
        w.name = "w[" + std::to_string(i) + "]";
        w.compute = compute;
        w.update = update;
        w.bandwidth_Bps = bw_Bps;
        w.latency_s = latency_s;
        s.workers.push_back(w);
    }
    return s;
}

/// Coarse parameter server `sync`: `n` workers computing det(c) behind NICs of bw and latency
/// lw, one server `ps` applying det(upd) behind a NIC of bw and latency ls, messages of s bytes.
inline compiler::TrainingSpec ps_coarse(compiler::SyncKind sync, int n, double c, double upd,
                                        double s, double bw, double lw, double ls,
                                        compiler::SharingKind sharing) {
    compiler::TrainingSpec spec = homogeneous(n, {net::Det{c}}, bw, lw);
    spec.servers.push_back(compiler::ServerSpec{"ps", {net::Det{upd}}, bw, ls, {}});
    spec.sync = sync;
    spec.model_bytes = s;
    spec.sharing = sharing;
    return spec;
}

/// Coarse ps_sync, as ps_coarse.
inline compiler::TrainingSpec ps_sync_coarse(int n, double c, double upd, double s, double bw,
                                             double lw, double ls, compiler::SharingKind sharing) {
    return ps_coarse(compiler::SyncKind::PsSync, n, c, upd, s, bw, lw, ls, sharing);
}

/// A fine ring of `n` workers with `layers` identical layers (forward f, backward b, `bytes`
/// each), bandwidth bw, latency l, update det(upd).
inline compiler::TrainingSpec fine_ring(int n, int layers, double f, double b, double bytes,
                                        double bw, double l, double upd) {
    compiler::TrainingSpec spec = homogeneous(n, {net::Det{0}}, bw, l, {net::Det{upd}});
    for (auto& w : spec.workers) {
        w.compute.reset();
        for (int k = 0; k < layers; ++k) {
            w.layers.push_back(compiler::LayerSpec{"layer" + std::to_string(k), {net::Det{f}},
                                                   {net::Det{b}}, bytes, {}});
        }
    }
    spec.sync = compiler::SyncKind::AllreduceRing;
    spec.granularity = compiler::Granularity::Fine;
    spec.model_bytes = layers * bytes;
    return spec;
}

}  // namespace sgdnet::training_test
