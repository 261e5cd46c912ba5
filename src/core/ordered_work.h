// Items 0, 1, 2, ... made on worker threads and used in their order on the
// caller's thread, through a ring of slots: item k is made in slot
// k % slots, so the makers run at most |slots| items ahead of the use and
// memory stays bounded whatever the input's size.
//
// Three readers keep a stateful consumer fed this way: the trace's chunked
// scan (chunks of JSON converted ahead of the sink), the .db export's tiled
// scan (tiles of rows decoded on more connections) and the training log's
// preparsed lines (batches of lines parsed ahead of the reader that keeps
// state across them). What differs between them is where items come from,
// which |claim| says, and what making one is, which |make| does.
//
// An exception in a worker (std::bad_alloc, say) never escapes its thread:
// the first one stops the workers and is rethrown by Take, on the caller's
// thread, as ParallelFor does.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace trainscope {

enum class ClaimAnswer {
  kTaken,   // the item exists and the thread that asked makes it
  kNotYet,  // it may exist later (the caller offers it through Change)
  kNoMore,  // it never will, nor any item after it
};

template <typename Slot>
class OrderedWork {
 public:
  // Asked under the lock by the thread about to make item |index| in
  // |slot|: a source that must be read in order (a feeder) fills |slot|
  // here, before answering kTaken. Asked again for the same index after
  // kNotYet, never after kNoMore. Before kTaken the slot may still be the
  // caller's, being filled (SlotOf): a claim that answers kNotYet must not
  // touch it. kNotYet is for items the caller offers later (Change), so the
  // caller may Take only items it has offered: with no worker to wait for,
  // Take would wait for itself.
  using ClaimFn = std::function<ClaimAnswer(int64_t index, Slot* slot)>;
  // Run without the lock: makes item |index| in |slot|. |maker| is the
  // worker's number, in [0, workers); the caller's thread, helping in Take,
  // is the number of workers that started (|workers| unless the OS gave
  // fewer threads).
  using MakeFn = std::function<void(unsigned maker, int64_t index, Slot* slot)>;

  // |n| slots for the constructor, each made by |new_slot|() (a
  // std::unique_ptr<Slot>).
  template <typename NewSlot>
  static std::vector<std::unique_ptr<Slot>> NewSlots(size_t n, NewSlot&& new_slot) {
    std::vector<std::unique_ptr<Slot>> slots;
    slots.reserve(n);
    for (size_t i = 0; i < n; ++i) slots.push_back(new_slot());
    return slots;
  }

  // Starts |workers| threads (fewer when the OS gives fewer: with none the
  // caller makes every item in Take, help or not). |claim| and |make| may
  // be called from here on: what they use must exist already.
  OrderedWork(std::vector<std::unique_ptr<Slot>> slots, unsigned workers, ClaimFn claim,
              MakeFn make)
      : slots_(std::move(slots)),
        ready_(slots_.size(), 0),
        claim_(std::move(claim)),
        make_(std::move(make)) {
    threads_.reserve(workers);
    for (unsigned w = 0; w < workers; ++w) {
      try {
        threads_.emplace_back([this, w] { Work(w); });
      } catch (...) {
        // No more threads (std::system_error) or no memory for one
        // (std::bad_alloc): the ones that started do the work.
        break;
      }
    }
  }

  OrderedWork(const OrderedWork&) = delete;
  OrderedWork& operator=(const OrderedWork&) = delete;

  // Stops the workers (an item being made is finished first) and joins them.
  ~OrderedWork() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    for (std::thread& thread : threads_) thread.join();
  }

  // The slot of the next item in order, made, until Release(); nullptr when
  // there is no such item. With |help| the caller's thread makes the items
  // no worker has claimed while it waits (without, its thread would idle).
  Slot* Take(bool help) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (error_ != nullptr) std::rethrow_exception(error_);
      const size_t at = SlotIndex(used_);
      if (ready_[at] != 0) return slots_[at].get();
      int64_t index = 0;
      if ((help || threads_.empty()) && ClaimLocked(&index)) {
        lock.unlock();
        try {
          MakeAndMark(static_cast<unsigned>(threads_.size()), index, lock);
        } catch (...) {
          // The item will never be made: the workers stop, and a later Take
          // rethrows instead of waiting for it.
          Fail(std::current_exception());
          throw;
        }
        continue;
      }
      // After the claim: its answer may have been the end.
      if (used_ >= no_more_at_) return nullptr;
      changed_.wait(lock);
    }
  }

  // The item Take returned last is used: its slot takes a later item.
  void Release() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      ready_[SlotIndex(used_)] = 0;
      ++used_;
    }
    changed_.notify_all();
  }

  // Runs |change| under the lock, then wakes the workers: for a change of
  // what |claim| answers (an item offered).
  template <typename Fn>
  void Change(Fn&& change) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      change();
    }
    changed_.notify_all();
  }

  // The slot item |index| is made in, for a caller that fills it before
  // offering it (its claim answers kNotYet until then).
  Slot* SlotOf(int64_t index) const { return slots_[SlotIndex(index)].get(); }
  size_t slots() const { return slots_.size(); }

 private:
  size_t SlotIndex(int64_t index) const { return static_cast<size_t>(index) % slots_.size(); }

  // Under the lock: takes the next item when its slot is free and |claim_|
  // gives it.
  bool ClaimLocked(int64_t* index) {
    if (stop_ || taken_ >= no_more_at_ || taken_ >= used_ + static_cast<int64_t>(slots_.size())) {
      return false;
    }
    switch (claim_(taken_, slots_[SlotIndex(taken_)].get())) {
      case ClaimAnswer::kTaken:
        *index = taken_++;
        return true;
      case ClaimAnswer::kNoMore:
        no_more_at_ = taken_;
        changed_.notify_all();  // the caller may wait for an item that never comes
        return false;
      case ClaimAnswer::kNotYet:
        return false;
    }
    return false;
  }

  // Makes item |index| (the lock not held) and marks it ready (|lock|
  // relocked on return).
  void MakeAndMark(unsigned maker, int64_t index, std::unique_lock<std::mutex>& lock) {
    make_(maker, index, slots_[SlotIndex(index)].get());
    lock.lock();
    ready_[SlotIndex(index)] = 1;
    changed_.notify_all();
  }

  void Work(unsigned maker) {
    try {
      std::unique_lock<std::mutex> lock(mutex_);
      for (;;) {
        if (stop_ || error_ != nullptr) return;
        int64_t index = 0;
        if (ClaimLocked(&index)) {
          lock.unlock();
          MakeAndMark(maker, index, lock);
          continue;
        }
        if (taken_ >= no_more_at_) return;
        changed_.wait(lock);
      }
    } catch (...) {
      Fail(std::current_exception());
    }
  }

  // Keeps the first error and stops the workers (the lock not held).
  void Fail(std::exception_ptr error) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (error_ == nullptr) error_ = std::move(error);
      stop_ = true;
    }
    changed_.notify_all();
  }

  static constexpr int64_t kUnbounded = INT64_MAX;

  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<char> ready_;  // per slot: its item is made (guarded by mutex_)
  ClaimFn claim_;
  MakeFn make_;
  std::mutex mutex_;
  std::condition_variable changed_;
  // Items claimed (taken_) and used (used_); no item at or after
  // no_more_at_ exists. taken_ - used_ <= slots.
  int64_t taken_ = 0;
  int64_t used_ = 0;
  int64_t no_more_at_ = kUnbounded;
  bool stop_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;  // last: started once the rest exists
};

}  // namespace trainscope
