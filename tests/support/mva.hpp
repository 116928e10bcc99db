// Exact mean value analysis of closed product-form networks, the reference of the solvers' tests
// and of the exact solver's benchmark.
#pragma once

#include <vector>

namespace sgdnet::testing {

/// A station of a closed single-class product-form network.
struct MvaStation {
    enum class Kind { Queue, Delay };  // single-server FCFS queue, or infinite-server delay
    double demand = 0;                 // visit ratio × mean service time per visit, in s
    Kind kind = Kind::Queue;
};

/// Throughput (visits per second to a station of visit ratio 1) and mean queue lengths.
struct MvaResult {
    double throughput = 0;
    std::vector<double> queue;
};

/// Exact Mean Value Analysis (Reiser & Lavenberg 1980) with `customers` customers:
///   R_i(n) = D_i (1 + Q_i(n−1))  (queue),   R_i(n) = D_i  (delay),
///   X(n) = n / Σ_i R_i(n),   Q_i(n) = X(n) R_i(n).
inline MvaResult mva(const std::vector<MvaStation>& stations, int customers) {
    MvaResult r;
    r.queue.assign(stations.size(), 0.0);
    std::vector<double> resp(stations.size());
    for (int n = 1; n <= customers; ++n) {
        double total = 0;
        for (std::size_t i = 0; i < stations.size(); ++i) {
            const bool queue = stations[i].kind == MvaStation::Kind::Queue;
            resp[i] = stations[i].demand * (queue ? 1.0 + r.queue[i] : 1.0);
            total += resp[i];
        }
        r.throughput = n / total;
        for (std::size_t i = 0; i < stations.size(); ++i) r.queue[i] = r.throughput * resp[i];
    }
    return r;
}

/// MVA of a closed cyclic network of single-server exponential stations with mean service
/// times `service_s` (every visit ratio 1).
inline MvaResult cyclic_mva(const std::vector<double>& service_s, int customers) {
    std::vector<MvaStation> stations;
    for (double s : service_s) stations.push_back({s, MvaStation::Kind::Queue});
    return mva(stations, customers);
}

}  // namespace sgdnet::testing
