// The built-in catalog's date for --version: the newest as_of of its offers, providers and exchange
// rates (ISO date), or "unknown". Written at build time by gpuadvise_make_snapshot.
#pragma once

#include <cstdint>
#include <string_view>

namespace gpuadvise::io {

std::string_view builtin_catalog_date();
// hash_text of the built-in snapshot's bytes (written by gpuadvise_make_snapshot beside the date): the
// build key of the cache's table stores (io/builtin_catalog.hpp), so that a store another build wrote,
// with other GPUs or other name rules, is not used.
std::uint64_t builtin_snapshot_key();

}  // namespace gpuadvise::io
