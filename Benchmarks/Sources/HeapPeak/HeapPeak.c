// Exact peak heap use, for the memory rows of taskig-bench.
//
// With glibc, the executable defines malloc, free and friends itself; the dynamic linker
// binds every library's calls to them (the Swift runtime, Foundation, Dispatch), and they
// forward to glibc's __libc_* entry points. While counting is on, each call adds or subtracts
// the block's malloc_usable_size and keeps the highest total seen. While it is off, the cost
// is one relaxed atomic load per call.
//
// Elsewhere nothing is counted: Darwin binds each library's malloc to libSystem's (two-level
// namespace), so a definition here would see only this executable's own calls, and there are
// no __libc_* entry points to forward to. heap_peak_is_available() says so, and the rows that
// need the counts are left out with a line that tells why.
#define _GNU_SOURCE
#include "HeapPeak.h"

#include <errno.h>

#if defined(__GLIBC__)

#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void __libc_free(void *ptr);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Atomic int counting;
static _Atomic int64_t live;
static _Atomic int64_t peak;
static _Atomic int64_t allocations;

static inline void note_allocated(void *ptr) {
    if (ptr == NULL || !atomic_load_explicit(&counting, memory_order_relaxed)) return;
    int64_t size = (int64_t)malloc_usable_size(ptr);
    int64_t now = atomic_fetch_add_explicit(&live, size, memory_order_relaxed) + size;
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    int64_t seen = atomic_load_explicit(&peak, memory_order_relaxed);
    while (now > seen
           && !atomic_compare_exchange_weak_explicit(&peak, &seen, now, memory_order_relaxed, memory_order_relaxed)) {
    }
}

static inline void note_freeing(void *ptr) {
    if (ptr == NULL || !atomic_load_explicit(&counting, memory_order_relaxed)) return;
    atomic_fetch_sub_explicit(&live, (int64_t)malloc_usable_size(ptr), memory_order_relaxed);
}

void *malloc(size_t size) {
    void *ptr = __libc_malloc(size);
    note_allocated(ptr);
    return ptr;
}

void free(void *ptr) {
    note_freeing(ptr);
    __libc_free(ptr);
}

void *calloc(size_t count, size_t size) {
    void *ptr = __libc_calloc(count, size);
    note_allocated(ptr);
    return ptr;
}

void *realloc(void *ptr, size_t size) {
    note_freeing(ptr);
    void *moved = __libc_realloc(ptr, size);
    if (moved == NULL && size != 0 && ptr != NULL) {
        // The old block is still there: count it again.
        note_allocated(ptr);
        return NULL;
    }
    note_allocated(moved);
    return moved;
}

void *memalign(size_t alignment, size_t size) {
    void *ptr = __libc_memalign(alignment, size);
    note_allocated(ptr);
    return ptr;
}

void *aligned_alloc(size_t alignment, size_t size) {
    return memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *ptr = memalign(alignment, size);
    if (ptr == NULL) return ENOMEM;
    *out = ptr;
    return 0;
}

void *valloc(size_t size) {
    return memalign((size_t)sysconf(_SC_PAGESIZE), size);
}

void *pvalloc(size_t size) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return memalign(page, (size + page - 1) / page * page);
}

void heap_peak_start(void) {
    atomic_store(&counting, 0);
    atomic_store(&live, 0);
    atomic_store(&peak, 0);
    atomic_store(&allocations, 0);
    atomic_store(&counting, 1);
}

void heap_peak_stop(void) { atomic_store(&counting, 0); }

int64_t heap_peak_live_bytes(void) { return atomic_load(&live); }

int64_t heap_peak_peak_bytes(void) { return atomic_load(&peak); }

int64_t heap_peak_allocation_count(void) { return atomic_load(&allocations); }

int heap_peak_is_available(void) { return 1; }

#else

void heap_peak_start(void) {}

void heap_peak_stop(void) {}

int64_t heap_peak_live_bytes(void) { return 0; }

int64_t heap_peak_peak_bytes(void) { return 0; }

int64_t heap_peak_allocation_count(void) { return 0; }

int heap_peak_is_available(void) { return 0; }

#endif
