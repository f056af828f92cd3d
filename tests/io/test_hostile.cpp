// Hostile inputs too large to commit (generated here) and fuzzer findings, read from strings
// through the same entry points the loader uses. Each must end in a located diagnostic (or a
// clean load), never a crash, a hang or a sanitizer report. The rest of the hostile-input list is
// in tests/golden/hostile-*; docs/fuzzing.md indexes both.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "cli/app.hpp"
#include "gpuadvise/base/errors.hpp"
#include "io/catalog_loader.hpp"
#include "io/catalog_sections.hpp"
#include "io/offer_tables.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_hostile {

using namespace gpuadvise;

namespace {

std::vector<std::string> yaml_errors(const std::string& yaml) {
    Catalog c;
    std::vector<io::TableRef> tables;
    Diagnostics d;
    io::parse_catalog_yaml(yaml, "t.yaml", false, ".", c, tables, d);
    std::vector<std::string> out;
    for (const auto& x : d.all())
        if (x.severity == Severity::error) out.push_back(format_diagnostic(x));
    return out;
}

struct TableResult {
    std::vector<std::string> errors;
    std::size_t offers = 0;
    std::map<std::string, long> skipped;
};

TableResult read_table(std::string_view csv, const std::string& provider = "aws") {
    Catalog c;
    io::CatalogOptions builtin;
    c.gpus = io::load_catalog(builtin).gpus;
    c.providers.push_back(Provider{});
    c.providers.back().id = provider;
    io::TableRef ref;
    ref.provider = provider;
    ref.format = "skypilot";
    ref.path = ref.resolved_path = "vms.csv";
    ref.builtin = true;  // no file to stat
    Diagnostics d;
    io::load_offer_table(ref, csv, c, d);
    TableResult r;
    for (const auto& x : d.all())
        if (x.severity == Severity::error) r.errors.push_back(format_diagnostic(x));
    r.offers = c.offers.size();
    for (const auto& s : c.skipped)
        for (const auto& [reason, n] : s.rows_by_reason) r.skipped[reason] += n;
    return r;
}

const std::string kHeader =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region\n";

}  // namespace

TEST_CASE("hostile: 100,000-deep flow nesting is refused before yaml-cpp recurses", "[io]") {
    const std::string deep = "gpus: " + std::string(100000, '[') + std::string(100000, ']') + "\n";
    auto e = yaml_errors(deep);
    REQUIRE(e.size() == 1);
    CHECK(e[0] == "t.yaml:1:71: error: nesting deeper than 64 levels; a catalog needs at most 4");
}

TEST_CASE("hostile: 100,000-deep block nesting is refused", "[io]") {
    std::string deep;
    for (int i = 0; i < 100000; ++i) deep += "- ";
    deep += "x\n";
    auto e = yaml_errors(deep);
    REQUIRE(e.size() == 1);
    CHECK(e[0].find("t.yaml:1:") == 0);
    CHECK(e[0].find("nesting deeper than 64 levels") != std::string::npos);

    std::string keys;  // key:\n  key:\n    key: ... one level per line
    for (int i = 0; i < 1000; ++i)
        keys += std::string(static_cast<std::size_t>(2 * i), ' ') + "k:\n";  // 1 MB
    e = yaml_errors(keys);
    REQUIRE(e.size() == 1);
    CHECK(e[0].find("t.yaml:66:") == 0);
    CHECK(e[0].find("nesting deeper than 64 levels") != std::string::npos);

    std::string questions;  // complex keys: "? ? ? ... x"
    for (int i = 0; i < 100000; ++i) questions += "? ";
    e = yaml_errors(questions + "x\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0].find("nesting deeper than 64 levels") != std::string::npos);
}

// Found by reading the guard while writing the fuzz targets: an apostrophe inside a plain
// scalar (a comment, "it's") was taken for an opening quote, and the brackets after it were
// not counted, so the deep document reached yaml-cpp.
TEST_CASE("hostile: an apostrophe in text does not hide deep nesting from the guard", "[io]") {
    for (const std::string prefix : {"# it's a catalog\n", "name: it's\n", "x: [it's, "}) {
        auto e = yaml_errors(prefix + "gpus: " + std::string(100000, '[') + std::string(100000, ']') + "\n");
        REQUIRE(!e.empty());
        CHECK(e[0].find("nesting deeper than 64 levels") != std::string::npos);
    }
    // Quoted scalars still hide their brackets: a name may contain them.
    auto e = yaml_errors("schema_version: 1\npolicy: {}\nrates: []\ngpus: []\n# '[[[['\nproviders: ['" +
                         std::string(100, '[') + "']\n");
    for (const auto& m : e) CHECK(m.find("nesting") == std::string::npos);
}

// No time limit is asserted (a duration is not a test: under the sanitizer on a loaded machine it
// was a coin toss); a quadratic reader shows up as this case dominating ctest's timing instead.
// Tagged [slow]: the sanitizer pass of ./dev test runs the [slow] cases once, in their own ctest run.
TEST_CASE("hostile: a 100 MB line is read without crashing", "[io][slow]") {
    const std::string line(100u << 20, 'a');
    auto e = yaml_errors("gpus: " + line + "\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0] == "t.yaml:1:7: error: gpus: expected a list ('- ' items), found a scalar");

    auto t = read_table(kHeader + "g4dn.xlarge,T4,1,4,16,0.526,," + line + "\n");
    CHECK(t.errors.empty());
    CHECK(t.offers == 1);  // a region name of 100 MB is odd but not malformed
    auto bad = read_table(kHeader + "p3.2xlarge,V100,1,8,61," + line + ",,us-east-1\n");
    REQUIRE(bad.errors.size() == 1);
    CHECK(bad.errors[0] ==
          "<built-in>/vms.csv:2: error: Price: '" + std::string(40, 'a') + "...' is not a number");
    e = yaml_errors("providers:\n  - id: p\n    offers:\n      - {gpu: t4, on_demand_per_hour: " + line +
                    "}\n");
    const std::string expected =
        "t.yaml:4:39: error: providers[0].offers[0].on_demand_per_hour: expected a number, found '" +
        std::string(40, 'a') + "...'";
    CHECK(std::find(e.begin(), e.end(), expected) != e.end());
}

TEST_CASE("hostile: duplicate keys are errors, not a silently ignored value", "[io]") {
    auto e = yaml_errors(
        "providers:\n  - id: p\n    as_of: 2026-01-01\n    source: s\n    offers:\n"
        "      - {gpu: t4, on_demand_per_hour: 1.0, on_demand_per_hour: 0.01}\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0] ==
          "t.yaml:6:44: error: providers[0].offers[0].on_demand_per_hour: duplicate key "
          "'on_demand_per_hour' (first on line 6); keep one of them");
    e = yaml_errors("policy: {a: 1}\npolicy: {}\n");
    REQUIRE(e.size() >= 1);
    CHECK(e[0] == "t.yaml:2:1: error: policy: duplicate key 'policy' (first on line 1); keep one of them");
}

TEST_CASE("hostile: a UTF-16 file is named as such", "[io]") {
    auto e = yaml_errors(std::string("\xFF\xFEs\0c\0h\0", 8));
    REQUIRE(e.size() == 1);
    CHECK(e[0] ==
          "t.yaml: error: the file is UTF-16 encoded; save it as UTF-8 (gpuadvise reads UTF-8 YAML and CSV)");
}

TEST_CASE("hostile: CSV counts out of int range are skipped, not converted (UB)", "[io]") {
    // 1e12 GPUs reached static_cast<int>(double) before the range check: undefined behaviour.
    auto t = read_table(
        kHeader + "p3.2xlarge,V100,1e12,8,61,3.06,,us-east-1\np3.2xlarge,V100,1e300,8,61,3.06,,us-east-1\n");
    CHECK(t.errors.empty());
    CHECK(t.offers == 0);
    CHECK(t.skipped["accelerator count not a whole number from 1 to 4096"] == 2);
    // GCP accelerator rows go through the host-type lookup first, with the same count.
    auto g = read_table(
        "InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,Region,AvailabilityZone\n"
        ",A100,1e12,2.9,1.1,us-central1,us-central1-a\n",
        "gcp");
    CHECK(g.errors.empty());
    CHECK(g.offers == 0);
}

TEST_CASE("hostile: a NUL byte in a CSV table is a located error", "[io]") {
    auto t = read_table(kHeader + "p3.2xlarge,V100,1,8,61,3.06,,us-east-1\n" +
                        std::string("p3.8xl\0arge,V100,4,32,244,12.24,,us-east-1\n", 43));
    REQUIRE(t.errors.size() == 1);
    CHECK(t.errors[0] ==
          "<built-in>/vms.csv:3: error: the table contains a NUL byte; expected a CSV text file (UTF-8)");
    CHECK(t.offers == 0);
}

TEST_CASE("hostile: catalog import of a bad table writes nothing", "[io]") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "gpuadvise-hostile-import";
    fs::remove_all(dir);
    fs::create_directories(dir);
    {
        std::ofstream f(dir / "aws.csv", std::ios::binary);
        f << kHeader << "\"p3.2xlarge,V100,1,8,61,3.06,,us-east-1\n";
    }
    const std::string in = (dir / "aws.csv").string(), outdir = (dir / "out").string();
    const char* argv[] = {"gpuadvise", "catalog",  "import",      "skypilot",
                          in.c_str(),  "--output", outdir.c_str()};
    std::ostringstream out, err;
    const int code = cli::run(7, argv, out, err);
    CHECK(code == 1);
    CHECK(err.str().find("malformed CSV") != std::string::npos);
    CHECK(!fs::exists(dir / "out"));
    fs::remove_all(dir);
}

}  // namespace io_test_hostile
