// load_catalog from the snapshot of data/ compiled into gpuadvise. The one io file that needs the
// snapshot: it is in gpuadvise_io, not in gpuadvise_io_base, which the snapshot tool links.
#include "io/builtin_catalog.hpp"
#include "io/builtin_date.hpp"
#include "io/huge_pages.hpp"

namespace gpuadvise::io {

Catalog load_catalog(const CatalogOptions& options) {
    if (!options.builtin) return load_catalog(options, std::nullopt);
    // The decoded snapshot and what a command builds from it (recommend: 2,300 options) touch ~3 MB of
    // fresh heap, a page fault per 4 KiB: on this project's 2-core VM a fault costs ~10 us, and the
    // 700 of them were 40 % of `recommend`'s wall time. On huge pages they are a handful
    // (docs/performance.md, issue #32). 16 MiB of address space, so that a `catalog update` cache of
    // every cloud (~14 MB at its peak) is read onto it too (671 -> 196 faults); only what is touched is
    // memory. Advice only. Once a process: the heap is kept (prepare_heap), and a process that loads
    // catalogs again and again (tests, a fuzzer) would otherwise leave a filler of address space each time.
    static const bool prepared = (prepare_heap(std::size_t{16} << 20), true);
    (void)prepared;
    BuiltinCatalog builtin = read_builtin_snapshot(builtin_snapshot_bytes(), false);
    builtin.store_key = builtin_snapshot_key();
    return load_catalog(options, std::move(builtin));
}

}  // namespace gpuadvise::io
