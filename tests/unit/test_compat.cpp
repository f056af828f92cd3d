// [core] compatibility checks on small in-memory tables (the logic), independent of data/compat.yaml.
#include <catch2/catch.hpp>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/catalog/catalog.hpp"
#include "gpuadvise/compat/compat.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_compat {

using namespace gpuadvise;

namespace {

Gpu gpu(const std::string& id, const std::string& family, const std::string& cc, double memory_gb) {
    Gpu g;
    g.id = id;
    g.family = family;
    g.name = family;
    g.compute_capability = cc;
    g.memory_gb = memory_gb;
    g.source = "test";
    return g;
}

// The §5 rows these tests need, written out so that a data edit cannot hide a logic bug.
CompatTables tables() {
    CompatTables t;
    t.source = "test";
    t.releases = {{"1.12", {"cu102", "cu113", "cu116"}, "", "t"},
                  {"2.0", {"cu117", "cu118"}, "", "t"},
                  {"2.1", {"cu118", "cu121"}, "", "t"},
                  {"2.8", {"cu126", "cu128", "cu129"}, "", "t"}};
    t.minor_compat = {{11, "450.80.02", "t"}, {12, "525.60.13", "t"}, {13, "580", "t"}};
    t.toolkit_drivers = {{"10.2", "440.33", "t"}, {"12.2", "535.54.03", "t"}};
    const std::vector<std::string> to86{"sm_37", "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86"};
    const std::vector<std::string> to90{"sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"};
    const std::vector<std::string> volta_up{"sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"};
    t.wheel_archs = {{"cu102", "1.12", "1.12", {"sm_37", "sm_50", "sm_60", "sm_70", "sm_75"}, "", "t"},
                     {"cu113", "1.12", "1.12", to86, "", "t"},
                     {"cu116", "1.12", "1.13", to86, "", "t"},
                     {"cu117", "1.13", "2.0", to86, "", "t"},
                     {"cu118", "2.0", "2.7", to90, "", "t"},
                     {"cu121", "2.1", "2.5", to90, "", "t"},
                     {"cu126", "2.6", "", to90, "", "t"},
                     {"cu128", "2.8", "2.9", volta_up, "", "t"},
                     {"cu129", "2.8", "2.8", volta_up, "", "t"}};
    t.precision_rules = {{Precision::bf16, "8.0", Precision::fp16, "t"},
                         {Precision::tf32, "8.0", Precision::fp32, "t"},
                         {Precision::fp8, "8.9", Precision::bf16, "t"}};
    return t;
}

Catalog catalog() {
    Catalog c;
    c.gpus = {gpu("t4", "T4", "7.5", 16),
              gpu("a100-40gb-pcie", "A100", "8.0", 40),
              gpu("a100-80gb-sxm", "A100", "8.0", 80),
              gpu("h100-sxm", "H100", "9.0", 80),
              gpu("p100-pcie", "P100", "6.0", 16),
              gpu("v100-16gb-sxm2", "V100", "7.0", 16),
              gpu("l4", "L4", "8.9", 24),
              gpu("mi300x", "MI300X", "gfx942", 192)};
    c.gpus.back().vendor = "AMD";
    c.compat = tables();
    return c;
}

const CompatCheck* find_check(const CompatReport& r, const std::string& name) {
    for (const auto& c : r.checks)
        if (c.name == name) return &c;
    return nullptr;
}

bool any_suggestion_contains(const CompatReport& r, const std::string& text) {
    for (const auto& s : r.suggestions)
        if (s.find(text) != std::string::npos) return true;
    return false;
}

EnvQuery query(std::optional<std::string> gpu, std::optional<std::string> pytorch,
               std::optional<std::string> driver = {}) {
    EnvQuery q;
    q.gpu = std::move(gpu);
    q.pytorch = std::move(pytorch);
    q.driver = std::move(driver);
    return q;
}

}  // namespace

TEST_CASE("versions parse and compare numerically", "[core]") {
    REQUIRE(parse_version("535.104.05"));
    CHECK(*parse_version("535.104.05") > *parse_version("525.60.13"));
    CHECK(*parse_version("450.80.02") > *parse_version("450.51.06"));
    CHECK(*parse_version("580") <= *parse_version("580.65.06"));
    CHECK(*parse_version("12.10") > *parse_version("12.9"));
    CHECK_FALSE(parse_version("535.x"));
    CHECK_FALSE(parse_version(""));
    CHECK_FALSE(parse_version("1..2"));
}

TEST_CASE("PyTorch versions in the forms users and torch.__version__ write", "[core]") {
    auto a = parse_pytorch_version("2.1");
    REQUIRE(a);
    CHECK(a->series() == "2.1");
    CHECK_FALSE(a->patch);
    CHECK_FALSE(a->wheel());
    auto b = parse_pytorch_version("1.12.1+cu102");
    REQUIRE(b);
    CHECK(b->series() == "1.12");
    CHECK(b->patch == 1);
    CHECK(b->wheel() == "cu102");
    CHECK(parse_pytorch_version("2.1+cu118")->wheel() == "cu118");
    CHECK(parse_pytorch_version("2.1.0")->patch == 0);
    CHECK(parse_pytorch_version("2.10.0")->series() == "2.10");
    auto ngc = parse_pytorch_version("2.3.0a0+git1234abc");
    REQUIRE(ngc);
    CHECK(ngc->series() == "2.3");
    CHECK_FALSE(ngc->wheel());
    CHECK(parse_pytorch_version("2.1.0+cpu")->local == "cpu");
    CHECK(parse_pytorch_version("2.8.0.dev20250601+cu128")->wheel() == "cu128");
    CHECK_FALSE(parse_pytorch_version("2"));
    CHECK_FALSE(parse_pytorch_version("two.one"));
    CHECK_FALSE(parse_pytorch_version("2.1+"));
    CHECK_FALSE(parse_pytorch_version("2.1 cu118"));
}

TEST_CASE("wheel variants, CUDA versions and compute capabilities convert both ways", "[core]") {
    CHECK(cuda_of_wheel("cu118")->text == "11.8");
    CHECK(cuda_of_wheel("cu102")->text == "10.2");
    CHECK(cuda_of_wheel("cu130")->text == "13.0");
    CHECK_FALSE(cuda_of_wheel("cpu"));
    CHECK(wheel_for_cuda(*parse_version("12.1")) == "cu121");
    CHECK(wheel_for_cuda(*parse_version("10.2")) == "cu102");
    CHECK(parse_compute_capability("8.6") == 86);
    CHECK(parse_compute_capability("10.0") == 100);
    CHECK(parse_compute_capability("sm_90a") == 90);
    CHECK_FALSE(parse_compute_capability("gfx90a"));
    CHECK(format_compute_capability(120) == "12.0");
}

TEST_CASE("driver minimums: minor-version floors for CUDA 11+, the toolkit row for 10.2", "[core]") {
    CompatTables t = tables();
    CHECK(t.min_driver_for_cuda(*parse_version("11.3"))->text == "450.80.02");
    CHECK(t.min_driver_for_cuda(*parse_version("12.8"))->text == "525.60.13");
    CHECK(t.min_driver_for_cuda(*parse_version("10.2"))->text == "440.33");
    CHECK(t.toolkit_driver_for(*parse_version("12.2.140"))->text == "535.54.03");
}

TEST_CASE("PyTorch 1.12 with CUDA 10.2 runs on a T4", "[core]") {
    Catalog c = catalog();
    CompatReport r = check_compat(c, query("T4", "1.12+cu102"));
    CHECK(r.compatible);
    CHECK(r.wheel == "cu102");
    REQUIRE(find_check(r, "gpu_architecture"));
    CHECK(find_check(r, "gpu_architecture")->ok);
    // The same, spelled with --cuda instead of the wheel suffix.
    EnvQuery q = query("T4", "1.12");
    q.cuda = "10.2";
    CompatReport r2 = check_compat(c, q);
    CHECK(r2.compatible);
    CHECK(r2.wheel == "cu102");
}

TEST_CASE("PyTorch 1.12 cu102 on an A100 is refused and the fix names cu113/cu116", "[core]") {
    Catalog c = catalog();
    CompatReport r = check_compat(c, query("A100", "1.12+cu102"));
    CHECK_FALSE(r.compatible);
    CHECK(r.gpu_ids == std::vector<std::string>{"a100-40gb-pcie", "a100-80gb-sxm"});
    REQUIRE(find_check(r, "gpu_architecture"));
    CHECK_FALSE(find_check(r, "gpu_architecture")->ok);
    CHECK(find_check(r, "gpu_architecture")->message.find("sm_80") != std::string::npos);
    CHECK(any_suggestion_contains(r, "cu113 or cu116"));
}

TEST_CASE("PyTorch 1.12 has no wheel for an H100; 2.1 with driver 535 runs", "[core]") {
    Catalog c = catalog();
    CompatReport old = check_compat(c, query("H100", "1.12"));
    CHECK_FALSE(old.compatible);
    CHECK(find_check(old, "gpu_architecture")->message.find("no PyTorch 1.12 wheel") != std::string::npos);
    CHECK(any_suggestion_contains(old, "too new for PyTorch 1.12: use PyTorch ≥ 2.0 (cu118)"));

    CompatReport ok = check_compat(c, query("H100", "2.1", "535.104.05"));
    CHECK(ok.compatible);
    CHECK(find_check(ok, "driver")->ok);
    CHECK(ok.wheel == "cu121");
    CompatReport short_driver = check_compat(c, query("H100", "2.1", "535"));
    CHECK(short_driver.compatible);
}

TEST_CASE("a driver older than 450.80.02 runs no CUDA 11 or 12 wheel; the fix names the minimum", "[core]") {
    Catalog c = catalog();
    for (const std::string wheel : {"cu113", "cu116", "cu117", "cu118", "cu121", "cu126", "cu128"}) {
        auto need = c.compat.min_driver_for_cuda(*cuda_of_wheel(wheel));
        REQUIRE(need);
        CHECK(*parse_version("450.80.01") < *need);
    }
    CompatReport r = check_compat(c, query("T4", "2.1", "440.33"));
    CHECK_FALSE(r.compatible);
    CHECK_FALSE(find_check(r, "driver")->ok);
    CHECK(any_suggestion_contains(r, "upgrade the NVIDIA driver to ≥ 450.80.02"));

    CompatReport cu121 = check_compat(c, query("T4", "2.1+cu121", "470.57.02"));
    CHECK_FALSE(cu121.compatible);
    CHECK(any_suggestion_contains(cu121, "≥ 525.60.13"));

    // Without PyTorch: the driver alone.
    EnvQuery q;
    q.driver = "418.67";
    CompatReport alone = check_compat(c, q);
    CHECK_FALSE(alone.compatible);
    CHECK(any_suggestion_contains(alone, "450.80.02"));
    // 440.33 is enough for the CUDA 10.2 wheel of 1.12.
    CHECK(check_compat(c, query("T4", "1.12+cu102", "440.33")).compatible);
}

TEST_CASE("PyTorch 2.8 cu128 drops Pascal: P100 refused, cu126 suggested", "[core]") {
    Catalog c = catalog();
    CompatReport r = check_compat(c, query("P100", "2.8+cu128"));
    CHECK_FALSE(r.compatible);
    CHECK(any_suggestion_contains(r, "install a cu126 wheel of PyTorch 2.8"));
    CHECK(check_compat(c, query("P100", "2.8+cu126")).compatible);
    CHECK(check_compat(c, query("V100", "2.8+cu128")).compatible);  // Volta stays in 2.8
    CHECK(check_compat(c, query("P100", "2.8")).compatible);        // some 2.8 wheel fits
}

TEST_CASE("BF16 is refused below CC 8.0 with fp16 suggested; FP8 below 8.9 likewise", "[core]") {
    Catalog c = catalog();
    for (const std::string name : {"V100", "T4"}) {
        EnvQuery q = query(name, std::nullopt);
        q.precision = "bf16";
        CompatReport r = check_compat(c, q);
        CHECK_FALSE(r.compatible);
        CHECK_FALSE(find_check(r, "precision")->ok);
        CHECK(any_suggestion_contains(r, "use fp16 instead of bf16"));
    }
    EnvQuery fp8_a100 = query("A100", std::nullopt);
    fp8_a100.precision = "fp8";
    CompatReport a = check_compat(c, fp8_a100);
    CHECK_FALSE(a.compatible);
    CHECK(any_suggestion_contains(a, "use bf16 instead of fp8"));
    EnvQuery fp8_t4 = query("T4", std::nullopt);
    fp8_t4.precision = "fp8";
    CHECK(any_suggestion_contains(check_compat(c, fp8_t4), "use fp16 instead of fp8"));
    EnvQuery fp8_l4 = query("L4", std::nullopt);
    fp8_l4.precision = "fp8";
    CHECK(check_compat(c, fp8_l4).compatible);
    EnvQuery bf16_a100 = query("A100", std::nullopt);
    bf16_a100.precision = "bf16";
    CHECK(check_compat(c, bf16_a100).compatible);
}

TEST_CASE("an installed PyTorch's own arch list and CPU builds", "[core]") {
    Catalog c = catalog();
    EnvQuery q = query("A100", "2.1.0a0+git32f93b1");
    q.pytorch_cuda = "12.2";  // an NGC container build: cu122 is not a published wheel
    q.arch_list = {"sm_52", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"};
    CHECK(check_compat(c, q).compatible);
    q.arch_list = {"sm_52", "sm_60", "sm_70"};
    CHECK_FALSE(check_compat(c, q).compatible);
    CompatReport cpu = check_compat(c, query("T4", "2.1.0+cpu"));
    CHECK_FALSE(cpu.compatible);
    CHECK(find_check(cpu, "wheel_variant")->message.find("CPU-only") != std::string::npos);
}

TEST_CASE("unusable arguments are usage errors", "[core]") {
    Catalog c = catalog();
    CHECK_THROWS_AS(check_compat(c, query("T4", "9.9")), UsageError);
    CHECK_THROWS_AS(check_compat(c, query("T4", "two")), UsageError);
    CHECK_THROWS_AS(check_compat(c, query("Z9000", "2.1")), UsageError);
    CHECK_THROWS_AS(check_compat(c, query("T4", "2.1", "abc")), UsageError);
    EnvQuery q = query("T4", "2.1");
    q.precision = "fp4";
    CHECK_THROWS_AS(check_compat(c, q), UsageError);
    CHECK_FALSE(check_compat(c, EnvQuery{}).compatible);  // nothing to check is not "compatible"
}

TEST_CASE("fit_pytorch: whether any wheel fits a GPU, and the driver it needs", "[core]") {
    Catalog c = catalog();
    const CompatTables& t = c.compat;
    PytorchFit h100 = fit_pytorch(t, *c.find_gpu("h100-sxm"), *parse_pytorch_version("1.12"));
    CHECK_FALSE(h100.supported);
    CHECK(h100.reason.find("sm_90") != std::string::npos);

    PytorchFit h100_21 = fit_pytorch(t, *c.find_gpu("h100-sxm"), *parse_pytorch_version("2.1"));
    CHECK(h100_21.supported);
    CHECK(h100_21.min_driver->text == "450.80.02");
    CHECK(h100_21.requirement == "needs driver ≥ 450.80.02 (cu118) or ≥ 525.60.13 (cu121)");
    CHECK(fit_pytorch(t, *c.find_gpu("h100-sxm"), *parse_pytorch_version("2.1+cu121")).requirement ==
          "needs driver ≥ 525.60.13 (cu121)");

    PytorchFit t4 = fit_pytorch(t, *c.find_gpu("t4"), *parse_pytorch_version("1.12"));
    CHECK(t4.wheels == std::vector<std::string>{"cu102", "cu113", "cu116"});
    CHECK(t4.min_driver->text == "440.33");

    PytorchFit old_driver =
        fit_pytorch(t, *c.find_gpu("h100-sxm"), *parse_pytorch_version("2.1"), parse_version("470.57.02"));
    CHECK(old_driver.supported);
    CHECK(old_driver.wheels == std::vector<std::string>{"cu118"});
    CHECK_FALSE(
        fit_pytorch(t, *c.find_gpu("h100-sxm"), *parse_pytorch_version("2.1"), parse_version("418.67"))
            .supported);

    PytorchFit amd = fit_pytorch(t, *c.find_gpu("mi300x"), *parse_pytorch_version("2.1"));
    CHECK(amd.supported);
    CHECK_FALSE(amd.checked);
}

TEST_CASE("fit_offer uses the provider's driver when the catalog knows it", "[core]") {
    Catalog c = catalog();
    Provider p;
    p.id = "old-driver-cloud";
    p.driver_version = "470.57.02";
    c.providers.push_back(p);
    Offer o;
    o.provider = "old-driver-cloud";
    o.gpu = "h100-sxm";
    CHECK(fit_offer(c, o, *parse_pytorch_version("2.1")).wheels == std::vector<std::string>{"cu118"});
    CHECK_FALSE(fit_offer(c, o, *parse_pytorch_version("2.1+cu121")).supported);
    o.gpu = "unknown-gpu";
    CHECK_FALSE(fit_offer(c, o, *parse_pytorch_version("2.1")).supported);
}

// #13: each GPU's own minimum driver is checked beside the wheel's; what cannot be checked is
// "unknown", never "Compatible".
TEST_CASE("a GPU's own minimum driver: H100 on 470 and B200 on 535 are not compatible, naming it", "[core]") {
    Catalog c = catalog();
    c.gpus.push_back(gpu("b200", "B200", "10.0", 180));
    c.gpus.push_back(gpu("b300", "B300", "10.3", 270));
    c.compat.gpu_drivers = {{"8.0", "450.51.05", "A100", "t"},
                            {"9.0", "520.61.05", "H100", "t"},
                            {"10.0", "570.26", "B200", "t"}};

    // cu118 alone needs 450.80.02, so only the GPU's floor refuses 470.
    CompatReport h100 = check_compat(c, query("h100-sxm", "2.1+cu118", "470.57.02"));
    CHECK_FALSE(h100.compatible);
    CHECK_FALSE(h100.unknown);
    const CompatCheck* floor = find_check(h100, "gpu_driver");
    REQUIRE(floor);
    CHECK_FALSE(floor->ok);
    CHECK(floor->message.find("≥ 520.61.05") != std::string::npos);
    CHECK(any_suggestion_contains(h100, "upgrade the NVIDIA driver to ≥ 520.61.05"));
    CHECK(check_compat(c, query("h100-sxm", "2.1+cu118", "535.104.05")).compatible);

    EnvQuery b200;
    b200.gpu = "b200";
    b200.driver = "535.104.05";
    CompatReport b = check_compat(c, b200);
    CHECK_FALSE(b.compatible);
    CHECK(find_check(b, "gpu_driver")->message.find("≥ 570.26") != std::string::npos);

    // Older than every row: no floor beyond the wheels' (no gpu_driver check at all).
    CHECK(find_check(check_compat(c, query("T4", "2.1", "470.57.02")), "gpu_driver") == nullptr);
    // A newer compute capability without a row: unknown.
    EnvQuery b300;
    b300.gpu = "b300";
    b300.driver = "580.65.06";
    CompatReport u = check_compat(c, b300);
    CHECK_FALSE(u.compatible);
    CHECK(u.unknown);
    CHECK_FALSE(find_check(u, "gpu_driver")->checked);

    // The floor also raises what `offers/recommend --pytorch` say and refuse.
    const PytorchFit fit = fit_pytorch(c.compat, *c.find_gpu("h100-sxm"), *parse_pytorch_version("2.1"));
    CHECK(fit.requirement == "needs driver ≥ 520.61.05 (cu118) or ≥ 525.60.13 (cu121)");
    CHECK_FALSE(
        fit_pytorch(c.compat, *c.find_gpu("b200"), *parse_pytorch_version("2.8"), parse_version("535.104.05"))
            .supported);
}

TEST_CASE("an AMD GPU is 'unknown', never 'Compatible'; a CUDA build on it is not compatible", "[core]") {
    Catalog c = catalog();
    CompatReport rocm = check_compat(c, query("MI300X", "2.1"));
    CHECK_FALSE(rocm.compatible);
    CHECK(rocm.unknown);
    EnvQuery bare;
    bare.gpu = "MI300X";
    CHECK(check_compat(c, bare).unknown);
    CompatReport cuda = check_compat(c, query("MI300X", "2.1+cu118"));
    CHECK_FALSE(cuda.compatible);
    CHECK_FALSE(cuda.unknown);
}

}  // namespace unit_test_compat
