// Tells ThreadSanitizer about the happens-before edges DPDK creates in code
// it does not instrument: an mbuf handed over through an rte_ring, an epoch
// retired after an RCU grace period, a worker launched and joined through
// EAL. Without them a TSan build reports the hand-over of every packet as a
// race. Outside a TSan build the macros are empty. No knobs, no counters.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define ROCELB_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ROCELB_TSAN 1
#endif
#endif

#ifdef ROCELB_TSAN
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
// Everything this thread did before is visible to a thread that later
// acquires the same address.
#define ROCELB_TSAN_RELEASE(addr) __tsan_release(static_cast<void*>(addr))
#define ROCELB_TSAN_ACQUIRE(addr) __tsan_acquire(static_cast<void*>(addr))
#else
#define ROCELB_TSAN_RELEASE(addr) ((void)0)
#define ROCELB_TSAN_ACQUIRE(addr) ((void)0)
#endif
