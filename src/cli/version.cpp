#include "cli/build_info.hpp"
#include "io/builtin_date.hpp"

#ifndef GPUADVISE_VERSION
#define GPUADVISE_VERSION "0.0.0"
#endif

namespace gpuadvise::cli {

std::string version_text() {
    return std::string("gpuadvise ") + GPUADVISE_VERSION + "\n" +
           "built-in catalog: " + std::string(io::builtin_catalog_date()) +
           " (newest price or rate as_of)\n" + "commit: " + build_git_commit();
}

}  // namespace gpuadvise::cli
