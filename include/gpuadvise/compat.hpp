// PyTorch / CUDA / driver / compute-capability compatibility tables (data in data/compat.yaml).
#pragma once

#include <string>
#include <vector>

namespace gpuadvise {

struct CompatTables {
    std::string source;
    bool empty() const { return source.empty(); }
};

}  // namespace gpuadvise
