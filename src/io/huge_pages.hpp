// Large buffers (a million-offer table, its offers) are touched page by page as they fill. On the
// VMs this runs on, a 4 KiB page fault costs microseconds: 100 MB of them was a third of a load.
// Asking for transparent huge pages on such a buffer cuts the faults 512-fold. Advice only: where
// the kernel or the platform has no huge pages, nothing changes.
#pragma once

#include <cstddef>

namespace gpuadvise::io {

// Advises huge pages for the whole 2 MiB pages inside [begin, begin + bytes). Buffers under
// 8 MiB are left alone (not worth a system call).
void advise_huge_pages(const void* begin, std::size_t bytes);

}  // namespace gpuadvise::io
