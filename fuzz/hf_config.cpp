// libFuzzer target: a Hugging Face config.json (io/hf_config.hpp), then the workload and memory of a
// serving job on that model. DataError is the expected answer to bad input; nothing else may escape.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "fuzz_common.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/model/workload.hpp"
#include "io/hf_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gpuadvise;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        io::HfConfig cfg = io::parse_hf_config(text, "config.json", "fuzz");
        const Catalog& catalog = fuzz::builtin_catalog();
        WorkloadRequest r;
        r.model_config = std::make_shared<const ModelPreset>(std::move(cfg.preset));
        r.model_config_defaults = std::move(cfg.defaults);
        r.task = "inference";
        Workload w = make_workload(catalog, r);
        (void)estimate_memory(w, Precision::bf16, 8);
        (void)w.decode_weight_bytes(Precision::bf16, 64);
        (void)count_params(w.shape).active();
    } catch (const DataError& e) {
        (void)e.hint();
    } catch (const UsageError& e) {
        (void)e.hint();
    }
    return 0;
}
