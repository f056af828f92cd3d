#include "cli/gpu_json.hpp"

#include "cli/context.hpp"

namespace gpuadvise::cli {

nlohmann::ordered_json tflops_json(const DenseTflops& t) {
    nlohmann::ordered_json j;
    j["fp32"] = json_number(t.fp32);
    j["tf32"] = json_number(t.tf32);
    j["fp16"] = json_number(t.fp16);
    j["bf16"] = json_number(t.bf16);
    j["fp8"] = json_number(t.fp8);
    return j;
}

nlohmann::ordered_json gpu_identity_json(const Gpu& g) {
    nlohmann::ordered_json j;
    j["id"] = g.id;
    j["family"] = g.family;
    j["name"] = g.name;
    j["memory_gb"] = g.memory_gb;
    j["memory_bandwidth_gb_per_s"] = json_number(g.memory_bandwidth_gb_per_s);
    j["tflops"] = tflops_json(g.tflops);
    j["compute_capability"] = g.compute_capability;
    return j;
}

}  // namespace gpuadvise::cli
