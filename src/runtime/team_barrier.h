// The barrier between a loop kernel's phases (runtime/loop_kernel.h): a
// sense-reversing counter the threads spin on. OpenMP's barrier let a
// thread fall asleep between phases (its spin count is throttled when the
// process has more threads than CPUs), and waking it took longer than a
// phase of NASRNN; this one spins, yielding the CPU only after a long wait
// so an oversubscribed machine still makes progress.
#pragma once
#include <atomic>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace stitch {

class TeamBarrier {
 public:
  // Set by one thread before any thread waits (OpenMP may give a team
  // smaller than asked for).
  void setTeam(int threads) { team_ = threads; }

  // `sense` is the calling thread's own, false before its first wait.
  void wait(bool& sense) {
    sense = !sense;
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) == team_ - 1) {
      arrived_.store(0, std::memory_order_relaxed);
      released_.store(sense, std::memory_order_release);
      return;
    }
    for (int spins = 0; released_.load(std::memory_order_acquire) != sense; ++spins) {
      if (spins < kSpinsBeforeYield) {
        pause();
      } else {
        std::this_thread::yield();
      }
    }
  }

 private:
  static constexpr int kSpinsBeforeYield = 1 << 12;

  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
  }

  int team_ = 1;
  alignas(64) std::atomic<int> arrived_{0};
  alignas(64) std::atomic<bool> released_{false};
};

}  // namespace stitch
