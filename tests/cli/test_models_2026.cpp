// Issue 25's "done when" lines, run in-process on the frozen test catalog plus the frozen 2026
// presets (tests/fixtures/frozen/models-2026.yaml): every real config estimates, and the serving
// cases fit (or not) where the issue says.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>

#include "run_cli.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace cli_test_models_2026 {

namespace {

using Result = gpuadvise::testing::CliResult;

Result run(std::vector<std::string> args) {
    return gpuadvise::testing::run_cli(std::move(args), true, false, {"models-2026.yaml"});
}

const char* const kConfigs[] = {"llama-3.1-8b",
                                "llama-3.1-70b",
                                "llama-3.1-405b",
                                "llama-3.2-1b",
                                "llama-3.2-3b",
                                "llama-3.3-70b",
                                "qwen2.5-7b-instruct",
                                "qwen2.5-72b-instruct",
                                "qwen3-8b",
                                "qwen3-32b",
                                "qwen3-30b-a3b",
                                "qwen3-235b-a22b",
                                "mixtral-8x7b-instruct",
                                "mixtral-8x22b-instruct",
                                "deepseek-v3",
                                "gpt-oss-20b",
                                "gpt-oss-120b",
                                "gemma-2-9b-it",
                                "gemma-2-27b",
                                "gemma-3-27b-it",
                                "phi-3-mini-4k-instruct",
                                "phi-4",
                                "mistral-nemo-12b",
                                "mistral-small-24b-instruct-2501"};

}  // namespace

TEST_CASE("estimate --model-config runs for all 24 real configs and shows their counts", "[cli]") {
    for (const char* name : kConfigs) {
        INFO(name);
        const std::string file = std::string(GPUADVISE_SOURCE_DIR) + "/data/model-configs/" + name + ".json";
        const Result r =
            run({"estimate", "--model-config", file, "--task", "inference", "--gpu", "h200", "--gpus", "8"});
        REQUIRE(r.exit <= 3);
        CHECK(r.err.find("error") == std::string::npos);
        const auto& m = r.json["workload"]["model_details"];
        CHECK(m["params_total"].get<double>() > 1e9);
        CHECK(m["params_active"].get<double>() <= m["params_total"].get<double>());
        CHECK(m["shape_complete"].get<bool>());
    }
}

TEST_CASE("deepseek-v3 serves on 8 x H200 with FP8 weights, not on 8 x H100 80 GB", "[cli]") {
    const Result h200 =
        run({"estimate", "--model", "deepseek-v3", "--task", "inference", "--gpu", "h200", "--gpus", "8"});
    REQUIRE(h200.exit == 0);
    CHECK(h200.json["estimates"][0]["fits"].get<bool>());
    CHECK(h200.json["workload"]["model_details"]["weights_format"] == "fp8");
    const Result h100 = run(
        {"estimate", "--model", "deepseek-v3", "--task", "inference", "--gpu", "h100-sxm", "--gpus", "8"});
    CHECK(h100.exit == 3);
    CHECK_FALSE(h100.json["estimates"][0]["fits"].get<bool>());
    // In bf16 it would not fit on the H200s either: the format is what makes it fit.
    const Result bf16 = run({"estimate", "--model", "deepseek-v3", "--weights", "bf16", "--task", "inference",
                             "--gpu", "h200", "--gpus", "8"});
    CHECK(bf16.exit == 3);
}

TEST_CASE("gpt-oss-120b fits one 80 GB GPU with MXFP4, not in bf16", "[cli]") {
    const Result r = run({"estimate", "--model", "gpt-oss-120b", "--task", "inference", "--gpu", "h100-sxm"});
    REQUIRE(r.exit == 0);
    CHECK(r.json["estimates"][0]["fits"].get<bool>());
    CHECK(r.json["workload"]["model_details"]["weights_format"] == "mxfp4");
    const Result bf16 = run({"estimate", "--model", "gpt-oss-120b", "--weights", "bf16", "--task",
                             "inference", "--gpu", "h100-sxm"});
    CHECK(bf16.exit == 3);
}

TEST_CASE("llama-3.1-70b in int4 on two 24 GB cards answers with the KV room left", "[cli]") {
    const Result r = run({"estimate", "--model", "llama-3.1-70b", "--weights", "int4", "--task", "inference",
                          "--gpu", "rtx-4090", "--gpus", "2"});
    REQUIRE(r.exit == 0);
    const auto& e = r.json["estimates"][0];
    CHECK(e["fits"].get<bool>());
    bool room = false;
    for (const auto& n : e["notes"])
        room = room || n.get<std::string>().find("KV cache room") != std::string::npos;
    CHECK(room);
    // In bf16 (141 GB of weights) it does not.
    CHECK(run({"estimate", "--model", "llama-3.1-70b", "--task", "inference", "--gpu", "rtx-4090", "--gpus",
               "2"})
              .exit == 3);
}

TEST_CASE("llama-3.1-8b at its full 131,072-token context: 17.2 GB of KV cache, half in fp8", "[cli]") {
    const std::vector<std::string> job{
        "estimate",     "--model", "llama-3.1-8b",  "--task", "inference", "--prompt-len", "130048",
        "--output-len", "1024",    "--concurrency", "1",      "--gpu",     "h100-sxm"};
    const Result fp16 = run(job);
    REQUIRE(fp16.exit == 0);
    const double kv = fp16.json["estimates"][0]["memory_breakdown_gb"]["kv_cache"].get<double>();
    CHECK(kv == Approx(17.18).epsilon(0.01));
    auto with_fp8 = job;
    with_fp8.insert(with_fp8.end(), {"--kv-cache", "fp8"});
    const Result fp8 = run(with_fp8);
    CHECK(fp8.json["estimates"][0]["memory_breakdown_gb"]["kv_cache"].get<double>() == Approx(kv / 2));
    // One token past the context is refused.
    auto past = job;
    past[6] = "130049";
    CHECK(run(past).exit == 2);
}

TEST_CASE("recommend mixtral-8x7b serving names expert parallelism", "[cli]") {
    const Result r = run({"recommend", "--model", "mixtral-8x7b", "--task", "inference"});
    REQUIRE(r.exit == 0);
    CHECK(r.json["recommendations"][0]["parallelism"]["expert"].get<int>() > 1);
}

TEST_CASE("recommend qwen3-235b-a22b --task lora names expert parallelism", "[cli]") {
    const Result r = run({"recommend", "--model", "qwen3-235b-a22b", "--task", "lora"});
    REQUIRE(r.exit == 0);
    CHECK(r.json["recommendations"][0]["parallelism"]["expert"].get<int>() > 1);
}

TEST_CASE("MoE training: a pipeline's few tokens per expert are bound by reading the experts' weights",
          "[cli]") {
    // Qwen3-235B-A22B LoRA on 8 x H100: pp8 sends a micro-batch's 2,048 tokens through each stage,
    // 128 per expert, and reads every expert's weights each pass; ep8 gathers 8 ranks' tokens on
    // each expert. The planner picks ep, and pp8 pinned is slower.
    auto tokens_per_s = [](std::vector<std::string> pin) {
        std::vector<std::string> args = {"estimate", "--model",  "qwen3-235b-a22b", "--task", "lora",
                                         "--gpu",    "h100-sxm", "--gpus",          "8"};
        args.insert(args.end(), pin.begin(), pin.end());
        const Result r = run(args);
        REQUIRE(r.exit == 0);
        return std::pair{r.json["estimates"][0]["throughput_per_s"].get<double>(),
                         r.json["estimates"][0]["parallelism"]["expert"].get<int>()};
    };
    const auto [chosen, ep] = tokens_per_s({});
    const auto [pipeline, none] = tokens_per_s({"--pp", "8"});
    CHECK(ep == 8);
    CHECK(none == 1);
    CHECK(pipeline < 0.9 * chosen);
}

TEST_CASE("MoE pre-training runs published by NeMo AutoModel (DGX-H100, BF16): within 2x", "[cli]") {
    // docs/performance-summary.md of NVIDIA-NeMo/Automodel (2026-04), tokens/s per GPU, sequence 4096,
    // the published layout where the table gives it (docs/methodology.md §5b, "Mixture of experts").
    // The DeepSeek-V3 1,024-GPU row was held out (not looked at while the expert-read term was added).
    struct Row {
        const char* name;
        std::vector<std::string> args;
        double published;
    };
    const std::vector<Row> rows = {
        {"Qwen3-30B-A3B, 8 GPUs, EP8 FSDP8",
         {"--model", "qwen3-30b-a3b", "--gpus", "8", "--batch-size", "64", "--micro-batch", "4", "--ep", "8",
          "--zero", "3"},
         12040},
        {"gpt-oss-20b, 8 GPUs, FSDP8",
         {"--model", "gpt-oss-20b", "--gpus", "8", "--batch-size", "32", "--micro-batch", "2", "--zero", "3"},
         13058},
        {"gpt-oss-120b, 64 GPUs, FSDP64",
         {"--model", "gpt-oss-120b", "--gpus", "8", "--nodes", "8", "--batch-size", "8", "--micro-batch",
          "2"},
         7626},
        {"DeepSeek-V3, 256 GPUs, PP4 EP64",
         {"--model", "deepseek-v3", "--gpus", "8", "--nodes", "32", "--batch-size", "2", "--micro-batch", "1",
          "--pp", "4", "--ep", "64", "--tp", "1"},
         1002},
        {"DeepSeek-V3, 1,024 GPUs, PP4 EP64 (held out)",
         {"--model", "deepseek-v3", "--gpus", "8", "--nodes", "128", "--batch-size", "8", "--micro-batch",
          "1", "--pp", "4", "--ep", "64", "--tp", "1"},
         865},
    };
    for (const Row& row : rows) {
        INFO(row.name);
        std::vector<std::string> args = {"estimate",  "--task", "train",          "--gpu", "h100-sxm",
                                         "--seq-len", "4096",   "--network-gbps", "3200"};
        args.insert(args.end(), row.args.begin(), row.args.end());
        const Result r = run(args);
        REQUIRE(r.exit == 0);
        const auto& e = r.json["estimates"][0];
        const auto& p = e["parallelism"];
        const double gpus = p["data"].get<double>() * p["tensor"].get<double>() * p["pipeline"].get<double>();
        const double ratio =
            row.published / (e["throughput_per_s"].get<double>() / gpus);  // time est/published
        INFO("estimated time / published " << ratio);
        CHECK(ratio > 0.5);
        CHECK(ratio < 2.0);
    }
}

}  // namespace cli_test_models_2026
