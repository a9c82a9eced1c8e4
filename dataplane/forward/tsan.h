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
extern "C" void AnnotateIgnoreReadsBegin(const char* file, int line);
extern "C" void AnnotateIgnoreReadsEnd(const char* file, int line);
extern "C" void AnnotateIgnoreWritesBegin(const char* file, int line);
extern "C" void AnnotateIgnoreWritesEnd(const char* file, int line);
// Everything this thread did before is visible to a thread that later
// acquires the same address.
#define ROCELB_TSAN_RELEASE(addr) __tsan_release(static_cast<void*>(addr))
#define ROCELB_TSAN_ACQUIRE(addr) __tsan_acquire(static_cast<void*>(addr))
// This thread's accesses in between are not recorded nor checked: DPDK's
// own bookkeeping of an object it hands between threads (an mbuf freed to
// its pool and allocated again), ordered by code TSan does not see.
#define ROCELB_TSAN_IGNORE_BEGIN() \
  (AnnotateIgnoreReadsBegin(__FILE__, __LINE__), AnnotateIgnoreWritesBegin(__FILE__, __LINE__))
#define ROCELB_TSAN_IGNORE_END() \
  (AnnotateIgnoreWritesEnd(__FILE__, __LINE__), AnnotateIgnoreReadsEnd(__FILE__, __LINE__))
#else
#define ROCELB_TSAN_RELEASE(addr) ((void)0)
#define ROCELB_TSAN_ACQUIRE(addr) ((void)0)
#define ROCELB_TSAN_IGNORE_BEGIN() ((void)0)
#define ROCELB_TSAN_IGNORE_END() ((void)0)
#endif
