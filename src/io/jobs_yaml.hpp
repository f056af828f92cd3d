// Reading a jobs file for `gpuadvise plan` (docs/plan.md): every problem is a located diagnostic
// (jobs.yaml:LINE:COL), collected, and thrown once as a DataError (exit 1).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/advice/pool.hpp"
#include "gpuadvise/catalog/catalog.hpp"

namespace gpuadvise::io {

// The jobs of `text` (read from `path`, which the locations name), each workload resolved against
// the catalog (model presets, GPU names, providers) and priced in `currency`.
std::vector<PoolJob> parse_jobs_yaml(std::string_view text, const std::string& path, const Catalog& catalog,
                                     const std::string& currency);

}  // namespace gpuadvise::io
