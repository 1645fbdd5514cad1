#include "CAutoCancelAtomics.h"

_Atomic(void *_Nullable) autocancel_instrument = NULL;
_Atomic(uintptr_t) autocancel_bags_made = 0;
_Atomic(uintptr_t) autocancel_type_answers[AUTOCANCEL_TYPE_ANSWERS];

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

void autocancel_lock_wait(uint32_t *lock, uint32_t seen) {
  _Atomic(uint32_t) *word = (_Atomic(uint32_t) *)lock;
  // Marked contended before sleeping, so that the holder's unlock wakes a sleeper; taken
  // when the exchange finds it free (then still marked, as other threads may sleep).
  uint32_t found = seen == 2 ? 2 : atomic_exchange_explicit(word, 2, memory_order_acquire);
  while (found != 0) {
    // Returns at once if the word is no longer 2; spurious wake-ups loop.
    syscall(SYS_futex, lock, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
    found = atomic_exchange_explicit(word, 2, memory_order_acquire);
  }
}

void autocancel_lock_wake(uint32_t *lock) {
  syscall(SYS_futex, lock, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
#endif
