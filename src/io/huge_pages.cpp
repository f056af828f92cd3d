#include "io/huge_pages.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gpuadvise::io {

namespace {
constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
}

void advise_huge_pages(const void* begin, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes < 4 * kHuge) return;
    const auto start = (reinterpret_cast<std::uintptr_t>(begin) + kHuge - 1) & ~(kHuge - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(begin) + bytes) & ~(kHuge - 1);
    if (end > start)
        (void)madvise(reinterpret_cast<void*>(start), end - start,
                      MADV_HUGEPAGE);  // advice: failure is harmless
#else
    (void)begin;
    (void)bytes;
#endif
}

void prepare_heap(std::size_t bytes) {
#if defined(__GLIBC__) && defined(__linux__) && defined(MADV_HUGEPAGE) && \
    !defined(GPUADVISE_SANITIZED)                       // not the sanitizer's allocator
    constexpr std::size_t kMax = std::size_t{3} << 29;  // 1.5 GiB: mallopt takes an int
    if (bytes < 4 * kHuge) return;
    bytes = std::min(bytes, kMax);
    // A block this size normally gets its own mapping, returned to the system on free. Served from
    // the heap instead and kept there (no trimming), the advised range is what later small
    // allocations are carved from. The threshold must exceed the block with malloc's overhead.
    if (mallopt(M_MMAP_THRESHOLD, static_cast<int>(bytes + kHuge)) != 1) return;
    if (mallopt(M_TRIM_THRESHOLD, 1 << 30) != 1) return;
    void* block = std::malloc(bytes);
    if (!block) return;
    advise_huge_pages(block, bytes);
    std::free(block);
    // The block went back to the top of the heap, and the allocations that follow are carved from its
    // start up: from the part below its first whole huge page too, on 4 KiB pages, up to 512 faults
    // before the first huge one. A filler allocation takes that part (glibc's layout: a chunk is its
    // user bytes behind a 16-byte header, sizes in multiples of 16), so that the next allocation's
    // bytes start on the huge page. It is never touched (address space only) and never freed.
    const auto begin = reinterpret_cast<std::uintptr_t>(block);
    const std::uintptr_t below = ((begin + kHuge - 1) & ~(kHuge - 1)) - begin;
    if (below >= 64) {
        void* filler = std::malloc(below - 8);
        if (filler && filler != block) std::free(filler);  // not where the block was: no use
    }
#else
    (void)bytes;
#endif
}

}  // namespace gpuadvise::io
