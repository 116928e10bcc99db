// Random streams seeded from (seed, replication index) and the project's own delay samplers.
#include "solver/sim/rng.hpp"

#include <cmath>
#include <stdexcept>
#include <type_traits>

#include <boost/random/normal_distribution.hpp>

namespace sgdnet::solver {

uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

Rng::Rng(uint64_t seed, uint64_t stream) {
    uint64_t mix = seed;
    const uint64_t a = splitmix64(mix);
    uint64_t st = a ^ (stream * 0xd1342543de82ef95ULL + 0x632be59bd9b4e019ULL);
    // Two rounds so that neighbouring streams diverge in every state word.
    splitmix64(st);
    for (uint64_t& w : s_) w = splitmix64(st);
    if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;
}

double Rng::exponential() { return -std::log(uniform_pos()); }

double Rng::normal() { return boost::random::normal_distribution<double>()(*this); }

double Rng::gamma(double shape) {
    if (shape < 1) {
        // Gamma(k) = Gamma(k + 1) · U^(1/k) (Marsaglia & Tsang, §6).
        const double g = gamma(shape + 1);
        return g * std::pow(uniform_pos(), 1 / shape);
    }
    const double d = shape - 1.0 / 3.0;
    const double c = 1 / std::sqrt(9 * d);
    for (;;) {
        double x, v;
        do {
            x = normal();
            v = 1 + c * x;
        } while (v <= 0);
        v = v * v * v;
        const double u = uniform_pos();
        if (u < 1 - 0.0331 * x * x * x * x) return d * v;
        if (std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) return d * v;
    }
}

uint32_t DistributionTable::add(const net::Distribution& d) { return add_node(d); }

uint32_t DistributionTable::add_sum(const std::vector<uint32_t>& roots) {
    if (roots.empty()) throw std::invalid_argument("empty sum distribution");
    // Constant parts are added once, as one det part.
    std::vector<uint32_t> parts;
    double constant = 0;
    for (uint32_t r : roots) {
        if (nodes_[r].kind == Kind::Det) constant += nodes_[r].a;
        else parts.push_back(r);
    }
    if (constant != 0 || parts.empty()) {
        Node c;
        c.a = constant;
        nodes_.push_back(c);
        parts.push_back(static_cast<uint32_t>(nodes_.size() - 1));
    }
    if (parts.size() == 1) return parts[0];
    Node n;
    n.kind = Kind::Sum;
    n.first = static_cast<uint32_t>(kids_.size());
    n.count = static_cast<uint32_t>(parts.size());
    kids_.insert(kids_.end(), parts.begin(), parts.end());
    nodes_.push_back(n);
    return static_cast<uint32_t>(nodes_.size() - 1);
}

uint32_t DistributionTable::add_node(const net::Distribution& d) {
    const uint32_t id = static_cast<uint32_t>(nodes_.size());
    nodes_.emplace_back();
    Node n;
    auto add_kids = [&](const std::vector<net::Distribution>& parts) {
        std::vector<uint32_t> ids;
        for (const auto& p : parts) ids.push_back(add_node(p));
        n.first = static_cast<uint32_t>(kids_.size());
        n.count = static_cast<uint32_t>(ids.size());
        kids_.insert(kids_.end(), ids.begin(), ids.end());
    };
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, net::Det>) {
                n.kind = Kind::Det;
                n.a = x.value_s;
            } else if constexpr (std::is_same_v<T, net::Exp>) {
                n.kind = Kind::Exp;
                n.a = 1 / x.rate_per_s;  // mean
            } else if constexpr (std::is_same_v<T, net::Uniform>) {
                n.kind = Kind::Uniform;
                n.a = x.low_s;
                n.b = x.high_s - x.low_s;
            } else if constexpr (std::is_same_v<T, net::Normal>) {
                n.kind = x.sd_s > 0 ? Kind::Normal : Kind::Det;
                n.a = x.sd_s > 0 ? x.mean_s : std::max(0.0, x.mean_s);
                n.b = x.sd_s;
            } else if constexpr (std::is_same_v<T, net::Lognormal>) {
                // mean m, cv: σ² = ln(1 + cv²), μ = ln m − σ²/2.
                const double s2 = std::log1p(x.cv * x.cv);
                n.kind = x.cv > 0 ? Kind::Lognormal : Kind::Det;
                n.a = x.cv > 0 ? std::log(x.mean_s) - s2 / 2 : x.mean_s;
                n.b = std::sqrt(s2);
            } else if constexpr (std::is_same_v<T, net::Gamma>) {
                // shape 1/cv², scale mean·cv².
                n.kind = x.cv > 0 ? Kind::Gamma : Kind::Det;
                n.a = x.cv > 0 ? 1 / (x.cv * x.cv) : x.mean_s;
                n.b = x.mean_s * x.cv * x.cv;
            } else if constexpr (std::is_same_v<T, net::Erlang>) {
                if (x.k < 1) throw std::invalid_argument("erlang k must be >= 1");
                n.kind = Kind::Erlang;
                n.count = static_cast<uint32_t>(x.k);
                n.a = x.mean_s / x.k;
            } else if constexpr (std::is_same_v<T, net::Weibull>) {
                n.kind = Kind::Weibull;
                n.a = 1 / x.shape;
                n.b = x.scale_s;
            } else if constexpr (std::is_same_v<T, net::Empirical>) {
                if (x.values_s.empty()) throw std::invalid_argument("empty empirical distribution");
                n.kind = Kind::Empirical;
                n.first = static_cast<uint32_t>(values_.size());
                n.count = static_cast<uint32_t>(x.values_s.size());
                values_.insert(values_.end(), x.values_s.begin(), x.values_s.end());
            } else if constexpr (std::is_same_v<T, net::Mixture>) {
                if (x.parts.empty() || x.parts.size() != x.probs.size())
                    throw std::invalid_argument("malformed mixture distribution");
                n.kind = Kind::Mixture;
                add_kids(x.parts);
                n.a = static_cast<double>(values_.size());  // cumulative probabilities
                double acc = 0;
                for (double p : x.probs) values_.push_back(acc += p);
                values_.back() = 2;  // the last component catches rounding
            } else if constexpr (std::is_same_v<T, net::Scaled>) {
                if (x.base.size() != 1) throw std::invalid_argument("malformed scaled distribution");
                n.kind = Kind::Scaled;
                add_kids(x.base);
                n.a = x.factor;
            } else if constexpr (std::is_same_v<T, net::Shifted>) {
                if (x.base.size() != 1) throw std::invalid_argument("malformed shifted distribution");
                n.kind = Kind::Shifted;
                add_kids(x.base);
                n.a = x.offset_s;
            } else if constexpr (std::is_same_v<T, net::Sum>) {
                if (x.parts.empty()) throw std::invalid_argument("empty sum distribution");
                n.kind = Kind::Sum;
                add_kids(x.parts);
            }
        },
        d.v);
    nodes_[id] = n;
    return id;
}

bool DistributionTable::is_deterministic(uint32_t root) const {
    const Node& n = nodes_[root];
    switch (n.kind) {
        case Kind::Det: return true;
        case Kind::Scaled:
        case Kind::Shifted:
        case Kind::Sum:
            for (uint32_t i = 0; i < n.count; ++i)
                if (!is_deterministic(kids_[n.first + i])) return false;
            return true;
        default: return false;
    }
}

double DistributionTable::sample(uint32_t root, Rng& rng) const {
    const Node& n = nodes_[root];
    switch (n.kind) {
        case Kind::Det: return n.a;
        case Kind::Exp: return n.a * rng.exponential();
        case Kind::Uniform: return n.a + n.b * rng.uniform();
        case Kind::Normal:
            // Truncated at 0 by resampling; after many rejections the mass above 0 is
            // negligible and 0 is returned.
            for (int i = 0; i < 10000; ++i) {
                const double x = n.a + n.b * rng.normal();
                if (x >= 0) return x;
            }
            return 0;
        case Kind::Lognormal: return std::exp(n.a + n.b * rng.normal());
        case Kind::Gamma: return n.b * rng.gamma(n.a);
        case Kind::Erlang: {
            double s = 0;
            for (uint32_t i = 0; i < n.count; ++i) s += rng.exponential();
            return n.a * s;
        }
        case Kind::Weibull: return n.b * std::pow(rng.exponential(), n.a);
        case Kind::Empirical: {
            uint64_t i = static_cast<uint64_t>(rng.uniform() * n.count);
            if (i >= n.count) i = n.count - 1;
            return values_[n.first + i];
        }
        case Kind::Mixture: {
            const double u = rng.uniform();
            const double* cum = values_.data() + static_cast<std::size_t>(n.a);
            uint32_t i = 0;
            while (i + 1 < n.count && u >= cum[i]) ++i;
            return sample(kids_[n.first + i], rng);
        }
        case Kind::Scaled: return n.a * sample(kids_[n.first], rng);
        case Kind::Shifted: return n.a + sample(kids_[n.first], rng);
        case Kind::Sum: {
            double s = 0;
            for (uint32_t i = 0; i < n.count; ++i) s += sample(kids_[n.first + i], rng);
            return s;
        }
    }
    return 0;
}

double DistributionTable::exp_rate(uint32_t root) const {
    const Node& n = nodes_[root];
    return n.kind == Kind::Exp && n.a > 0 ? 1 / n.a : 0.0;
}

}  // namespace sgdnet::solver
