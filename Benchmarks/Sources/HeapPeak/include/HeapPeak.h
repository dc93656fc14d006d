#ifndef HEAP_PEAK_H
#define HEAP_PEAK_H

#include <stdint.h>

/// Starts counting: zeroes the live-byte count, its peak and the call counters.
void heap_peak_start(void);
/// Stops counting; the counters keep their values.
void heap_peak_stop(void);
/// Bytes allocated minus bytes freed since heap_peak_start (malloc_usable_size of each block).
int64_t heap_peak_live_bytes(void);
/// The highest value heap_peak_live_bytes reached since heap_peak_start.
int64_t heap_peak_peak_bytes(void);
/// Allocations counted since heap_peak_start.
int64_t heap_peak_allocation_count(void);
/// 1 where the heap is counted (with glibc); 0 elsewhere, where every count stays 0.
int heap_peak_is_available(void);

#endif
