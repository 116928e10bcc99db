// Unit tests of the indexed min-heap of clock completions.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "solver/sim/event_queue.hpp"
#include "solver/sim/rng.hpp"

using sgdnet::solver::EventQueue;

TEST_CASE("event queue: pops in time order, ties by id") {
    EventQueue q;
    q.reserve(8);
    CHECK(q.empty());
    CHECK(q.top_time() == std::numeric_limits<double>::infinity());
    q.push(5, 2.0);
    q.push(3, 1.0);
    q.push(7, 1.0);
    q.push(1, 3.0);
    CHECK(q.top() == 3);  // time 1.0, smaller id than 7
    q.pop();
    CHECK(q.top() == 7);
    q.update(1, 0.5);
    CHECK(q.top() == 1);
    q.erase(7);
    CHECK_FALSE(q.contains(7));
    CHECK(q.top() == 1);
    q.pop();
    CHECK(q.top() == 5);
    CHECK(q.time(5) == 2.0);
    q.update(5, std::numeric_limits<double>::infinity());
    CHECK(q.top_time() == std::numeric_limits<double>::infinity());
    q.clear();
    CHECK(q.empty());
    CHECK_FALSE(q.contains(5));
}

TEST_CASE("event queue: random operations agree with a sorted reference") {
    EventQueue q;
    const uint32_t n = 200;
    q.reserve(n);
    std::vector<double> ref(n, -1);  // -1: absent
    sgdnet::solver::Rng rng(3, 0);
    for (int step = 0; step < 20000; ++step) {
        const uint32_t id = static_cast<uint32_t>(rng.uniform() * n);
        const double t = rng.uniform();
        const double op = rng.uniform();
        if (ref[id] < 0) {
            q.push(id, t);
            ref[id] = t;
        } else if (op < 0.4) {
            q.update(id, t);
            ref[id] = t;
        } else if (op < 0.7) {
            q.erase(id);
            ref[id] = -1;
        } else if (!q.empty()) {
            const uint32_t top = q.top();
            ref[top] = -1;
            q.pop();
        }
        // Reference minimum: smallest (time, id).
        uint32_t best = EventQueue::kNone;
        for (uint32_t i = 0; i < n; ++i)
            if (ref[i] >= 0 && (best == EventQueue::kNone || ref[i] < ref[best])) best = i;
        if (best == EventQueue::kNone) {
            REQUIRE(q.empty());
        } else {
            REQUIRE(q.top() == best);
            REQUIRE(q.top_time() == ref[best]);
        }
    }
}
