// Steady-state statistics: warm-up truncation (MSER), Student-t confidence intervals.
#include "solver/sim/estimators.hpp"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

namespace sgdnet::solver {

double student_t_quantile(double p, double df) {
    const boost::math::students_t dist(df);
    return boost::math::quantile(dist, p);
}

std::size_t mser_truncation(const std::vector<double>& series) {
    const std::size_t n = series.size();
    if (n < 4) return 0;
    // Suffix sums give every tail mean and sum of squares in O(n); the tail is centred on the
    // overall mean first to keep the subtraction well conditioned.
    double centre = 0;
    for (double x : series) centre += x;
    centre /= static_cast<double>(n);
    double s = 0, s2 = 0;
    std::vector<double> stat(n, 0);
    for (std::size_t i = n; i-- > 0;) {
        const double x = series[i] - centre;
        s += x;
        s2 += x * x;
        const double m = static_cast<double>(n - i);
        const double ss = std::max(0.0, s2 - s * s / m);
        stat[i] = ss / (m * m);
    }
    std::size_t best = 0;
    for (std::size_t d = 1; d <= n / 2; ++d)
        if (stat[d] < stat[best]) best = d;
    return best;
}

std::size_t mser_truncation(const std::vector<double>& series, std::size_t points) {
    const std::size_t n = series.size();
    if (points == 0 || n <= points) return mser_truncation(series);
    const std::size_t k = (n + points - 1) / points;
    const std::size_t groups = n / k;
    std::vector<double> means(groups, 0);
    for (std::size_t g = 0; g < groups; ++g) {
        const std::size_t end = g + 1 == groups ? n : (g + 1) * k;
        for (std::size_t b = g * k; b < end; ++b) means[g] += series[b];
        means[g] /= static_cast<double>(end - g * k);
    }
    return mser_truncation(means) * k;
}

Interval student_interval(const std::vector<double>& samples, double confidence) {
    Interval out;
    const std::size_t n = samples.size();
    if (n == 0) return out;
    double mean = 0;
    for (double x : samples) mean += x;
    mean /= static_cast<double>(n);
    out.mean = mean;
    if (n < 2) {
        out.half_width = std::numeric_limits<double>::infinity();
        return out;
    }
    bool all_equal = true;
    for (double x : samples) all_equal = all_equal && x == samples[0];
    if (all_equal) {  // zero variance: exact value, zero-width interval
        out.mean = samples[0];
        return out;
    }
    double ss = 0;
    for (double x : samples) ss += (x - mean) * (x - mean);
    if (ss == 0) return out;
    const double sd = std::sqrt(ss / static_cast<double>(n - 1));
    const double q = student_t_quantile(0.5 + confidence / 2, static_cast<double>(n - 1));
    out.half_width = q * sd / std::sqrt(static_cast<double>(n));
    return out;
}

}  // namespace sgdnet::solver
