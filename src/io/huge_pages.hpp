// Large loads (a million-offer table and its offers, hundreds of MB) touch memory page by page as
// they fill it. On the VMs this runs on, a 4 KiB page fault costs microseconds: at 100k offers the
// faults were a third of the run (docs/performance.md). Transparent huge pages cut them 512-fold.
// Advice only: where the kernel, the C library or a sanitizer says no, nothing changes.
#pragma once

#include <cstddef>

namespace gpuadvise::io {

// Advises huge pages for the whole 2 MiB pages inside [begin, begin + bytes) (an untouched buffer:
// advice does not move pages already faulted in). Buffers under 8 MiB are left alone.
void advise_huge_pages(const void* begin, std::size_t bytes);

// Before a load that will allocate about `bytes` in many small pieces (strings, offers): grows the
// C library's heap by that much once, advises huge pages on it and keeps it for the allocations
// that follow (glibc: mallopt thresholds, then malloc/free of one block). Address space only;
// nothing is touched. Below 8 MiB, outside glibc and under sanitizers it does nothing.
void prepare_heap(std::size_t bytes);

}  // namespace gpuadvise::io
