// End-to-end truth tests from .sgdnet text (compile → simulate), and fine parameter-server timing.
#include <doctest/doctest.h>

#include <string>

#include "tests/support/training_support.hpp"

using namespace sgdnet;
using namespace sgdnet::compiler;
using namespace sgdnet::training_test;

// The docs/language.md §1 example with deterministic compute: step = 120 ms + 2·7·(44.7 MB/(8 ·
// 1.25 GB/s) + 2 · 20 us) + 4 ms = 187.14 ms; samples_per_s = 8 · 32 / step.
TEST_CASE("text: the ring8 example against its closed form") {
    const std::string text = R"(
model ring8;
param N  = 8;
param bw = 10 Gbps;
worker w[N] {
  compute   = det(120 ms);
  update    = det(4 ms);
  bandwidth = bw;
  latency   = 20 us;
  batch     = 32;
}
training { sync = allreduce_ring; granularity = coarse; model_bytes = 44.7 MB; }
)";
    const double step = 0.120 + 14 * (44.7e6 / (8 * 1.25e9) + 40e-6) + 0.004;
    auto e = run_sim(compile_text(text));
    check_exact(e["step_time"], step);
    check_exact(e["samples_per_s"], 8 * 32 / step);
    // --set N=2 and bw=25Gbps: step = 120 ms + 2·(44.7 MB/(2 · 3.125 GB/s) + 40 us) + 4 ms.
    CompileOptions opts;
    opts.overrides = {{"N", "2"}, {"bw", "25Gbps"}};
    auto e2 = run_sim(compile_text(text, opts));
    check_exact(e2["step_time"], 0.120 + 2 * (44.7e6 / (2 * 3.125e9) + 40e-6) + 0.004);
}

// ps_async with a free network (no bandwidth, no latency, no server update): workers are
// independent; worker i computes 100 ms / speed_i with speed = i + 1, so it makes (i+1)·10
// steps/s: steps_per_s = 10 + 20 + 30 = 60; with batch = 8(i+1), samples_per_s = Σ batch_i ×
// steps_i = 80 + 320 + 720 = 1120; step_time = mean of 1/steps_i = (0.1 + 0.05 + 0.0333)/3.
TEST_CASE("text: heterogeneous speeds and batches under ps_async") {
    const std::string text = R"(
worker w[3] { compute = det(100 ms); speed = i + 1; batch = 8 * (i + 1); }
server ps { }
training { sync = ps_async; model_bytes = 1 MB; }
)";
    auto e = run_sim(compile_text(text));
    check_exact(e["steps_per_s"], 60);
    check_exact(e["samples_per_s"], 1120);
    check_exact(e["step_time"], (0.1 + 0.05 + 0.1 / 3) / 3);
    check_exact(e["util.w[2]"], 1.0);
}

// Fine ps_sync, one worker, one shard, no latency, no update, 10 Gbps = 1.25 GB/s.
// layer0: fwd 10 ms, bwd 20 ms, 12.5 MB (10 ms on the link); layer1: fwd 10 ms, bwd 20 ms,
// 25 MB (20 ms). Gradients are ready in the order layer1, layer0; both streams send in that
// order. With overlap: forward 0–20, bwd layer1 20–40, push layer1 40–60 while bwd layer0
// runs 40–60; push layer0 60–70. The shard has layer1 at 60 and sends it back 60–80; layer0
// (pushed by 70) follows on the pull stream 80–90. The next forward of layer0 waits for it:
// step 90 ms. Without overlap both pushes leave after the backward (60): layer1 60–80, layer0
// 80–90; pulls layer1 80–100, layer0 100–110: step 110 ms.
TEST_CASE("fine ps_sync: per-layer pushes and pulls, hand derivation") {
    const std::string text = R"(
layers net {
  layer0: fwd = det(10 ms), bwd = det(20 ms), bytes = 12.5 MB;
  layer1: fwd = det(10 ms), bwd = det(20 ms), bytes = 25 MB;
}
worker w { layers = net; bandwidth = 10 Gbps; }
server ps { bandwidth = 10 Gbps; }
training { sync = ps_sync; overlap = OVERLAP; }
)";
    auto with = [&](const std::string& overlap) {
        std::string t = text;
        t.replace(t.find("OVERLAP"), 7, overlap);
        return run_sim(compile_text(t));
    };
    check_exact(with("true")["step_time"], 0.090);
    check_exact(with("false")["step_time"], 0.110);
}
