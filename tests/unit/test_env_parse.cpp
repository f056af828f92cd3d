// [core] parsers for nvidia-smi, nvcc and the torch probe, on output in the exact formats the
// tools print, and nvidia-smi names -> catalog GPUs.
#include <catch2/catch.hpp>

#include "gpuadvise/compat/env_parse.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_env_parse {

using namespace gpuadvise;

namespace {

// nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader
constexpr const char* kSmiEightA100 =
    "NVIDIA A100-SXM4-80GB, 535.104.05, 81920 MiB, 8.0\n"
    "NVIDIA A100-SXM4-80GB, 535.104.05, 81920 MiB, 8.0\n"
    "NVIDIA A100-SXM4-80GB, 535.104.05, 81920 MiB, 8.0\n"
    "NVIDIA A100-SXM4-80GB, 535.104.05, 81920 MiB, 8.0\n";
constexpr const char* kSmiMixed =
    "Tesla V100-SXM2-16GB, 470.182.03, 16384 MiB, 7.0\n"
    "NVIDIA GeForce RTX 4090, 550.54.14, 24564 MiB, 8.9\n"
    "NVIDIA H100 80GB HBM3, 550.54.15, 81559 MiB, 9.0\n"
    "Tesla T4, 525.125.06, 15360 MiB, 7.5\n"
    "NVIDIA A100-PCIE-40GB, 525.85.12, 40960 MiB, 8.0\n"
    "NVIDIA L4, 535.161.08, 23034 MiB, 8.9\n"
    "NVIDIA RTX 6000 Ada Generation, 535.129.03, 49140 MiB, 8.9\n"
    "NVIDIA Quadro Q9999, 535.129.03, [N/A], 8.6\n";

constexpr const char* kNvcc =
    "nvcc: NVIDIA (R) Cuda compiler driver\n"
    "Copyright (c) 2005-2023 NVIDIA Corporation\n"
    "Built on Tue_Aug_15_22:02:13_PDT_2023\n"
    "Cuda compilation tools, release 12.2, V12.2.140\n"
    "Build cuda_12.2.r12.2/compiler.33191640_0\n";

Gpu gpu(const std::string& id, const std::string& family, double memory_gb, const std::string& ff,
        std::vector<std::string> aliases = {}) {
    Gpu g;
    g.id = id;
    g.family = family;
    g.memory_gb = memory_gb;
    g.form_factor = ff;
    g.aliases = std::move(aliases);
    g.compute_capability = "8.0";
    return g;
}

Catalog catalog() {
    Catalog c;
    c.gpus = {gpu("a100-40gb-pcie", "A100", 40, "pcie"),
              gpu("a100-40gb-sxm", "A100", 40, "sxm"),
              gpu("a100-80gb-pcie", "A100", 80, "pcie"),
              gpu("a100-80gb-sxm", "A100", 80, "sxm"),
              gpu("h100-pcie", "H100", 80, "pcie"),
              gpu("h100-sxm", "H100", 80, "sxm"),
              gpu("h100-nvl", "H100", 94, "pcie"),
              gpu("v100-16gb-sxm2", "V100", 16, "sxm"),
              gpu("v100-32gb-sxm2", "V100", 32, "sxm"),
              gpu("v100s-pcie", "V100S", 32, "pcie"),
              gpu("t4", "T4", 16, "pcie"),
              gpu("l4", "L4", 24, "pcie"),
              gpu("l40s", "L40S", 48, "pcie"),
              gpu("rtx-4090", "RTX4090", 24, "pcie"),
              gpu("rtx-6000-ada", "RTX6000Ada", 48, "pcie"),
              gpu("a10", "A10", 24, "pcie")};
    return c;
}

std::string identify(const Catalog& c, const SmiGpu& g) {
    auto id = identify_gpu(c, g);
    return id.gpu ? id.gpu->id : "";
}

}  // namespace

TEST_CASE("nvidia-smi CSV: several GPUs, unusual names, [N/A] memory", "[core]") {
    SmiParse a = parse_nvidia_smi_csv(kSmiEightA100);
    REQUIRE(a.gpus.size() == 4);
    CHECK(a.problems.empty());
    CHECK(a.gpus[0].name == "NVIDIA A100-SXM4-80GB");
    CHECK(a.gpus[0].driver == "535.104.05");
    CHECK(a.gpus[0].memory_mib == 81920);
    CHECK(a.gpus[0].compute_capability == "8.0");

    SmiParse m = parse_nvidia_smi_csv(kSmiMixed);
    REQUIRE(m.gpus.size() == 8);
    CHECK(m.gpus[1].name == "NVIDIA GeForce RTX 4090");
    CHECK(m.gpus[6].name == "NVIDIA RTX 6000 Ada Generation");
    CHECK_FALSE(m.gpus[7].memory_mib);

    // Drivers without the compute_cap field print three columns.
    SmiParse old = parse_nvidia_smi_csv("Tesla K80, 470.82.01, 11441 MiB\n");
    REQUIRE(old.gpus.size() == 1);
    CHECK(old.gpus[0].compute_capability.empty());
    CHECK(old.gpus[0].memory_mib == 11441);

    SmiParse bad = parse_nvidia_smi_csv(
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n");
    CHECK(bad.gpus.empty());
    CHECK(bad.problems.size() == 1);
    CHECK(parse_nvidia_smi_csv("").gpus.empty());
}

TEST_CASE("nvidia-smi names map to catalog GPUs by name, memory and form factor", "[core]") {
    Catalog c = catalog();
    SmiParse m = parse_nvidia_smi_csv(kSmiMixed);
    CHECK(identify(c, parse_nvidia_smi_csv(kSmiEightA100).gpus[0]) == "a100-80gb-sxm");
    CHECK(identify(c, m.gpus[0]) == "v100-16gb-sxm2");
    CHECK(identify(c, m.gpus[1]) == "rtx-4090");
    CHECK(identify(c, m.gpus[2]) == "h100-sxm");  // "80GB HBM3" is the SXM part
    CHECK(identify(c, m.gpus[3]) == "t4");        // 15360 MiB reported for a 16 GB T4
    CHECK(identify(c, m.gpus[4]) == "a100-40gb-pcie");
    CHECK(identify(c, m.gpus[5]) == "l4");
    CHECK(identify(c, m.gpus[6]) == "rtx-6000-ada");
    auto unknown = identify_gpu(c, m.gpus[7]);
    CHECK_FALSE(unknown.gpu);
    CHECK(unknown.note.find("not in the catalog") != std::string::npos);
    CHECK(identify(c, {"Tesla V100S-PCIE-32GB", "470.1", 32768, "7.0"}) == "v100s-pcie");
    CHECK(identify(c, {"NVIDIA A10", "535.1", 23028, "8.6"}) == "a10");  // not A100
    auto no_form = identify_gpu(c, {"NVIDIA A100 80GB", "535.1", 81920, "8.0"});
    CHECK_FALSE(no_form.gpu);
    CHECK(no_form.candidates.size() == 2);
}

TEST_CASE("nvcc --version: the release line", "[core]") {
    CHECK(parse_nvcc_version(kNvcc) == "12.2");
    CHECK(parse_nvcc_version("Cuda compilation tools, release 10.2, V10.2.89\n") == "10.2");
    CHECK_FALSE(parse_nvcc_version("bash: nvcc: command not found\n"));
}

TEST_CASE("python torch probe: version, CUDA and arch list", "[core]") {
    auto p = parse_torch_probe(
        "2.1.0+cu121\n12.1\n['sm_50', 'sm_60', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_90']\n");
    REQUIRE(p);
    CHECK(p->version == "2.1.0+cu121");
    CHECK(p->cuda == "12.1");
    CHECK(p->arch_list.size() == 7);
    CHECK(p->arch_list.back() == "sm_90");
    auto cpu = parse_torch_probe("2.1.0+cpu\nNone\n[]\n");
    REQUIRE(cpu);
    CHECK_FALSE(cpu->cuda);
    CHECK(cpu->arch_list.empty());
    // A warning printed to stdout before the three lines is skipped.
    CHECK(parse_torch_probe(
        "UserWarning: something\n1.12.1+cu102\n10.2\n['sm_37', 'sm_50', 'sm_60', 'sm_70']\n"));
    CHECK_FALSE(parse_torch_probe(
        "Traceback (most recent call last):\nModuleNotFoundError: No module named 'torch'\n"));
}

}  // namespace unit_test_env_parse
