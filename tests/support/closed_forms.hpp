// Closed forms of classic queues (birth–death chains, M/M/1/K, machine repairman, Erlang C), the
// truth of the solvers' tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace sgdnet::testing {

/// Stationary distribution of a birth–death chain on 0..N from birth[i] (i → i+1) and
/// death[i] (i+1 → i): π_{i+1} = π_i · birth[i] / death[i], normalized.
inline std::vector<double> birth_death(const std::vector<double>& birth,
                                       const std::vector<double>& death) {
    std::vector<double> pi{1.0};
    for (std::size_t i = 0; i < birth.size(); ++i) pi.push_back(pi.back() * birth[i] / death[i]);
    double s = 0;
    for (double v : pi) s += v;
    for (double& v : pi) v /= s;
    return pi;
}

/// Steady-state measures of a queue: throughput (1/s), mean number in the system and the
/// probability that the system is full.
struct QueueMeasures {
    double throughput = 0;
    double mean_number = 0;
    double p_full = 0;
};

/// M/M/1/K, arrivals λ, service μ, at most K in the system (Kleinrock, Queueing Systems I,
/// §3.6): π_n = ρ^n (1−ρ)/(1−ρ^{K+1}); throughput μ (1 − π_0), L = Σ n π_n, P(full) = π_K.
inline QueueMeasures mm1k(double lambda, double mu, int k) {
    const double rho = lambda / mu;
    std::vector<double> pi;
    QueueMeasures m;
    for (int n = 0; n <= k; ++n) {
        pi.push_back(std::pow(rho, n) * (1 - rho) / (1 - std::pow(rho, k + 1)));
        m.mean_number += n * pi.back();
    }
    m.throughput = mu * (1 - pi[0]);
    m.p_full = pi[k];
    return m;
}

/// The measures of a queue with `servers` servers of rate μ whose number in the system has the
/// stationary distribution π (0..K): throughput Σ min(n, servers) μ π_n, L = Σ n π_n,
/// P(full) = π_K.
inline QueueMeasures queue_measures(const std::vector<double>& pi, int servers, double mu) {
    QueueMeasures m;
    for (std::size_t n = 0; n < pi.size(); ++n) {
        m.mean_number += static_cast<double>(n) * pi[n];
        m.throughput += std::min(static_cast<int>(n), servers) * mu * pi[n];
    }
    m.p_full = pi.back();
    return m;
}

/// M/M/c/K: c servers of rate μ, arrivals λ, at most K in the system; birth λ, death
/// min(n, c) μ.
inline QueueMeasures mmck(double lambda, double mu, int c, int k) {
    std::vector<double> birth, death;
    for (int n = 0; n < k; ++n) {
        birth.push_back(lambda);
        death.push_back(std::min(n + 1, c) * mu);
    }
    return queue_measures(birth_death(birth, death), c, mu);
}

/// Machine repairman (Kleinrock, Queueing Systems I, §3.9): N machines fail at rate λ each
/// while up, R repairmen repair at rate μ each. With k down: birth (N−k)λ, death min(k, R)μ.
/// The repair throughput, the mean number down (mean_number) and P(every machine down).
inline QueueMeasures machine_repairman(int machines, double lambda, int repairmen, double mu) {
    std::vector<double> birth, death;
    for (int k = 0; k < machines; ++k) {
        birth.push_back((machines - k) * lambda);
        death.push_back(std::min(k + 1, repairmen) * mu);
    }
    return queue_measures(birth_death(birth, death), repairmen, mu);
}

/// M/M/c (unbounded), arrivals λ, c servers of rate μ, a = λ/μ, ρ = a/c < 1. Erlang C:
/// P(wait) = (a^c/c!)/(1−ρ) / (Σ_{k<c} a^k/k! + (a^c/c!)/(1−ρ)); Lq = P(wait) ρ/(1−ρ);
/// returns the mean number in the system L = Lq + a.
inline double mmc_mean_number(double lambda, double mu, int c) {
    const double a = lambda / mu, rho = a / c;
    double head = 0, fact = 1;
    for (int k = 0; k < c; ++k) {
        if (k > 0) fact *= k;
        head += std::pow(a, k) / fact;
    }
    const double tail = std::pow(a, c) / (fact * c) / (1 - rho);
    return tail / (head + tail) * rho / (1 - rho) + a;
}

}  // namespace sgdnet::testing
