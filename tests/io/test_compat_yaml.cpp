// [io] data/compat.yaml as built into the binary, and the reader's located errors.
#include <catch2/catch.hpp>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/compat/compat.hpp"
#include "io/catalog_loader.hpp"
#include "io/catalog_sections.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_compat_yaml {

using namespace gpuadvise;

TEST_CASE("built-in compat tables: every release's wheels have architectures and a driver", "[io]") {
    io::CatalogOptions options;
    Catalog c = io::load_catalog(options);
    const CompatTables& t = c.compat;
    REQUIRE_FALSE(t.empty());
    CHECK(t.releases.front().series == "1.12");
    for (const auto& r : t.releases) {
        CHECK_FALSE(r.source.empty());
        auto v = parse_pytorch_version(r.series);
        REQUIRE(v);
        for (const auto& w : r.wheels) {
            INFO(r.series << " " << w);
            CHECK(t.archs_for(w, *v));
            CHECK(t.min_driver_for_cuda(*cuda_of_wheel(w)));
        }
    }
    // The §5 facts the advisor rules rest on.
    auto archs = [&](const char* wheel, const char* torch) {
        return t.archs_for(wheel, *parse_pytorch_version(torch))->archs;
    };
    CHECK_FALSE(archs_cover(archs("cu102", "1.12"), 80));
    CHECK(archs_cover(archs("cu102", "1.12"), 75));
    CHECK_FALSE(archs_cover(archs("cu128", "2.8"), 60));
    CHECK(archs_cover(archs("cu128", "2.8"), 70));
    CHECK_FALSE(archs_cover(archs("cu128", "2.10"), 70));
    CHECK_FALSE(archs_cover(archs("cu126", "2.8"), 100));
    CHECK(archs_cover(archs("cu128", "2.7"), 100));
    CHECK_FALSE(archs_cover(archs("cu130", "2.9"), 70));
    CHECK(t.min_driver_for_cuda(*parse_version("11.8"))->text == "450.80.02");
    CHECK(t.min_driver_for_cuda(*parse_version("12.1"))->text == "525.60.13");
}

TEST_CASE("Done-when checks on the built-in catalog", "[io]") {
    io::CatalogOptions options;
    Catalog c = io::load_catalog(options);
    auto check = [&](const char* gpu, const char* torch, std::optional<std::string> driver = {}) {
        EnvQuery q;
        q.gpu = gpu;
        q.pytorch = torch;
        q.driver = std::move(driver);
        return check_compat(c, q);
    };
    CHECK(check("T4", "1.12+cu102").compatible);
    CHECK_FALSE(check("A100", "1.12+cu102").compatible);
    CHECK_FALSE(check("H100", "1.12").compatible);
    CHECK(check("H100", "2.1", "535.104.05").compatible);
    CHECK_FALSE(check("T4", "2.1", "450.51.06").compatible);
    CHECK_FALSE(check("P100", "2.8+cu128").compatible);
    CHECK(check("P100", "2.8+cu126").compatible);
    CHECK(check("B200", "2.7+cu128").compatible);
    CHECK_FALSE(check("B200", "2.6").compatible);
}

TEST_CASE("compat reader: bad rows are located errors and nothing loads", "[io]") {
    const std::string text = R"(schema_version: 1
compat:
  source: test
  pytorch_releases:
    - {series: "2.1", wheels: [cu118, cuda121], source: t}
  minor_version_compat:
    - {cuda_major: 11, min_driver: "450.x", source: t}
  wheel_archs:
    - {wheel: cu118, pytorch_from: "2.0", archs: [sm_80, ampere], source: t}
  precision:
    - {precision: bf17, min_compute_capability: "8.0", fallback: fp16, source: t}
)";
    Catalog out;
    std::vector<io::TableRef> tables;
    Diagnostics diags;
    io::parse_catalog_yaml(text, "bad.yaml", false, ".", out, tables, diags);
    std::vector<std::string> messages;
    for (const auto& d : diags.all()) messages.push_back(format_diagnostic(d));
    REQUIRE(diags.error_count() == 4);
    CHECK(messages[0].find("bad.yaml:5:") == 0);
    CHECK(messages[0].find("'cuda121' is not a CUDA wheel variant") != std::string::npos);
    CHECK(messages[1].find("'450.x' is not a version") != std::string::npos);
    CHECK(messages[2].find("'ampere' is not an architecture") != std::string::npos);
    CHECK(messages[3].find("unknown precision 'bf17'") != std::string::npos);
}

TEST_CASE("compat reader: a published wheel without architectures is an error", "[io]") {
    const std::string text = R"(schema_version: 1
compat:
  source: test
  pytorch_releases:
    - {series: "2.1", wheels: [cu118, cu121], source: t}
  wheel_archs:
    - {wheel: cu118, pytorch_from: "2.0", archs: [sm_50, sm_90], source: t}
)";
    Catalog out;
    std::vector<io::TableRef> tables;
    Diagnostics diags;
    io::parse_catalog_yaml(text, "gap.yaml", false, ".", out, tables, diags);
    REQUIRE(diags.error_count() == 1);
    CHECK(format_diagnostic(diags.all()[0]).find("wheel cu121 of PyTorch 2.1 has no wheel_archs row") !=
          std::string::npos);
}

}  // namespace io_test_compat_yaml
