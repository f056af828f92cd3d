// Which wheels of a PyTorch release run on a GPU (and a driver): the piece `offers --pytorch`,
// `recommend` and `check-env` share.
#include <algorithm>
#include <map>

#include "compat_internal.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/catalog/catalog.hpp"
#include "gpuadvise/compat/compat.hpp"

namespace gpuadvise {
namespace compat_detail {

std::string sm(int cc) { return "sm_" + std::to_string(cc); }

std::string arch_range(const std::vector<std::string>& archs) {
    std::optional<int> low, high;
    for (const auto& a : archs)
        if (auto c = parse_compute_capability(a)) {
            low = low ? std::min(*low, *c) : *c;
            high = high ? std::max(*high, *c) : *c;
        }
    if (!low) return "no CUDA architecture";
    return *low == *high ? sm(*low) : sm(*low) + "–" + sm(*high);
}

std::vector<WheelEval> evaluate_wheels(const CompatTables& tables, const PytorchVersion& pytorch,
                                       const std::vector<std::string>& wheels, std::optional<int> cc,
                                       const std::optional<Version>& driver) {
    std::vector<WheelEval> out;
    for (const auto& w : wheels) {
        WheelEval e;
        e.wheel = w;
        e.archs = tables.archs_for(w, pytorch);
        e.covers = !cc || (e.archs && archs_cover(e.archs->archs, *cc));
        if (auto cuda = cuda_of_wheel(w)) e.min_driver = tables.min_driver_for_cuda(*cuda);
        // The GPU's own floor (#13): no wheel runs on a driver that does not know the GPU.
        if (const GpuDriverFloor* floor = cc ? tables.gpu_driver_for(*cc) : nullptr)
            if (auto gpu_min = parse_version(floor->min_driver);
                gpu_min && (!e.min_driver || *e.min_driver < *gpu_min))
                e.min_driver = gpu_min;
        e.driver_ok = !driver || !e.min_driver || *driver >= *e.min_driver;
        out.push_back(std::move(e));
    }
    return out;
}

std::string driver_requirement(const std::vector<WheelEval>& wheels) {
    // Group wheels by the driver they need, lowest first: "needs driver ≥ 450.80.02 (cu113, cu116)".
    std::vector<std::pair<Version, std::vector<std::string>>> groups;
    for (const auto& w : wheels) {
        if (!w.min_driver) continue;
        auto it = std::find_if(groups.begin(), groups.end(),
                               [&](const auto& g) { return g.first == *w.min_driver; });
        if (it == groups.end())
            groups.push_back({*w.min_driver, {w.wheel}});
        else
            it->second.push_back(w.wheel);
    }
    std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string text;
    for (const auto& [driver, names] : groups)
        text += (text.empty() ? "needs driver ≥ " : " or ≥ ") + driver.text + " (" + join(names, ", ") + ")";
    return text;
}

std::optional<ReleaseWheel> first_release_covering(const CompatTables& tables, int cc, bool newest) {
    std::optional<ReleaseWheel> found;
    for (const auto& r : tables.releases) {
        auto v = parse_pytorch_version(r.series);
        if (!v) continue;
        std::vector<std::string> fitting;
        for (const auto& w : r.wheels)
            if (const WheelArchs* a = tables.archs_for(w, *v); a && archs_cover(a->archs, cc))
                fitting.push_back(w);
        if (fitting.empty()) continue;
        found = ReleaseWheel{r.series, fitting};
        if (!newest) return found;
    }
    return found;
}

}  // namespace compat_detail

using namespace compat_detail;

PytorchFit fit_pytorch(const CompatTables& tables, const Gpu& gpu, const PytorchVersion& pytorch,
                       const std::optional<Version>& driver) {
    PytorchFit fit;
    const auto cc = parse_compute_capability(gpu.compute_capability);
    if (!cc) {
        fit.checked = false;
        fit.supported = true;
        fit.requirement = gpu.is_amd() ? "needs a ROCm build of PyTorch (not checked)"
                                       : "compute capability unknown (not checked)";
        return fit;
    }
    const PytorchRelease* release = tables.find_release(pytorch);
    if (!release) {
        fit.reason = "PyTorch " + pytorch.series() + " is not in the compatibility tables";
        return fit;
    }
    std::vector<std::string> names = release->wheels;
    if (auto w = pytorch.wheel()) {
        if (std::find(names.begin(), names.end(), *w) == names.end()) {
            fit.reason = "PyTorch " + pytorch.series() + " has no " + *w +
                         " wheel (published: " + join(names, ", ") + ")";
            return fit;
        }
        names = {*w};
    }
    auto evals = evaluate_wheels(tables, pytorch, names, cc, driver);
    std::vector<WheelEval> covering;
    for (const auto& e : evals)
        if (e.covers) covering.push_back(e);
    const std::string who = gpu.id + " (" + sm(*cc) + ")";
    if (covering.empty()) {
        std::string ranges;
        for (const auto& e : evals)
            ranges += (ranges.empty() ? "" : ", ") + e.wheel + " " +
                      (e.archs ? arch_range(e.archs->archs) : "unknown");
        fit.reason = "no PyTorch " + pytorch.series() + " wheel runs on " + who + ": " + ranges;
        return fit;
    }
    for (const auto& e : covering)
        if (e.driver_ok) {
            fit.wheels.push_back(e.wheel);
            if (e.min_driver && (!fit.min_driver || *e.min_driver < *fit.min_driver))
                fit.min_driver = e.min_driver;
        }
    if (fit.wheels.empty()) {
        fit.reason = "driver " + driver->text + " is too old for the PyTorch " + pytorch.series() +
                     " wheels that run on " + who + ": " + driver_requirement(covering);
        return fit;
    }
    std::vector<WheelEval> fitting;
    for (const auto& e : covering)
        if (e.driver_ok) fitting.push_back(e);
    fit.supported = true;
    fit.requirement =
        driver ? "driver " + driver->text + " runs " + join(fit.wheels, ", ") : driver_requirement(fitting);
    return fit;
}

PytorchFit fit_offer(const Catalog& catalog, const Offer& offer, const PytorchVersion& pytorch) {
    const Gpu* gpu = catalog.find_gpu(offer.gpu);
    if (!gpu) {
        PytorchFit fit;
        fit.reason = "GPU '" + offer.gpu + "' is not in the catalog";
        return fit;
    }
    std::optional<Version> driver;
    if (const Provider* p = catalog.find_provider(offer.provider); p && p->driver_version)
        driver = parse_version(*p->driver_version);
    PytorchFit fit = fit_pytorch(catalog.compat, *gpu, pytorch, driver);
    if (driver && fit.supported && fit.checked)
        fit.requirement = "provider driver " + driver->text + " runs " + join(fit.wheels, ", ");
    return fit;
}

}  // namespace gpuadvise
