// The thread pool's one-time set-up, started early on a background thread so that a command's
// reading and compiling of the model hides it.
#pragma once

#include <memory>

namespace sgdnet::solver {

/// Starts the thread pool's set-up (loading its allocator and thread manager, probing the
/// machine, starting the worker threads: about 3 ms on a small machine) on a background thread,
/// so that whatever the caller does next (reading and compiling a model) runs beside it. While
/// the object lives, the pool stays up, and a solve started meanwhile finds its workers ready;
/// the destructor waits for the set-up to finish. Optional: without it, the first parallel
/// solve pays that time before its first replication. Results never depend on it.
class ThreadsWarmUp {
  public:
    ThreadsWarmUp();
    ~ThreadsWarmUp();
    ThreadsWarmUp(const ThreadsWarmUp&) = delete;
    ThreadsWarmUp& operator=(const ThreadsWarmUp&) = delete;

  private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace sgdnet::solver
