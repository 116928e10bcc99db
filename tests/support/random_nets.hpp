// Random small bounded nets for property tests and the coverage suite: every net has an exact solution to compare with.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/support/test_nets.hpp"

namespace sgdnet::testing {

/// A random conservative (hence bounded) net from `seed`: a ring of exponential transitions
/// through 3–5 places holding 1–4 tokens, plus extra exponential and immediate transitions that
/// move one token between random places, some with inhibitor arcs, test arcs, two servers,
/// priorities and weights. Measures: throughput of a ring transition, tokens of a place,
/// throughput of an immediate, prob(place non-empty).
inline net::PetriNet random_net(uint64_t seed) {
    std::mt19937_64 g(seed);
    auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
    auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(g); };
    NetBuilder b;
    const int np = uni(3, 5);
    std::vector<uint32_t> p;
    for (int i = 0; i < np; ++i) p.push_back(b.place("p" + std::to_string(i)));
    const int tokens = uni(1, 4);
    for (int k = 0; k < tokens; ++k) b.net.places[p[uni(0, np - 1)]].initial += 1;
    std::vector<uint32_t> timed, imm;
    for (int i = 0; i < np; ++i) {
        timed.push_back(b.timed("ring" + std::to_string(i), real(0.5, 3.0), {{p[i], 1}},
                                {{p[(i + 1) % np], 1}}, {}, uni(0, 3) == 0 ? 2 : 1));
    }
    const int extra = uni(1, 3);
    for (int k = 0; k < extra; ++k) {
        const int a = uni(0, np - 1), c = uni(0, np - 1), h = uni(0, np - 1);
        NetBuilder::Arcs in{{p[a], 1}}, out{{p[c], 1}}, inhibit;
        if (uni(0, 1) == 1 && h != a) inhibit.push_back({p[h], static_cast<uint32_t>(uni(1, 2))});
        const int t = uni(0, np - 1);
        if (uni(0, 2) == 0 && t != a) {  // test arc
            in.push_back({p[t], 1});
            out.push_back({p[t], 1});
        }
        timed.push_back(b.timed("x" + std::to_string(k), real(0.2, 2.0), in, out, inhibit));
    }
    // Immediates move a token forward (a < c), so they cannot loop, and only while the target
    // holds fewer than 1–2 tokens (an inhibitor on the target): a "join if not busy" rule.
    const int nimm = uni(1, 3);
    for (int k = 0; k < nimm; ++k) {
        const int a = uni(0, np - 2), c = uni(a + 1, np - 1), h = uni(0, np - 1);
        NetBuilder::Arcs inhibit{{p[c], static_cast<uint32_t>(uni(1, 2))}};
        if (uni(0, 2) == 0 && h != a && h != c) inhibit.push_back({p[h], 1});
        imm.push_back(b.immediate("i" + std::to_string(k), uni(1, 2), real(0.5, 2.0),
                                  {{p[a], 1}}, {{p[c], 1}}, inhibit));
    }
    b.throughput("thr", {{timed[uni(0, np - 1)], 1}});
    b.tokens("tok", p[uni(0, np - 1)]);
    b.throughput("imm", {{imm[0], 1}});
    b.prob_at_least("busy", p[uni(0, np - 1)], 1);
    return b.net;
}

}  // namespace sgdnet::testing
