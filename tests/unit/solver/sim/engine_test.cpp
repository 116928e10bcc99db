// Unit tests of one simulation replication: enabling, servers, memory, speed, errors, chains.
// This file replaces the global operator new/delete (malloc/free) to count allocations; GCC's
// matching heuristic does not know the pair is consistent.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "solver/sim/engine.hpp"
#include "solver/solve.hpp"
#include "tests/support/test_nets.hpp"

using namespace sgdnet;
using namespace sgdnet::solver;
using namespace sgdnet::testing;
using Status = SimEngine::Status;

// Counts every allocation of this test binary so that the hot loop can be shown not to allocate.
// AddressSanitizer brings its own operator new/delete family (and checks their pairing), so under
// it the count is not taken and the allocation test is skipped.
#if defined(__SANITIZE_ADDRESS__)
#define SGDNET_COUNT_ALLOCATIONS 0
#else
#define SGDNET_COUNT_ALLOCATIONS 1
namespace {
std::atomic<uint64_t> g_allocations{0};
}  // namespace
void* operator new(std::size_t n) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    return std::malloc(n ? n : 1);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
#endif

namespace {

/// Firings of `t` after running `e` to time `until` (the engine counts every transition).
struct Probe {
    CompiledNet cn;
    SimEngine engine;
    Probe(const net::PetriNet& n, std::vector<uint32_t> counted, uint64_t unbounded = 1'000'000)
        : cn(CompiledNet::build(n, {}, counted, unbounded)), engine(cn, 1, 0) {}
    std::vector<double> counts() {
        std::vector<double> out(cn.snapshot_width());
        engine.snapshot(out.data());
        return out;
    }
};

}  // namespace

// K = 2 servers, 3 tokens, det(1): two firings at t = 1, the third at t = 2.
TEST_CASE("engine: multiple servers fire concurrently") {
    NetBuilder b;
    const uint32_t q = b.place("q", 3), done = b.place("done");
    const uint32_t t = b.timed("t", det(1), {{q, 1}}, {{done, 1}}, {}, 2);
    Probe p(b.net, {t});
    REQUIRE(p.engine.run_until(1.5) == Status::Ok);
    CHECK(p.counts()[0] == 2);
    CHECK(p.engine.marking()[done] == 2);
    CHECK(p.engine.run_until(2.5) == Status::Deadlock);
    CHECK(p.counts()[0] == 3);
}

// Enabling degree with a multiplicity: in q*2 with 5 tokens and infinite servers → 2 clocks.
TEST_CASE("engine: enabling degree follows arc multiplicity") {
    NetBuilder b;
    const uint32_t q = b.place("q", 5), done = b.place("done");
    const uint32_t t = b.timed("t", det(1), {{q, 2}}, {{done, 3}}, {}, net::kInfiniteServers);
    Probe p(b.net, {t});
    REQUIRE(p.engine.run_until(0.5) == Status::Ok);
    CHECK(p.counts()[0] == 0);
    CHECK(p.engine.run_until(1.5) == Status::Deadlock);  // 1 token left: degree 0
    CHECK(p.counts()[0] == 2);
    CHECK(p.engine.marking()[q] == 1);
    CHECK(p.engine.marking()[done] == 6);
}

// A test arc (p in and out) is atomic: the transition stays enabled and restarts every 1 s.
TEST_CASE("engine: test arcs do not disable the transition") {
    NetBuilder b;
    const uint32_t p = b.place("p", 1);
    const uint32_t t = b.timed("t", det(1), {{p, 1}}, {{p, 1}});
    Probe pr(b.net, {t});
    REQUIRE(pr.engine.run_until(10.5) == Status::Ok);
    CHECK(pr.counts()[0] == 10);
}

// Job det(1) inhibited while `blk` is marked; the blocker alternates free 0.4 s / blocked 0.5 s.
//  age:      runs [0,0.4] (0.6 left), [0.9,1.3] (0.2 left), [1.8,2.0] → completes at t = 2.0.
//  enabling: each up-period (0.4 s) is shorter than the work, so it never completes.
TEST_CASE("engine: age memory resumes, enabling memory restarts") {
    for (net::Memory mem : {net::Memory::Age, net::Memory::Enabling}) {
        NetBuilder b;
        const uint32_t job = b.place("job", 1), out = b.place("out"), free = b.place("free", 1),
                       blk = b.place("blk");
        const uint32_t t = b.timed("work", det(1), {{job, 1}}, {{out, 1}}, {{blk, 1}}, 1, mem);
        b.timed("block", det(0.4), {{free, 1}}, {{blk, 1}});
        b.timed("unblock", det(0.5), {{blk, 1}}, {{free, 1}});
        Probe p(b.net, {t});
        REQUIRE(p.engine.run_until(1.99) == Status::Ok);
        CHECK(p.counts()[0] == 0);
        REQUIRE(p.engine.run_until(20) == Status::Ok);
        CHECK(p.counts()[0] == (mem == net::Memory::Age ? 1 : 0));
    }
}

// det(2) work at speed tokens(s): speed 1 on [0,1] (1 left), then s = 2 → done at 1.5.
TEST_CASE("engine: a speed change reschedules the remaining work exactly") {
    NetBuilder b;
    const uint32_t job = b.place("job", 1), s = b.place("s", 1), src = b.place("src", 1);
    const uint32_t t = b.timed("work", det(2), {{job, 1}}, {}, {}, 1, net::Memory::Enabling,
                               net::MarkingExpr::tokens(s));
    b.timed("boost", det(1), {{src, 1}}, {{s, 1}});
    Probe p(b.net, {t});
    REQUIRE(p.engine.run_until(1.49) == Status::Ok);
    CHECK(p.counts()[0] == 0);
    CHECK(p.engine.run_until(1.51) == Status::Deadlock);
    CHECK(p.counts()[0] == 1);
    CHECK(p.engine.now() == doctest::Approx(1.5));
}

// A disabled transition is re-examined only when the place that disables it changes; these
// cases change the other places while it is disabled and check that enabling still happens at
// the right time and with the speed of the marking at that time.
TEST_CASE("engine: a disabled transition wakes on the place that disables it") {
    SUBCASE("speed read while disabled: the clock starts at the current speed") {
        // work ~ det(2) at speed tokens(s), needs `job`, which arrives at t = 3; s goes
        // 1 → 2 at t = 1 while work is disabled: it starts at speed 2 and ends at 3 + 1 = 4.
        NetBuilder b;
        const uint32_t job = b.place("job"), s = b.place("s", 1), src = b.place("src", 1),
                       src2 = b.place("src2", 1);
        const uint32_t t = b.timed("work", det(2), {{job, 1}}, {}, {}, 1, net::Memory::Enabling,
                                   net::MarkingExpr::tokens(s));
        b.timed("boost", det(1), {{src, 1}}, {{s, 1}});
        b.timed("arrive", det(3), {{src2, 1}}, {{job, 1}});
        Probe p(b.net, {t});
        REQUIRE(p.engine.run_until(3.99) == Status::Ok);
        CHECK(p.counts()[0] == 0);
        CHECK(p.engine.run_until(4.01) == Status::Deadlock);
        CHECK(p.counts()[0] == 1);
        CHECK(p.engine.now() == doctest::Approx(4));
    }
    SUBCASE("disabled by an inhibitor, then by each input in turn") {
        // t (det 0.5) needs a, b*2 and an empty `stop`. stop is drained at 0.5, a arrives at 1,
        // b at 1.5 and 3: the place that disables t is stop, then a, then b; t starts at 3 and
        // fires at 3.5.
        NetBuilder b;
        const uint32_t a = b.place("a"), bb = b.place("b"), stop = b.place("stop", 1),
                       sa = b.place("sa", 1), sb = b.place("sb", 2), out = b.place("out");
        const uint32_t t = b.timed("t", det(0.5), {{a, 1}, {bb, 2}}, {{out, 1}}, {{stop, 1}});
        b.timed("drain", det(0.5), {{stop, 1}}, {});
        b.timed("give_a", det(1), {{sa, 1}}, {{a, 1}});
        b.timed("give_b", det(1.5), {{sb, 1}}, {{bb, 1}});
        Probe p(b.net, {t});
        REQUIRE(p.engine.run_until(3.49) == Status::Ok);
        CHECK(p.counts()[0] == 0);
        CHECK(p.engine.marking()[bb] == 2);
        CHECK(p.engine.run_until(10) == Status::Deadlock);
        CHECK(p.counts()[0] == 1);
        CHECK(p.engine.now() == doctest::Approx(3.5));
        CHECK(p.engine.marking()[out] == 1);
    }
    SUBCASE("multiplicity reached by successive arrivals") {
        // t needs b*2 and no token in `stop`; b gets a token at 1 and 2, stop is never marked.
        NetBuilder b;
        const uint32_t bb = b.place("b"), stop = b.place("stop"), sb = b.place("sb", 2),
                       out = b.place("out");
        const uint32_t t = b.timed("t", det(0.5), {{bb, 2}}, {{out, 1}}, {{stop, 1}});
        b.timed("give_b", det(1), {{sb, 1}}, {{bb, 1}});
        Probe p(b.net, {t});
        REQUIRE(p.engine.run_until(2.49) == Status::Ok);
        CHECK(p.counts()[0] == 0);
        CHECK(p.engine.run_until(10) == Status::Deadlock);
        CHECK(p.counts()[0] == 1);
        CHECK(p.engine.now() == doctest::Approx(2.5));
    }
    SUBCASE("an inhibitor that empties enables the transition") {
        // t (det 1) needs `go` and an empty `hold`; hold loses its 3 tokens at 1, 2, 3 → t
        // starts at 3 and fires at 4.
        NetBuilder b;
        const uint32_t go = b.place("go", 1), hold = b.place("hold", 3), out = b.place("out");
        const uint32_t t = b.timed("t", det(1), {{go, 1}}, {{out, 1}}, {{hold, 1}});
        b.timed("leak", det(1), {{hold, 1}}, {});
        Probe p(b.net, {t});
        REQUIRE(p.engine.run_until(3.99) == Status::Ok);
        CHECK(p.counts()[0] == 0);
        CHECK(p.engine.run_until(10) == Status::Deadlock);
        CHECK(p.counts()[0] == 1);
        CHECK(p.engine.now() == doctest::Approx(4));
    }
}

TEST_CASE("engine: time averages integrate the marking") {
    // One token: a for 0.25 s, then b for 0.75 s, repeat. ∫ tokens(a) over [0, 10] = 2.5.
    NetBuilder b;
    const uint32_t a = b.place("a", 1), pb = b.place("b");
    b.timed("ab", det(0.25), {{a, 1}}, {{pb, 1}});
    b.timed("ba", det(0.75), {{pb, 1}}, {{a, 1}});
    const CompiledNet cn = CompiledNet::build(b.net, {net::MarkingExpr::tokens(a)}, {}, 1000);
    SimEngine e(cn, 1, 0);
    REQUIRE(e.run_until(10) == Status::Ok);
    double integral = 0;
    e.snapshot(&integral);
    CHECK(integral == doctest::Approx(2.5));
}

TEST_CASE("engine: count integrals sum the time since each firing") {
    // "ab" fires at 0.25, 1.25, 2.25, 3.25 (weight 2 in the column); at t = 3.5 the count is 8
    // and ∫ count dt = 2·(3.25 + 2.25 + 1.25 + 0.25) = 14.
    NetBuilder b;
    const uint32_t a = b.place("a", 1), pb = b.place("b");
    const uint32_t ab = b.timed("ab", det(0.25), {{a, 1}}, {{pb, 1}});
    b.timed("ba", det(0.75), {{pb, 1}}, {{a, 1}});
    const CompiledNet cn = CompiledNet::build_columns(b.net, {}, {{{ab, 2.0}}}, 1000);
    SimEngine e(cn, 1, 0);
    REQUIRE(e.run_until(3.5) == Status::Ok);
    double count = 0, integral = 0;
    e.snapshot(&count);
    e.count_integrals(&integral);
    CHECK(count == 8);
    CHECK(integral == doctest::Approx(14));
}

TEST_CASE("engine: errors are reported as statuses") {
    SUBCASE("bound exceeded") {
        NetBuilder b;
        const uint32_t q = b.place("q", 0, 3);
        b.timed("src", det(1), {}, {{q, 1}});
        Probe p(b.net, {});
        CHECK(p.engine.run_until(10) == Status::BoundExceeded);
        CHECK(p.engine.error_element() == q);
        CHECK(p.engine.now() == 4);
    }
    SUBCASE("unbounded") {
        NetBuilder b;
        const uint32_t q = b.place("q");
        b.timed("src", exp_rate(1), {}, {{q, 1}});
        Probe p(b.net, {}, 10);
        CHECK(p.engine.run_until(1e9) == Status::Unbounded);
        CHECK(p.engine.error_element() == q);
        CHECK(p.engine.marking()[q] == 11);
    }
    SUBCASE("timeless trap") {
        NetBuilder b;
        const uint32_t x = b.place("x", 1), y = b.place("y");
        b.immediate("xy", 1, 1, {{x, 1}}, {{y, 1}});
        b.immediate("yx", 1, 1, {{y, 1}}, {{x, 1}});
        b.timed("tick", exp_rate(1), {}, {});
        Probe p(b.net, {});
        CHECK(p.engine.run_until(1) == Status::TimelessTrap);
    }
    SUBCASE("negative speed") {
        NetBuilder b;
        const uint32_t x = b.place("x", 1);
        b.timed("t", exp_rate(1), {{x, 1}}, {}, {}, 1, net::Memory::Enabling,
                net::MarkingExpr::constant(-1));
        Probe p(b.net, {});
        CHECK(p.engine.run_until(1) == Status::BadSpeed);
    }
}

TEST_CASE("simulate: model errors become SolveErrors naming the element") {
    SUBCASE("deadlock names the time and the marking") {
        NetBuilder b;
        const uint32_t a = b.place("a", 2), c = b.place("c");
        const uint32_t t = b.timed("t", exp_rate(1), {{a, 1}}, {{c, 1}});
        b.throughput("X", t);
        try {
            simulate(b.net, SolveOptions{});
            FAIL("no error");
        } catch (const SolveError& e) {
            CHECK(e.kind() == SolveError::Kind::Deadlock);
            CHECK(std::string(e.what()).find("c=2") != std::string::npos);
            CHECK(std::string(e.what()).find("t=") != std::string::npos);
        }
    }
    SUBCASE("bound exceeded names the place") {
        NetBuilder b;
        b.place("other");
        const uint32_t q = b.place("buf", 0, 4);
        const uint32_t t = b.timed("src", exp_rate(1), {}, {{q, 1}});
        b.throughput("X", t);
        try {
            simulate(b.net, SolveOptions{});
            FAIL("no error");
        } catch (const SolveError& e) {
            CHECK(e.kind() == SolveError::Kind::BoundExceeded);
            CHECK(e.place() == q);
            CHECK(std::string(e.what()).find("'buf'") != std::string::npos);
        }
    }
    SUBCASE("unbounded growth names the place") {
        NetBuilder b;
        const uint32_t q = b.place("grow");
        b.timed("src", exp_rate(2), {}, {{q, 1}});
        const uint32_t t = b.timed("srv", exp_rate(1), {{q, 1}}, {});
        b.throughput("X", t);
        SolveOptions o;
        o.unbounded_tokens = 1000;
        try {
            simulate(b.net, o);
            FAIL("no error");
        } catch (const SolveError& e) {
            CHECK(e.kind() == SolveError::Kind::Unbounded);
            CHECK(e.place() == q);
        }
    }
    SUBCASE("a timed source with infinite servers is rejected") {
        NetBuilder b;
        const uint32_t q = b.place("q");
        b.timed("src", exp_rate(1), {}, {{q, 1}}, {}, net::kInfiniteServers);
        CHECK_THROWS_AS(simulate(b.net, SolveOptions{}), SolveError);
    }
}

TEST_CASE("simulate: the wall-clock cap stops with precision_reached = false") {
    // M/M/1 at ρ = 0.95 with an unreachable precision: the cap must stop it with a warning.
    NetBuilder b;
    const uint32_t q = b.place("q");
    b.timed("arrive", exp_rate(0.95), {}, {{q, 1}});
    b.timed("serve", exp_rate(1), {{q, 1}}, {});
    b.tokens("L", q);
    SolveOptions o;
    o.precision = 1e-6;
    o.max_time_s = 0.5;
    const SolveResult r = simulate(b.net, o);
    CHECK_FALSE(r.precision_reached);
    REQUIRE_FALSE(r.warnings.empty());
    CHECK(r.warnings[0].find("precision not reached") != std::string::npos);
    CHECK(r.stats.wall_s < 3);
    CHECK(r.measures[0].mean > 0);
}

TEST_CASE("simulate: on_progress reports every round, and changes no result") {
    // M/M/1 at ρ = 0.5 to 1% precision: a few rounds, each doubling the simulated length.
    NetBuilder b;
    const uint32_t q = b.place("q");
    b.timed("arrive", exp_rate(0.5), {}, {{q, 1}});
    b.timed("serve", exp_rate(1), {{q, 1}}, {});
    b.tokens("L", q);
    SolveOptions o;
    o.precision = 0.01;
    const SolveResult plain = simulate(b.net, o);
    std::vector<SimProgress> calls;
    o.on_progress = [&calls](const SimProgress& p) { calls.push_back(p); };
    const SolveResult r = simulate(b.net, o);
    REQUIRE(r.precision_reached);
    CHECK(r.measures[0].mean == plain.measures[0].mean);
    CHECK(r.measures[0].ci_low == plain.measures[0].ci_low);
    REQUIRE(calls.size() >= 2);
    for (std::size_t k = 0; k < calls.size(); ++k) {
        CAPTURE(k);
        CHECK(calls[k].rounds == static_cast<int>(k) + 1);
        CHECK(calls[k].precision == 0.01);
        CHECK(calls[k].relative_half_width > 0);
        CHECK(std::isfinite(calls[k].relative_half_width));
        if (k == 0) continue;
        CHECK(calls[k].events > calls[k - 1].events);  // rounds double the simulated length
        CHECK(calls[k].wall_s >= calls[k - 1].wall_s);
    }
    // The last round met the target; the earlier ones did not (else it would have stopped).
    CHECK(calls.back().relative_half_width <= 0.01);
    CHECK(calls.back().relative_half_width ==
          doctest::Approx((r.measures[0].ci_high - r.measures[0].ci_low) / 2 /
                          r.measures[0].mean));
    CHECK(calls.back().events == r.stats.events);
    CHECK(calls.back().wall_s <= r.stats.wall_s);
}

// A closed net (5 jobs) with a processor-sharing station (infinite servers, speed), an age-memory
// transition that is suspended and resumed, and a weighted immediate choice: once every clock
// list has reached its largest size, simulating allocates nothing.
#if SGDNET_COUNT_ALLOCATIONS
TEST_CASE("engine: the event loop does not allocate in steady state") {
    NetBuilder b;
    const uint32_t q = b.place("q", 5), r = b.place("r"), x = b.place("x"), y = b.place("y"),
                   up = b.place("up", 1), down = b.place("down");
    b.timed("ps", exp_rate(2), {{q, 1}}, {{r, 1}}, {}, net::kInfiniteServers,
            net::Memory::Enabling, one_over_tokens({q}));
    b.immediate("toX", 1, 1, {{r, 1}}, {{x, 1}});
    b.immediate("toY", 1, 2, {{r, 1}}, {{y, 1}});
    b.timed("sx", {net::Gamma{0.3, 0.7}}, {{x, 1}}, {{q, 1}}, {{down, 1}}, 2, net::Memory::Age);
    b.timed("sy", {net::Lognormal{0.2, 1.0}}, {{y, 1}}, {{q, 1}}, {}, net::kInfiniteServers);
    b.timed("fail", exp_rate(0.5), {{up, 1}}, {{down, 1}});
    b.timed("repair", exp_rate(2), {{down, 1}}, {{up, 1}});
    const CompiledNet cn = CompiledNet::build(b.net, {positive(q), net::MarkingExpr::tokens(x)},
                                              {0, 1}, 1000);
    SimEngine e(cn, 3, 0);
    REQUIRE(e.run_until(2000) == Status::Ok);
    const uint64_t before = g_allocations.load();
    const uint64_t events_before = e.events();
    REQUIRE(e.run_until(20000) == Status::Ok);
    CHECK(e.events() - events_before > 100000);
    CHECK(g_allocations.load() == before);
}
#endif

// M/M/1 (λ = 1, μ = 2) started with 30,000 customers: the backlog drains at μ − λ = 1 per
// second, longer than the first round simulates (~16,000 s), so the run never reaches steady
// state and the result must say so.
TEST_CASE("simulate: a transient longer than the run is flagged") {
    NetBuilder b;
    const uint32_t q = b.place("q", 30000);
    b.timed("arrive", exp_rate(1), {}, {{q, 1}});
    b.timed("serve", exp_rate(2), {{q, 1}}, {});
    b.tokens("L", q);
    SolveOptions o;
    o.precision = 0.05;
    o.max_time_s = 1e-3;  // the first round always completes; no second one
    const SolveResult r = simulate(b.net, o);
    bool flagged = false;
    for (const std::string& w : r.warnings) {
        INFO(w);
        flagged = flagged || (w.find("'L'") != std::string::npos &&
                              w.find("may be biased") != std::string::npos);
    }
    CHECK_FALSE(r.precision_reached);
    CHECK(flagged);
}

// ready →t0 det(1)→ a →t1 (immediate)→ b →t2 det(2)→ c →t3 det(0.5)→ ready: one token cycles,
// nothing reads a, b or c, so the four transitions run as one 3.5-s event. Each chain end
// counts one firing of every member (t2's column gets its firings at the end of the cycle).
TEST_CASE("engine: a private chain runs as one event and counts every member's firings") {
    NetBuilder b;
    const uint32_t ready = b.place("ready", 1), a = b.place("a"), bb = b.place("b"),
                   c = b.place("c");
    const uint32_t t0 = b.timed("t0", det(1), {{ready, 1}}, {{a, 1}});
    b.immediate("t1", 1, 1, {{a, 1}}, {{bb, 1}});
    const uint32_t t2 = b.timed("t2", det(2), {{bb, 1}}, {{c, 1}});
    b.timed("t3", det(0.5), {{c, 1}}, {{ready, 1}});
    const CompiledNet cn = CompiledNet::build_columns(b.net, {}, {{{t0, 1.0}}, {{t2, 3.0}}},
                                                      1'000'000, Fusion::On);
    CHECK(cn.fused_chains == 1);
    CHECK(cn.fused_transitions == 4);
    CHECK(cn.limit[ready] == 1);
    SimEngine e(cn, 1, 0);
    REQUIRE(e.run_until(35.25) == Status::Ok);  // cycles end at 3.5, 7, …, 35
    std::vector<double> row(cn.snapshot_width());
    e.snapshot(row.data());
    CHECK(row[0] == 10);
    CHECK(row[1] == 30);
    CHECK(e.events() == 40);
    CHECK(e.marking()[ready] == 1);
    CHECK(e.marking()[c] == 0);

    SUBCASE("a place that a measure reads splits the chain there") {
        const CompiledNet cut = CompiledNet::build_columns(
            b.net, {net::MarkingExpr::tokens(c)}, {{{t0, 1.0}}}, 1'000'000, Fusion::On);
        CHECK(cut.fused_chains == 1);  // t0 → t1 → t2, ending in c; t3 alone
        CHECK(cut.fused_transitions == 3);
    }
    SUBCASE("a place with an explicit bound is not fused over") {
        NetBuilder g = b;
        g.net.places[c].bound = 1;  // t0 → t1 → t2 ends in c; t3 alone
        const CompiledNet fixed = CompiledNet::build_columns(g.net, {}, {}, 1'000'000, Fusion::On);
        CHECK(fixed.fused_transitions == 3);
        g.net.places[ready].bound = 1;  // the entry of t0: no chain starts there
        CHECK(CompiledNet::build_columns(g.net, {}, {}, 1'000'000, Fusion::On).fused_chains == 0);
    }
    SUBCASE("an immediate does not end a chain") {
        NetBuilder g;
        const uint32_t r = g.place("ready", 1), x = g.place("x"), y = g.place("y");
        g.timed("u0", det(1), {{r, 1}}, {{x, 1}});
        g.timed("u1", det(1), {{x, 1}}, {{y, 1}});
        g.immediate("back", 1, 1, {{y, 1}}, {{r, 1}});
        const CompiledNet cut = CompiledNet::build_columns(g.net, {}, {}, 1'000'000, Fusion::On);
        CHECK(cut.fused_chains == 1);
        CHECK(cut.fused_transitions == 2);  // u0 → u1; `back` fires on its own
    }
    SUBCASE("an inhibitor on a chain place, or a slowed member, keeps it apart") {
        NetBuilder g = b;
        g.timed("watch", det(1), {}, {}, {{a, 1}});
        const CompiledNet cut = CompiledNet::build_columns(g.net, {}, {}, 1'000'000, Fusion::On);
        CHECK(cut.fused_transitions == 2);  // t2 → t3
        NetBuilder s = b;
        s.net.transitions[t2].speed = net::MarkingExpr::tokens(ready);
        const CompiledNet slow = CompiledNet::build_columns(s.net, {}, {}, 1'000'000, Fusion::On);
        CHECK(slow.fused_chains == 0);  // ready is read by t2's speed: t0 starts no chain
    }
}

// Poisson arrivals (rate 1) into a tandem of two exponential stations (rates 2 and 3): the
// chain e →s1→ m →s2 is private, but a second customer arrives while the first is inside, so
// the fused run stops and the net is simulated as it is — with the same draws, hence the very
// same result as a run without fusion. Departures equal arrivals: throughput 1.
TEST_CASE("simulate: a chain that holds two tokens is simulated unfused, with the same result") {
    NetBuilder b;
    const uint32_t e = b.place("e"), m = b.place("m");
    b.timed("arrive", exp_rate(1), {}, {{e, 1}});
    b.timed("s1", exp_rate(2), {{e, 1}}, {{m, 1}});
    const uint32_t s2 = b.timed("s2", exp_rate(3), {{m, 1}}, {});
    b.throughput("X", s2);
    CHECK(CompiledNet::build(b.net, {}, {s2}, 1'000'000).fused_chains == 0);
    CHECK(CompiledNet::build_columns(b.net, {}, {}, 1'000'000, Fusion::On).fused_chains == 1);
    SolveOptions fused;
    fused.confidence = 0.999;
    SolveOptions plain = fused;
    plain.fuse_chains = false;
    const SolveResult rf = simulate(b.net, fused);
    const SolveResult rp = simulate(b.net, plain);
    CHECK(rf.measures[0].mean == rp.measures[0].mean);
    CHECK(rf.measures[0].ci_low == rp.measures[0].ci_low);
    CHECK(rf.stats.events == rp.stats.events);
    CHECK(rf.measures[0].ci_low <= 1.0);
    CHECK(rf.measures[0].ci_high >= 1.0);
}

// One token cycles through ten lognormal stages (means 1..10 ms, cv 0.5) and an exponential
// one (mean 45 ms): a renewal process of mean cycle 100 ms, 10 cycles/s exactly. The ten stages
// fuse into one; the 99.9% interval must still cover 10, with or without fusion.
TEST_CASE("simulate: a fused chain keeps the renewal rate of its cycle") {
    NetBuilder b;
    std::vector<uint32_t> p{b.place("p0", 1)};
    for (int k = 1; k <= 10; ++k) p.push_back(b.place("p" + std::to_string(k)));
    for (std::size_t k = 0; k < 10; ++k)
        b.timed("stage" + std::to_string(k),
                net::Distribution{net::Lognormal{static_cast<double>(k + 1) * 1e-3, 0.5}},
                {{p[k], 1}}, {{p[k + 1], 1}});
    const uint32_t back = b.timed("back", exp_rate(1 / 0.045), {{p[10], 1}}, {{p[0], 1}});
    b.throughput("X", back);
    CHECK(CompiledNet::build_columns(b.net, {}, {}, 1'000'000, Fusion::On).fused_transitions == 11);
    for (const bool fuse : {true, false}) {
        CAPTURE(fuse);
        SolveOptions o;
        o.confidence = 0.999;
        o.precision = 0.005;
        o.fuse_chains = fuse;
        const SolveResult r = simulate(b.net, o);
        CHECK(r.measures[0].ci_low <= 10.0);
        CHECK(r.measures[0].ci_high >= 10.0);
        CHECK(r.measures[0].ci_high - r.measures[0].ci_low < 0.2);
    }
}

// Share groups (processor sharing in virtual time) against the generic speed path. Three senders
// with two message slots each share their uplink (capacity 1) and a common downlink (capacity
// 2): a message runs at min(1 / tokens(up_i), 2 / tokens(down)), so which term binds changes
// all the time (1 vs 2/3, 1/2 vs 2/3, 1 vs 2, …). The same net with the speed written as
// `… * 1` is not recognised as a share and runs through the interpreter, clock by clock. Both
// draw the same numbers in the same order, so they must fire the same transitions the same
// number of times and agree on the time averages and on every clock's remaining work up to
// rounding. (Sharing amplifies rounding differences: on this net they grow about 30-fold per
// 250 s, from 1e-13 at t = 250 to 1e-7 at t = 1000, so the comparison stops at t = 800.)
TEST_CASE("engine: a shared clock disabled midway resumes its remaining work") {
    // tx: work 2 at speed 1 / tokens(p) = 1, from t = 0; an inhibitor holds it over [1, 1.5].
    // A speed implies age memory (whatever the transition says), so it resumes the 1 left and
    // fires at 2.5.
    for (const net::Memory memory : {net::Memory::Enabling, net::Memory::Age}) {
        CAPTURE(static_cast<int>(memory));
        NetBuilder b;
        const uint32_t p = b.place("p", 1), done = b.place("done"), h = b.place("h");
        const uint32_t b0 = b.place("b0", 1);
        const uint32_t tx = b.timed("tx", det(2), {{p, 1}}, {{done, 1}}, {{h, 1}}, 1, memory,
                                    one_over_tokens({p}));
        b.timed("block", det(1), {{b0, 1}}, {{h, 1}});
        b.timed("unblock", det(0.5), {{h, 1}}, {});
        const uint32_t c = b.place("c", 1);
        b.timed("tick", det(0.3), {{c, 1}}, {{c, 1}});  // keeps time going after tx fired
        const CompiledNet cn = CompiledNet::build(b.net, {}, {tx}, 1000);
        REQUIRE(cn.shared[tx] == 1);
        SimEngine e(cn, 1, 0);
        const double fires_at = 2.5;
        double count = 0;
        REQUIRE(e.run_until(fires_at - 0.01) == Status::Ok);
        e.snapshot(&count);
        CHECK(count == 0);
        REQUIRE(e.run_until(fires_at + 0.01) == Status::Ok);
        e.snapshot(&count);
        CHECK(count == 1);
    }
}

TEST_CASE("engine: share groups follow the binding share exactly") {
    using C = net::ExprOp::Code;
    auto build = [&](bool recognisable) {
        NetBuilder b;
        const uint32_t down = b.place("down.active");
        std::vector<uint32_t> counted;
        for (int i = 0; i < 3; ++i) {
            const std::string w = "w" + std::to_string(i);
            const uint32_t up = b.place(w + ".up.active");
            for (int m = 0; m < 2; ++m) {
                const std::string name = w + ".msg" + std::to_string(m);
                const uint32_t idle = b.place(name + ".idle", 1);
                const uint32_t sending = b.place(name + ".sending");
                net::MarkingExpr speed{{op(C::Const, 0, 1), op(C::Tokens, up), op(C::Div),
                                        op(C::Const, 0, 2), op(C::Tokens, down), op(C::Div),
                                        op(C::Min)}};
                if (!recognisable) {
                    speed.code.push_back(op(C::Const, 0, 1));
                    speed.code.push_back(op(C::Mul));
                }
                b.timed(name + ".think", exp_rate(1.0 + i), {{idle, 1}},
                        {{sending, 1}, {up, 1}, {down, 1}});
                counted.push_back(b.timed(name + ".tx",
                                          net::Distribution{net::Lognormal{1.0, 0.6}},
                                          {{sending, 1}, {up, 1}, {down, 1}}, {{idle, 1}}, {},
                                          1, net::Memory::Age, speed));
            }
        }
        return std::pair{b.net, counted};
    };
    const auto [shared_net, counted] = build(true);
    const auto [generic_net, counted2] = build(false);
    const std::vector<net::MarkingExpr> tracked{net::MarkingExpr::tokens(0)};
    const CompiledNet a = CompiledNet::build(shared_net, tracked, counted, 1'000'000);
    const CompiledNet g = CompiledNet::build(generic_net, tracked, counted2, 1'000'000);
    CHECK(a.group_place.size() == 4);
    CHECK(g.group_place.empty());
    for (uint32_t t : counted) {
        CHECK(a.shared[t] == 1);
        CHECK(g.shared[t] == 0);
    }
    SimEngine ea(a, 7, 0), eg(g, 7, 0);
    std::vector<double> ra(a.snapshot_width()), rg(g.snapshot_width());
    for (double t = 100; t <= 800; t += 100) {
        REQUIRE(ea.run_until(t) == Status::Ok);
        REQUIRE(eg.run_until(t) == Status::Ok);
        CHECK(ea.events() == eg.events());
        ea.snapshot(ra.data());
        eg.snapshot(rg.data());
        for (std::size_t k = 0; k < counted.size(); ++k) CHECK(ra[k] == rg[k]);
        CHECK(ra.back() == doctest::Approx(rg.back()).epsilon(1e-9));
        // The remaining work of every running clock agrees too.
        REQUIRE(ea.settle() == Status::Ok);
        REQUIRE(eg.settle() == Status::Ok);
        std::vector<double> sa, sg;
        ea.state_signature(sa);
        eg.state_signature(sg);
        REQUIRE(sa.size() == sg.size());
        for (std::size_t k = 0; k < sa.size(); ++k) CHECK(std::fabs(sa[k] - sg[k]) < 1e-7);
    }
    CHECK(ea.events() > 2000);
}
