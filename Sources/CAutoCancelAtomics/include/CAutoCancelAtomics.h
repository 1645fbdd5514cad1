// C11 atomics for the few process-wide values that AutoCancel's core reads on the path of
// every bag: Swift's own atomics (the Synchronization module) ship on Apple platforms from
// iOS 18 / macOS 15 only, and a lock there would cost every bag a lock round trip.
//
// The process-wide values live here, in C, so that Swift reads them through these inline
// functions with no lazy initialization on the way; a bag's own word (its core, made on first
// use) lives in the bag, and is read and set through the functions that take its address.

#ifndef C_AUTOCANCEL_ATOMICS_H
#define C_AUTOCANCEL_ATOMICS_H

#include <stdatomic.h>
#include <stdint.h>

#if __has_feature(nullability)
#pragma clang assume_nonnull begin
#endif

/// The instrument every bag made from now on attaches, as an object pointer that is never
/// released, or NULL while none is installed.
extern _Atomic(void *_Nullable) autocancel_instrument;

/// How many bags the process has made.
extern _Atomic(uintptr_t) autocancel_bags_made;

/// The number of entries of `autocancel_type_answers`, a power of two.
#define AUTOCANCEL_TYPE_ANSWERS 64

/// What the runtime answered about types of work, one entry per type that hashes to it: the
/// type's metadata address with the answer in its low bits, or 0.
extern _Atomic(uintptr_t) autocancel_type_answers[AUTOCANCEL_TYPE_ANSWERS];

/// Counts a bag being made, then reads the instrument it attaches. Sequentially consistent
/// with `autocancel_install`, so that either the bag attaches an instrument being installed or
/// the install counts the bag among those made before it.
static inline void *_Nullable autocancel_make_bag(void) {
  atomic_fetch_add_explicit(&autocancel_bags_made, 1, memory_order_seq_cst);
  return atomic_load_explicit(&autocancel_instrument, memory_order_seq_cst);
}

/// Publishes `instrument` for the bags made from now on, and returns how many were made
/// before. The caller serializes installs and keeps every instrument it publishes alive.
static inline uintptr_t autocancel_install(void *_Nullable instrument) {
  atomic_store_explicit(&autocancel_instrument, instrument, memory_order_seq_cst);
  return atomic_load_explicit(&autocancel_bags_made, memory_order_seq_cst);
}

/// The answer remembered for the type at `metadata` (1 to 3), or 0 if none is.
static inline uintptr_t autocancel_type_answer(uintptr_t metadata) {
  uintptr_t index = (metadata >> 4) & (AUTOCANCEL_TYPE_ANSWERS - 1);
  uintptr_t entry = atomic_load_explicit(&autocancel_type_answers[index], memory_order_relaxed);
  return (entry & ~(uintptr_t)7) == metadata ? (entry & 7) : 0;
}

/// Remembers `answer` (1 to 3) for the type at `metadata`, in place of the type that hashed to
/// the same entry, if any. Relaxed: an answer is a fact about a type, the same whoever asks,
/// and publishes nothing else.
static inline void autocancel_remember_type_answer(uintptr_t metadata, uintptr_t answer) {
  uintptr_t index = (metadata >> 4) & (AUTOCANCEL_TYPE_ANSWERS - 1);
  atomic_store_explicit(&autocancel_type_answers[index], metadata | answer, memory_order_relaxed);
}

/// Reads the word at `word`, which is only ever written by
/// `autocancel_word_compare_exchange`.
static inline uintptr_t autocancel_word_load(uintptr_t *word) {
  return atomic_load_explicit((_Atomic(uintptr_t) *)word, memory_order_acquire);
}

/// Sets the word at `word` to `desired` if it is still `expected`, and returns true; otherwise
/// returns false and leaves it as another thread set it.
static inline _Bool autocancel_word_compare_exchange(
  uintptr_t *word, uintptr_t expected, uintptr_t desired
) {
  return atomic_compare_exchange_strong_explicit(
    (_Atomic(uintptr_t) *)word, &expected, desired, memory_order_acq_rel, memory_order_acquire);
}

#if defined(__linux__)

// The core's lock on Linux: one 32-bit word, 0 unlocked, 1 locked, 2 locked with threads
// waiting, which sleep in the kernel (a futex) rather than spin (Drepper, "Futexes Are
// Tricky", 2011, mutex 3). Unlike glibc's `pthread_mutex_lock`, whose uncontended path checks
// the mutex's kind, owner and robustness first, taking and giving back a free lock here is one
// atomic instruction each, inline. Acquire and release orders make ThreadSanitizer see what
// the lock orders, as it sees any atomic.

/// Takes the lock at `lock` when another thread holds it: marks it contended and sleeps until
/// woken, as many times as it takes. `seen` is the value the first attempt found.
void autocancel_lock_wait(uint32_t *lock, uint32_t seen);

/// Wakes one thread sleeping on the lock at `lock`.
void autocancel_lock_wake(uint32_t *lock);

/// Takes the lock at `lock`, a word set to 0 before first use: returns once this thread
/// holds it. Not recursive.
static inline void autocancel_lock(uint32_t *lock) {
  uint32_t expected = 0;
  if (!atomic_compare_exchange_strong_explicit(
        (_Atomic(uint32_t) *)lock, &expected, 1, memory_order_acquire, memory_order_relaxed))
  {
    autocancel_lock_wait(lock, expected);
  }
}

/// Gives back the lock at `lock`, held by this thread, and wakes a waiting thread if any.
static inline void autocancel_unlock(uint32_t *lock) {
  if (atomic_exchange_explicit((_Atomic(uint32_t) *)lock, 0, memory_order_release) == 2) {
    autocancel_lock_wake(lock);
  }
}

#endif

#if __has_feature(nullability)
#pragma clang assume_nonnull end
#endif

#endif
