// Steady-state statistics: warm-up truncation (MSER), Student-t confidence intervals.
#pragma once

#include <cstddef>
#include <vector>

namespace sgdnet::solver {

/// Two-sided Student-t quantile: the x with P(T_df <= x) = p (df > 0, 0 < p < 1).
double student_t_quantile(double p, double df);

/// MSER truncation point (White 1997; Franklin & White 2008) of a series of equal-length
/// batch means: the d in [0, n/2] minimising Σ_{i>=d}(x_i − x̄_d)² / (n − d)², where x̄_d is the
/// mean of x_d..x_{n-1}. With batches of 5 observations this is MSER-5. Returns 0 for n < 4.
std::size_t mser_truncation(const std::vector<double>& series);

/// MSER on the series averaged over consecutive groups of k = ⌈n / points⌉ batches (the
/// last group takes the remainder), so that at most `points` values enter the statistic; the
/// cut is returned in batches (a multiple of k). Averaging first lowers the noise of each value
/// and lets MSER see a transient that is small next to the batch-to-batch noise but long.
std::size_t mser_truncation(const std::vector<double>& series, std::size_t points);

/// Mean and half-width of a Student-t confidence interval.
struct Interval {
    double mean = 0;
    double half_width = 0;
};

/// CI at level `confidence` for the mean of independent, identically distributed `samples`
/// (at least 2; with one sample the half-width is +inf). Zero sample variance gives a
/// zero half-width.
Interval student_interval(const std::vector<double>& samples, double confidence);

}  // namespace sgdnet::solver
