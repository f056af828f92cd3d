// Helpers shared by compat_fit.cpp and compat_check.cpp (not part of the public API).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/compat/compat.hpp"

namespace gpuadvise::compat_detail {

// One wheel of a release judged against a GPU (compute capability) and a driver.
struct WheelEval {
    std::string wheel;
    const WheelArchs* archs = nullptr;
    bool covers = false;  // its architectures include the GPU (true when the GPU is unknown)
    std::optional<Version> min_driver;
    bool driver_ok = true;  // true when the driver is unknown
};

std::string sm(int cc);                                         // 80 -> "sm_80"
std::string arch_range(const std::vector<std::string>& archs);  // "sm_37–sm_75"
std::vector<WheelEval> evaluate_wheels(const CompatTables& tables, const PytorchVersion& pytorch,
                                       const std::vector<std::string>& wheels, std::optional<int> cc,
                                       const std::optional<Version>& driver);
// "needs driver ≥ 450.80.02 (cu113, cu116) or ≥ 525.60.13 (cu121)"
std::string driver_requirement(const std::vector<WheelEval>& wheels);

struct ReleaseWheel {
    std::string series;
    std::vector<std::string> wheels;
};
// The oldest (or newest) release with a wheel built for `cc`, and those wheels.
std::optional<ReleaseWheel> first_release_covering(const CompatTables& tables, int cc, bool newest);

}  // namespace gpuadvise::compat_detail
