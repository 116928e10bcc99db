// Random streams seeded from (seed, replication index) and the project's own delay samplers.
#pragma once

#include <cstdint>
#include <vector>

#include "net/distribution.hpp"

namespace sgdnet::solver {

/// SplitMix64 step (Steele, Lea, Flood 2014): advances `state` and returns the next output.
uint64_t splitmix64(uint64_t& state);

/// xoshiro256** (Blackman & Vigna 2018) with the project's own transforms, so draws are the
/// same with every standard library. One Rng per replication: Rng(seed, index).
class Rng {
public:
    /// Stream `stream` of master seed `seed`; distinct (seed, stream) pairs give unrelated
    /// streams (the state is filled by SplitMix64 from a mix of both).
    Rng(uint64_t seed, uint64_t stream);

    /// UniformRandomBitGenerator, for Boost.Random's distributions.
    using result_type = uint64_t;
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return ~result_type{0}; }
    result_type operator()() { return next(); }

    /// Next raw 64-bit output.
    uint64_t next() {
        ++draws_;
        const uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    /// Uniform on [0, 1) with 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    /// Uniform on (0, 1].
    double uniform_pos() { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }
    /// Exponential with mean 1.
    double exponential();
    /// Standard normal (Boost.Random's ziggurat, Marsaglia & Tsang 2000: one 64-bit draw for
    /// about 99% of values).
    double normal();
    /// Gamma with the given shape (> 0) and scale 1 (Marsaglia & Tsang 2000).
    double gamma(double shape);
    /// Number of 64-bit outputs drawn so far (0 means the trajectory used no randomness).
    uint64_t draws() const { return draws_; }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t s_[4];
    uint64_t draws_ = 0;
};

/// Every delay distribution of a net flattened into one node table, sampled without
/// allocation or virtual calls (docs/language.md §4).
class DistributionTable {
public:
    /// Adds `d` and returns its root index. Throws std::invalid_argument on malformed input
    /// (empty empirical or mixture, mismatched mixture probabilities).
    uint32_t add(const net::Distribution& d);
    /// Adds the sum of independent draws of the distributions rooted at `roots` (non-empty).
    uint32_t add_sum(const std::vector<uint32_t>& roots);
    /// One draw (seconds, >= 0) from the distribution rooted at `root`.
    double sample(uint32_t root, Rng& rng) const;
    /// True when the root is a constant (no randomness).
    bool is_deterministic(uint32_t root) const;
    /// The rate (1/s) of an exponential root; 0 for any other distribution.
    double exp_rate(uint32_t root) const;

private:
    enum class Kind : uint8_t { Det, Exp, Uniform, Normal, Lognormal, Gamma, Erlang, Weibull,
                                Empirical, Mixture, Scaled, Shifted, Sum };
    struct Node {
        Kind kind = Kind::Det;
        uint32_t first = 0;  // children (node indexes in kids_) or values (in values_)
        uint32_t count = 0;
        double a = 0, b = 0, c = 0;
    };
    uint32_t add_node(const net::Distribution& d);
    std::vector<Node> nodes_;
    std::vector<uint32_t> kids_;
    std::vector<double> values_;  // empirical values; mixture cumulative probabilities
};

}  // namespace sgdnet::solver
