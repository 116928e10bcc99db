// Steady state of a tangible CTMC (Eigen sparse LU, Gauss–Seidel, multiprecision GTH) and measures.
#include "solver/exact/ctmc_solve.hpp"

#include <Eigen/Sparse>
#include <Eigen/SparseLU>
#include <boost/multiprecision/cpp_bin_float.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include "solver/solve.hpp"
#include "solver/solve_result.hpp"

namespace sgdnet::solver {
namespace {

constexpr uint32_t kUnvisited = 0xFFFFFFFFu;

/// Compressed adjacency of a graph: the edges of v go to succ[first[v] .. first[v+1]).
struct Graph {
    const std::vector<uint64_t>& first;
    const std::vector<uint32_t>& succ;
};

/// The CTMC's transitions reversed (target → source), read straight from its columns: the
/// strongly connected components are those of the chain.
Graph reversed(const Ctmc& c) { return Graph{c.in_start, c.in_from}; }

/// Tarjan's strongly connected components, iterative. Returns the component of each state.
std::vector<uint32_t> components(const Graph& g, uint64_t n, uint32_t& count) {
    std::vector<uint32_t> index(n, kUnvisited), low(n), comp(n, kUnvisited);
    std::vector<uint32_t> stack;
    std::vector<std::pair<uint32_t, uint64_t>> call;  // (state, next edge)
    uint32_t next_index = 0;
    count = 0;
    for (uint64_t root = 0; root < n; ++root) {
        if (index[root] != kUnvisited) continue;
        call.emplace_back(static_cast<uint32_t>(root), g.first[root]);
        index[root] = low[root] = next_index++;
        stack.push_back(static_cast<uint32_t>(root));
        while (!call.empty()) {
            auto& [v, e] = call.back();
            if (e < g.first[v + 1]) {
                const uint32_t w = g.succ[e++];
                if (index[w] == kUnvisited) {
                    index[w] = low[w] = next_index++;
                    stack.push_back(w);
                    call.emplace_back(w, g.first[w]);
                } else if (comp[w] == kUnvisited) {
                    low[v] = std::min(low[v], index[w]);
                }
                continue;
            }
            const uint32_t done = v;
            call.pop_back();
            if (!call.empty()) {
                const uint32_t parent = call.back().first;
                low[parent] = std::min(low[parent], low[done]);
            }
            if (low[done] == index[done]) {
                uint32_t w;
                do {
                    w = stack.back();
                    stack.pop_back();
                    comp[w] = count;
                } while (w != done);
                ++count;
            }
        }
    }
    return comp;
}

using SpMat = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

/// Incoming rates by state, in some numbering: the rates into j are rate[k] from from[k], k in
/// [start[j], start[j+1]).
struct Columns {
    const uint64_t* start;
    const uint32_t* from;
    const double* rate;
};

/// The chain's columns restricted to `states` (local numbering through `local`), into `owned`;
/// when every state is kept, the chain's own columns (no copy).
struct RestrictedColumns {
    std::vector<uint64_t> start;
    std::vector<uint32_t> from;
    std::vector<double> rate;
};

Columns restricted_columns(const Ctmc& c, const std::vector<uint32_t>& local,
                           const std::vector<uint32_t>& states, RestrictedColumns& owned) {
    if (states.size() == c.num_states) {
        return Columns{c.in_start.data(), c.in_from.data(), c.in_rate.data()};
    }
    owned.start.assign(states.size() + 1, 0);
    for (std::size_t jl = 0; jl < states.size(); ++jl) {
        const uint32_t j = states[jl];
        for (uint64_t k = c.in_start[j]; k < c.in_start[j + 1]; ++k) {
            const uint32_t il = local[c.in_from[k]];
            if (il == kUnvisited) continue;
            owned.from.push_back(il);
            owned.rate.push_back(c.in_rate[k]);
        }
        owned.start[jl + 1] = owned.from.size();
    }
    return Columns{owned.start.data(), owned.from.data(), owned.rate.data()};
}

std::vector<double> solve_lu(const Ctmc& c, const std::vector<uint32_t>& local,
                             const std::vector<uint32_t>& states) {
    const auto m = static_cast<int>(states.size());
    // A = Qᵀ with its first row replaced by ones; A π = e_0.
    std::vector<Eigen::Triplet<double, int>> t;
    t.reserve(c.num_rates() + 2 * states.size());
    for (int j = 1; j < m; ++j) {
        const uint32_t to = states[static_cast<std::size_t>(j)];
        for (uint64_t k = c.in_start[to]; k < c.in_start[to + 1]; ++k) {
            const uint32_t i = local[c.in_from[k]];
            if (i == kUnvisited) continue;
            t.emplace_back(j, static_cast<int>(i), c.in_rate[k]);
        }
    }
    for (int k = 0; k < m; ++k) {
        if (k != 0) t.emplace_back(k, k, -c.exit_rate[states[k]]);
        t.emplace_back(0, k, 1.0);
    }
    SpMat a(m, m);
    a.setFromTriplets(t.begin(), t.end());
    a.makeCompressed();
    Eigen::SparseLU<SpMat, Eigen::COLAMDOrdering<int>> lu;
    lu.compute(a);
    if (lu.info() != Eigen::Success) {
        throw SolveError(SolveError::Kind::NotErgodic,
                         "the CTMC's balance equations are singular: " + lu.lastErrorMessage());
    }
    Eigen::VectorXd b = Eigen::VectorXd::Zero(m);
    b(0) = 1;
    Eigen::VectorXd x = lu.solve(b);
    return std::vector<double>(x.data(), x.data() + m);
}

std::vector<double> solve_gauss_seidel(const Ctmc& c, const std::vector<uint32_t>& local,
                                       const std::vector<uint32_t>& states, uint64_t& iters,
                                       bool& converged) {
    const uint64_t m = states.size();
    RestrictedColumns owned;
    const Columns col = restricted_columns(c, local, states, owned);
    std::vector<double> pi(m, 1.0 / static_cast<double>(m));
    std::vector<double> inv_exit(m);
    for (uint64_t k = 0; k < m; ++k) inv_exit[k] = 1.0 / c.exit_rate[states[k]];
    converged = false;
    for (iters = 1; iters <= kMaxIterations; ++iters) {
        double change = 0, sum = 0;
        for (uint64_t j = 0; j < m; ++j) {
            double s = 0;
            for (uint64_t k = col.start[j]; k < col.start[j + 1]; ++k) s += pi[col.from[k]] * col.rate[k];
            const double nv = s * inv_exit[j];
            change += std::abs(nv - pi[j]);
            pi[j] = nv;
            sum += nv;
        }
        const double inv = 1.0 / sum;
        for (double& p : pi) p *= inv;
        if (change * inv < kIterativeTolerance) {
            converged = true;
            break;
        }
    }
    if (iters > kMaxIterations) iters = kMaxIterations;
    return pi;
}

/// Grassmann–Taksar–Heyman elimination (subtraction-free, hence accurate on stiff chains) in
/// 50-digit binary floating point.
std::vector<double> solve_gth_mp(const Ctmc& c, const std::vector<uint32_t>& local,
                                 const std::vector<uint32_t>& states) {
    using Mp = boost::multiprecision::cpp_bin_float_50;
    const uint64_t m = states.size();
    std::vector<std::map<uint32_t, Mp>> row(m);
    std::vector<std::vector<uint32_t>> incoming(m);
    for (uint64_t to = 0; to < c.num_states; ++to) {
        const uint32_t j = local[to];
        if (j == kUnvisited) continue;
        for (uint64_t k = c.in_start[to]; k < c.in_start[to + 1]; ++k) {
            const uint32_t i = local[c.in_from[k]];
            if (i == kUnvisited || i == j) continue;
            auto [it, inserted] = row[i].try_emplace(j, Mp(0));
            it->second += Mp(c.in_rate[k]);
            if (inserted) incoming[j].push_back(i);
        }
    }
    std::vector<Mp> out_sum(m);
    for (uint64_t k = m; k-- > 1;) {
        Mp s = 0;
        for (auto& [j, v] : row[k]) {
            if (j < k) s += v;
        }
        if (s == 0) {
            throw SolveError(SolveError::Kind::NotErgodic,
                             "GTH elimination met a state that cannot leave its class");
        }
        out_sum[k] = s;
        for (uint32_t i : incoming[k]) {
            if (i >= k) continue;
            const Mp f = row[i][k] / s;
            for (auto& [j, v] : row[k]) {
                if (j >= k || j == i) continue;
                auto [it, inserted] = row[i].try_emplace(j, Mp(0));
                it->second += f * v;
                if (inserted) incoming[j].push_back(i);
            }
        }
    }
    std::vector<Mp> pi(m);
    pi[0] = 1;
    Mp total = 1;
    for (uint64_t k = 1; k < m; ++k) {
        Mp s = 0;
        for (uint32_t i : incoming[k]) {
            if (i < k) s += pi[i] * row[i][static_cast<uint32_t>(k)];
        }
        pi[k] = s / out_sum[k];
        total += pi[k];
    }
    std::vector<double> out(m);
    for (uint64_t k = 0; k < m; ++k) out[k] = static_cast<double>(pi[k] / total);
    return out;
}

}  // namespace

SteadyState steady_state(const Ctmc& c, const net::PetriNet& net, Arithmetic arithmetic) {
    const uint64_t n = c.num_states;
    SteadyState ss;
    // Bottom strongly connected components: exactly one is needed.
    const Graph g = reversed(c);
    uint32_t ncomp = 0;
    const std::vector<uint32_t> comp = components(g, n, ncomp);
    // A component is bottom when no transition leaves it: no edge from one of its states
    // reaches another component.
    std::vector<char> bottom(ncomp, 1);
    for (uint64_t to = 0; to < n; ++to) {
        for (uint64_t e = g.first[to]; e < g.first[to + 1]; ++e) {
            const uint32_t from = g.succ[e];
            if (comp[from] != comp[to]) bottom[comp[from]] = 0;
        }
    }
    std::vector<uint32_t> witness;  // one state per bottom component
    std::vector<char> seen(ncomp, 0);
    for (uint64_t v = 0; v < n; ++v) {
        if (bottom[comp[v]] && !seen[comp[v]]) {
            seen[comp[v]] = 1;
            witness.push_back(static_cast<uint32_t>(v));
        }
    }
    if (witness.size() != 1) {
        throw SolveError(SolveError::Kind::NotErgodic,
                         "the CTMC is not ergodic: it has " + std::to_string(witness.size()) +
                             " closed classes of markings, e.g. " +
                             describe_marking(net, c.state(witness[0])) + " and " +
                             describe_marking(net, c.state(witness[1])) +
                             " cannot reach each other, so the long-run behaviour depends on "
                             "chance; the steady state is not unique");
    }
    const uint32_t bscc = comp[witness[0]];
    std::vector<uint32_t> local(n, kUnvisited), states;
    for (uint64_t v = 0; v < n; ++v) {
        if (comp[v] == bscc) {
            local[v] = static_cast<uint32_t>(states.size());
            states.push_back(static_cast<uint32_t>(v));
        }
    }
    const uint64_t m = states.size();
    ss.recurrent_states = m;

    std::vector<double> x;
    if (m == 1) {
        x = {1.0};
        ss.method = "trivial";
    } else if (arithmetic == Arithmetic::Multiprecision) {
        if (m > kMultiprecisionMaxStates) {
            throw SolveError(SolveError::Kind::StateSpaceTooLarge,
                             "--arith mp solves at most " +
                                 std::to_string(kMultiprecisionMaxStates) +
                                 " recurrent states; this chain has " + std::to_string(m) +
                                 " (use double arithmetic or --solver sim)");
        }
        x = solve_gth_mp(c, local, states);
        ss.method = "gth-mp50";
    } else if (m <= kDirectMaxStates) {
        x = solve_lu(c, local, states);
        ss.method = "sparse-lu";
    } else {
        bool converged = false;
        x = solve_gauss_seidel(c, local, states, ss.iterations, converged);
        ss.method = "gauss-seidel";
        if (!converged) {
            ss.warnings.push_back("Gauss-Seidel did not converge in " +
                                  std::to_string(kMaxIterations) +
                                  " sweeps; see the residual");
        }
    }
    // Clamp round-off negatives and normalize.
    double sum = 0;
    for (double& v : x) {
        v = std::max(0.0, v);
        sum += v;
    }
    ss.pi.assign(n, 0.0);
    for (uint64_t k = 0; k < m; ++k) ss.pi[states[k]] = x[k] / sum;
    // Residual ||π Q||_1: (π Q)_j = Σ_i π_i R_ij − π_j exit_j.
    double res = 0;
    for (uint64_t j = 0; j < n; ++j) {
        double flow_in = 0;
        for (uint64_t k = c.in_start[j]; k < c.in_start[j + 1]; ++k) {
            flow_in += ss.pi[c.in_from[k]] * c.in_rate[k];
        }
        res += std::abs(flow_in - ss.pi[j] * c.exit_rate[j]);
    }
    ss.residual = res;
    return ss;
}

SolveResult solve_exact(const net::PetriNet& net, const SolveOptions& options) {
    const auto t0 = std::chrono::steady_clock::now();
    if (const auto problems = net::validate(net); !problems.empty()) {
        throw SolveError(SolveError::Kind::Invalid, "invalid net: " + problems.front());
    }
    std::vector<uint32_t> tracked;
    for (const net::Measure& m : net.measures) {
        if (m.kind == net::Measure::Kind::TimeAverage) continue;
        for (const auto& term : m.terms) tracked.push_back(term.transition.value);
    }
    std::sort(tracked.begin(), tracked.end());
    tracked.erase(std::unique(tracked.begin(), tracked.end()), tracked.end());

    const Ctmc c = build_ctmc(net, options, tracked);
    const SteadyState ss = steady_state(c, net, options.arithmetic);

    auto throughput = [&](uint32_t t) {
        const size_t k = static_cast<size_t>(
            std::lower_bound(tracked.begin(), tracked.end(), t) - tracked.begin());
        double x = 0;
        for (uint64_t s = 0; s < c.num_states; ++s) x += ss.pi[s] * c.flow[k][s];
        return x;
    };
    SolveResult result;
    result.solver = "exact";
    for (const net::Measure& m : net.measures) {
        double v = 0;
        switch (m.kind) {
            case net::Measure::Kind::Throughput:
                for (const auto& term : m.terms) v += term.coef * throughput(term.transition.value);
                break;
            case net::Measure::Kind::MeanInverseThroughput:
                for (const auto& term : m.terms) v += term.coef / throughput(term.transition.value);
                break;
            case net::Measure::Kind::TimeAverage:
                for (uint64_t s = 0; s < c.num_states; ++s) {
                    if (ss.pi[s] > 0) v += ss.pi[s] * m.expr.evaluate(c.state(s));
                }
                break;
        }
        result.measures.push_back({m.name, v, v, v, m.unit});
    }
    result.warnings = c.warnings;
    result.warnings.insert(result.warnings.end(), ss.warnings.begin(), ss.warnings.end());
    result.stats.states = c.num_states;
    result.stats.residual = ss.residual;
    result.stats.iterations = ss.iterations;
    result.stats.method = ss.method;
    result.stats.wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return result;
}

}  // namespace sgdnet::solver
