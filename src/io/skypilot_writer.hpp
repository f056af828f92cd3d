// Writing what `catalog import skypilot` produces: cleaned vms.csv tables (one row per offer,
// canonical GPU ids as AcceleratorName) and the catalog YAML that points at them.
#pragma once

#include <string>
#include <vector>

#include "gpuadvise/catalog.hpp"

namespace gpuadvise::io {

// Header: InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,Notes
std::string write_skypilot_csv(const std::vector<const Offer*>& offers);

// A catalog YAML document with one provider per entry, each with `tables: [{format: skypilot, path: …}]`.
struct ImportedProvider {
    Provider provider;
    std::string table_path;  // relative to the YAML file
};
std::string write_import_yaml(const std::vector<ImportedProvider>& providers, const std::string& comment);

// Writes `files` (relative path -> bytes) into a fresh temporary directory beside `dir`, then
// renames it to `dir`. An existing `dir` is replaced only with `force` (DataError otherwise).
void write_directory_atomically(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files,
                                bool force);

}  // namespace gpuadvise::io
