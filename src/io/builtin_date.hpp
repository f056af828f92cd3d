// The built-in catalog's date for --version: the newest as_of of its offers, providers and exchange
// rates (ISO date), or "unknown". Written at build time by gpuadvise_make_snapshot.
#pragma once

#include <string_view>

namespace gpuadvise::io {

std::string_view builtin_catalog_date();

}  // namespace gpuadvise::io
