// load_catalog from the snapshot of data/ compiled into gpuadvise. The one io file that needs the
// snapshot: it is in gpuadvise_io, not in gpuadvise_io_base, which the snapshot tool links.
#include "io/builtin_catalog.hpp"
#include "io/builtin_date.hpp"

namespace gpuadvise::io {

Catalog load_catalog(const CatalogOptions& options) {
    if (!options.builtin) return load_catalog(options, std::nullopt);
    BuiltinCatalog builtin = read_builtin_snapshot(builtin_snapshot_bytes(), false);
    builtin.store_key = builtin_snapshot_key();
    return load_catalog(options, std::move(builtin));
}

}  // namespace gpuadvise::io
