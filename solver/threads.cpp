// ThreadsWarmUp: an arena initialised on a background thread, which runs one short parallel
// loop so that the worker threads exist; the arena keeps the pool up until the object goes.
#include "solver/threads.hpp"

#include <chrono>
#include <system_error>
#include <thread>

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

namespace sgdnet::solver {

struct ThreadsWarmUp::State {
    tbb::task_arena arena;
    std::thread thread;
};

namespace {

/// Long enough for a worker thread to start and take a share of the loop.
constexpr auto kWorkerStart = std::chrono::microseconds(200);

void warm_up(tbb::task_arena& arena) {
    arena.initialize();
    const int n = arena.max_concurrency();
    arena.execute([n] {
        tbb::parallel_for(0, n, [](int) {
            const auto until = std::chrono::steady_clock::now() + kWorkerStart;
            while (std::chrono::steady_clock::now() < until) {
            }
        });
    });
}

}  // namespace

ThreadsWarmUp::ThreadsWarmUp() : state_(std::make_unique<State>()) {
    try {
        state_->thread = std::thread(warm_up, std::ref(state_->arena));
    } catch (const std::system_error&) {
        // No thread to spare: the first solve sets the pool up itself.
    }
}

ThreadsWarmUp::~ThreadsWarmUp() {
    if (state_->thread.joinable()) state_->thread.join();
}

}  // namespace sgdnet::solver
