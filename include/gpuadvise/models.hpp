// Model presets and calibration points (data in data/models.yaml). Owned by the workload model.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpuadvise {

struct ModelPreset {
    std::string id;
    std::vector<std::string> aliases;
    std::string source;
};

struct CalibrationPoint {
    std::string model;
    std::string gpu;
    std::string source;
};

}  // namespace gpuadvise
