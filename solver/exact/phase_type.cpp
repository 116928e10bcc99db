// Moment-matched phase-type (Coxian) replacements of non-exponential delays for the exact solver.
#include "solver/exact/phase_type.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace sgdnet::solver {

PhaseType fit_phase_type(double mean_s, double cv) {
    if (!(mean_s > 0) || !std::isfinite(mean_s) || !(cv >= 0) || !std::isfinite(cv)) {
        throw std::invalid_argument("phase-type fit needs a positive finite mean and cv >= 0");
    }
    PhaseType ph;
    if (cv <= 1) {
        int k = kMaxErlangPhases;
        if (cv > 0) {
            const double kr = std::round(1.0 / (cv * cv));
            k = static_cast<int>(std::clamp(kr, 1.0, static_cast<double>(kMaxErlangPhases)));
        }
        ph.rates_per_s.assign(static_cast<size_t>(k), k / mean_s);
        ph.cont.assign(static_cast<size_t>(k), 1.0);
        ph.cont.back() = 0.0;
        ph.description = k == 1 ? "exp" : "erlang(k=" + std::to_string(k) + ")";
        return ph;
    }
    // Balanced-means H2 (Whitt 1982): p1 = (1 + sqrt((c²-1)/(c²+1)))/2, mu1 = 2 p1/m,
    // mu2 = 2 p2/m. As a Coxian: phase 1 rate mu1, then phase 2 (rate mu2) with probability
    // a = p2 (mu1 - mu2)/mu1 (equal Laplace transforms by partial fractions).
    const double c2 = cv * cv;
    const double p1 = 0.5 * (1 + std::sqrt((c2 - 1) / (c2 + 1)));
    const double p2 = 1 - p1;
    const double mu1 = 2 * p1 / mean_s;
    const double mu2 = 2 * p2 / mean_s;
    ph.rates_per_s = {mu1, mu2};
    ph.cont = {p2 * (mu1 - mu2) / mu1, 0.0};
    char buf[64];
    std::snprintf(buf, sizeof buf, "hyperexp2(cv=%.3g)", cv);
    ph.description = buf;
    return ph;
}

PhaseType fit_phase_type(const net::Distribution& d) {
    const double m = net::mean(d);
    const double var = net::variance(d);
    const double cv = m > 0 ? std::sqrt(std::max(0.0, var)) / m : 0.0;
    return fit_phase_type(m, cv);
}

double phase_type_mean(const PhaseType& ph) {
    // E[T] = Σ_i P(reach phase i) / rate_i.
    double reach = 1, m = 0;
    for (size_t i = 0; i < ph.rates_per_s.size(); ++i) {
        m += reach / ph.rates_per_s[i];
        reach *= ph.cont[i];
    }
    return m;
}

double phase_type_variance(const PhaseType& ph) {
    // Second moment by the recursion on the remaining delay from phase i:
    // E[T_i] = 1/r_i + c_i E[T_{i+1}], E[T_i²] = 2/r_i² + 2 c_i E[T_{i+1}]/r_i + c_i E[T_{i+1}²].
    double m1 = 0, m2 = 0;
    for (size_t j = ph.rates_per_s.size(); j-- > 0;) {
        const double r = ph.rates_per_s[j], c = ph.cont[j];
        const double n1 = 1 / r + c * m1;
        const double n2 = 2 / (r * r) + 2 * c * m1 / r + c * m2;
        m1 = n1;
        m2 = n2;
    }
    return m2 - m1 * m1;
}

}  // namespace sgdnet::solver
