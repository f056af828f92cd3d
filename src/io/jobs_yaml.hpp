// Reading a jobs file for `gpuadvise plan` (docs/plan.md): every problem is a located diagnostic
// (jobs.yaml:LINE:COL), collected, and thrown once as a DataError (exit 1).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/advice/pool.hpp"
#include "gpuadvise/catalog/catalog.hpp"

namespace gpuadvise::io {

// The bounds of a jobs file (docs/plan.md, "Bounds"), checked before any job is read or planned: the
// pool sizer costs about 5 ms and 100 KB a distinct job, so 10,000 jobs are about a minute of work.
inline constexpr std::size_t kMaxJobs = 10000;
inline constexpr unsigned long long kMaxJobsFileBytes = 8ULL << 20;  // 8 MiB
inline constexpr const char* kJobsTooLargeFix =
    "split the jobs into several files (a jobs file is at most 8 MiB and 10,000 jobs; see docs/plan.md)";

// The jobs of `text` (read from `path`, which the locations name), each workload resolved against
// the catalog (model presets, GPU names, providers) and priced in `currency`.
std::vector<PoolJob> parse_jobs_yaml(std::string_view text, const std::string& path, const Catalog& catalog,
                                     const std::string& currency);

}  // namespace gpuadvise::io
