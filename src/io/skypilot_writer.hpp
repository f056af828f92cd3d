// Writing what `catalog import skypilot` produces: cleaned vms.csv tables (one row per offer,
// canonical GPU ids as AcceleratorName) and the catalog YAML that points at them.
#pragma once

#include <string>
#include <vector>

#include "gpuadvise/catalog/catalog.hpp"

namespace gpuadvise::io {

// Header: InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,Notes
std::string write_skypilot_csv(const std::vector<const Offer*>& offers);

// A catalog YAML document with one provider per entry, each with `tables: [{format: skypilot, path: …}]`.
struct ImportedProvider {
    Provider provider;
    std::string table_path;  // relative to the YAML file
};
std::string write_import_yaml(const std::vector<ImportedProvider>& providers, const std::string& comment);

// Writes `files` (relative path -> bytes) and a marker file (.gpuadvise-import) into a fresh
// directory .DIR.v-XXXXXXXX beside `dir`, every file and directory fsynced, and makes `dir` a
// symbolic link to it (a new link renamed over the old one: readers see the old catalog or the new
// one, never none). An existing `dir` is replaced only with `force` and only when it is such a link
// (an earlier import); anything else is refused and left as it is (DataError). Leftovers of an
// interrupted import into `dir` are removed first; their names are returned.
std::vector<std::string> write_directory_atomically(
    const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files, bool force);

}  // namespace gpuadvise::io
