// Moment-matched phase-type (Coxian) replacements of non-exponential delays for the exact solver.
#pragma once

#include <string>
#include <vector>

#include "net/distribution.hpp"

namespace sgdnet::solver {

/// Largest number of phases used for a delay with cv <= 1 (a deterministic delay gets exactly
/// this many: Erlang-10, whose cv is 1/sqrt(10) ≈ 0.32).
inline constexpr int kMaxErlangPhases = 10;

/// An acyclic (Coxian) phase-type delay: phase i lasts Exp(rates_per_s[i]); when it ends the
/// delay continues to phase i+1 with probability cont[i], else it is over. cont.back() == 0.
struct PhaseType {
    std::vector<double> rates_per_s;
    std::vector<double> cont;
    /// Human-readable description, e.g. `erlang(k=10)` or `hyperexp2(cv=2)`.
    std::string description;
};

/// Moment matching of a delay of mean m and coefficient of variation cv (docs/language.md §7,
/// docs/solver-exact.md):
///  - cv <= 1: Erlang-k with k = clamp(round(1/cv²), 1, kMaxErlangPhases), mean m (the mean is
///    exact; the cv is the closest Erlang one, and never below 1/sqrt(kMaxErlangPhases));
///  - cv > 1: two-phase hyperexponential with balanced means (Whitt), which matches mean and cv
///    exactly, written as the equivalent two-phase Coxian.
/// Precondition: mean(d) > 0. Throws std::invalid_argument otherwise.
PhaseType fit_phase_type(const net::Distribution& d);

/// The same fit from the first two moments directly (mean in s, cv >= 0).
PhaseType fit_phase_type(double mean_s, double cv);

/// Mean (s) and variance (s²) of a phase-type delay, for checks.
double phase_type_mean(const PhaseType& ph);
double phase_type_variance(const PhaseType& ph);

}  // namespace sgdnet::solver
