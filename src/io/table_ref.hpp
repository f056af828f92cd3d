// A provider's bulk offer table (e.g. `tables: [{format: skypilot, path: skypilot/aws.csv}]`),
// read after the YAML documents. Paths are relative to the YAML file that names them.
#pragma once

#include <string>

#include "gpuadvise/catalog/offer.hpp"

namespace gpuadvise::io {

struct TableRef {
    std::string provider;
    std::string format;  // "skypilot"
    std::string path;    // as written
    std::string resolved_path;
    bool builtin = false;  // path refers to the embedded data
    SourceLocation where;

    bool operator==(const TableRef&) const = default;
};

}  // namespace gpuadvise::io
