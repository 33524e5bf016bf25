// ThreadSanitizer annotations for Courier's lock (`Locked` in CourierCore).
//
// Swift's `Synchronization.Mutex` locks with futex system calls on Linux,
// which ThreadSanitizer does not see: every value it protects is reported as
// raced. `Locked` tells TSan about the lock it holds through these calls. The
// symbols are weak: without `-sanitize=thread` they are null and the calls do
// nothing.
#ifndef COURIER_SANITIZER_H
#define COURIER_SANITIZER_H

void __tsan_acquire(void *addr) __attribute__((weak));
void __tsan_release(void *addr) __attribute__((weak));

static inline void courier_tsan_acquire(void *address) {
    if (__tsan_acquire) __tsan_acquire(address);
}

static inline void courier_tsan_release(void *address) {
    if (__tsan_release) __tsan_release(address);
}

#endif
