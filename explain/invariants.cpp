// Place invariants by Farkas' algorithm and the token and throughput bounds they imply.
#include "explain/invariants.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <type_traits>
#include <variant>

#include "net/distribution.hpp"

namespace sgdnet::explain {
namespace {

constexpr int64_t kLargest = int64_t{1} << 40;  // beyond this a weight could overflow a product

/// A row of Farkas' tableau: the transitions' part still to be cancelled, the place weights,
/// and the weights' support as a bit set.
struct Row {
    std::vector<int64_t> c, y;
    std::vector<uint64_t> support;
};

bool subset(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
    for (std::size_t k = 0; k < a.size(); ++k)
        if (a[k] & ~b[k]) return false;
    return true;
}

/// a·r1 + b·r2 divided by the gcd of its entries; false when an entry grows too large.
bool combine(const Row& r1, int64_t a, const Row& r2, int64_t b, Row& out) {
    out.c.resize(r1.c.size());
    out.y.resize(r1.y.size());
    int64_t g = 0;
    auto mix = [&](int64_t x1, int64_t x2, int64_t& dst) {
        if (std::llabs(x1) > kLargest / std::max<int64_t>(a, 1) ||
            std::llabs(x2) > kLargest / std::max<int64_t>(b, 1))
            return false;
        dst = a * x1 + b * x2;
        g = std::gcd(g, std::llabs(dst));
        return true;
    };
    for (std::size_t k = 0; k < r1.c.size(); ++k)
        if (!mix(r1.c[k], r2.c[k], out.c[k])) return false;
    for (std::size_t k = 0; k < r1.y.size(); ++k)
        if (!mix(r1.y[k], r2.y[k], out.y[k])) return false;
    if (g > 1) {
        for (auto& x : out.c) x /= g;
        for (auto& x : out.y) x /= g;
    }
    out.support.resize(r1.support.size());
    for (std::size_t k = 0; k < r1.support.size(); ++k)
        out.support[k] = r1.support[k] | r2.support[k];
    return true;
}

/// Cancels column j: keeps the rows that are zero there and adds every positive/negative pair
/// whose support contains no third row's (the adjacency test that keeps the set minimal).
bool cancel_column(std::vector<Row>& rows, std::size_t j, std::size_t max_rows) {
    std::vector<std::size_t> pos, neg;
    std::vector<Row> next;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        if (rows[r].c[j] > 0) pos.push_back(r);
        else if (rows[r].c[j] < 0) neg.push_back(r);
        else next.push_back(rows[r]);
    }
    for (std::size_t p : pos)
        for (std::size_t n : neg) {
            Row row;
            if (!combine(rows[p], -rows[n].c[j], rows[n], rows[p].c[j], row)) return false;
            bool minimal = true;
            for (std::size_t r = 0; r < rows.size() && minimal; ++r)
                if (r != p && r != n && subset(rows[r].support, row.support)) minimal = false;
            if (!minimal) continue;
            next.push_back(std::move(row));
            if (next.size() > max_rows) return false;
        }
    rows = std::move(next);
    return true;
}

/// Completed delays are unbiased draws of the distribution: no preemption can favour short ones.
bool unbiased_completions(const net::Transition& t) {
    if (t.memory == net::Memory::Age) return true;
    return std::holds_alternative<net::Exp>(t.delay.v) || std::holds_alternative<net::Det>(t.delay.v);
}

}  // namespace

StructuralBounds structural_bounds(const net::PetriNet& net, std::size_t max_rows) {
    const std::size_t np = net.places.size(), nt = net.transitions.size();
    StructuralBounds out;
    out.place_tokens.assign(np, std::nullopt);
    out.firings_per_s.assign(nt, std::nullopt);

    if (np * std::max<std::size_t>(nt, 1) > 4'000'000) {
        out.complete = false;
    } else {
        std::vector<Row> rows(np);
        const std::size_t words = (np + 63) / 64;
        for (std::size_t p = 0; p < np; ++p) {
            rows[p].c.assign(nt, 0);
            rows[p].y.assign(np, 0);
            rows[p].y[p] = 1;
            rows[p].support.assign(words, 0);
            rows[p].support[p / 64] |= uint64_t{1} << (p % 64);
        }
        for (std::size_t t = 0; t < nt; ++t) {
            for (const auto& a : net.transitions[t].inputs)
                rows[a.place.value].c[t] -= a.multiplicity;
            for (const auto& a : net.transitions[t].outputs)
                rows[a.place.value].c[t] += a.multiplicity;
        }
        for (std::size_t t = 0; t < nt && out.complete; ++t)
            out.complete = cancel_column(rows, t, max_rows);
        if (out.complete)
            for (const Row& r : rows) {
                PlaceInvariant inv;
                for (std::size_t p = 0; p < np; ++p)
                    if (r.y[p] > 0) {
                        inv.weights.emplace_back(uint32_t(p), r.y[p]);
                        inv.tokens += r.y[p] * int64_t(net.places[p].initial);
                    }
                if (!inv.weights.empty()) out.invariants.push_back(std::move(inv));
            }
    }

    for (std::size_t p = 0; p < np; ++p)
        if (net.places[p].bound) out.place_tokens[p] = double(*net.places[p].bound);
    for (const auto& inv : out.invariants)
        for (const auto& [p, w] : inv.weights) {
            const double b = std::floor(double(inv.tokens) / double(w));
            if (!out.place_tokens[p] || b < *out.place_tokens[p]) out.place_tokens[p] = b;
        }

    for (std::size_t t = 0; t < nt; ++t) {
        const auto& tr = net.transitions[t];
        if (tr.kind != net::TransitionKind::Timed || tr.speed || !unbiased_completions(tr)) continue;
        const double mean = net::mean(tr.delay);
        if (!(mean > 0) || !std::isfinite(mean)) continue;
        double degree = tr.servers == net::kInfiniteServers ? std::numeric_limits<double>::infinity()
                                                            : double(tr.servers);
        for (const auto& a : tr.inputs)
            if (const auto& b = out.place_tokens[a.place.value])
                degree = std::min(degree, std::floor(*b / a.multiplicity));
        if (std::isfinite(degree)) out.firings_per_s[t] = degree / mean;
    }
    return out;
}

}  // namespace sgdnet::explain
