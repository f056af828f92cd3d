// The built-in grid carbon table (data/carbon.yaml) against its verbatim source CSV, and the YAML
// readers of `grid_carbon`, `billing` and `pue` (issue 19).
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "io/catalog_loader.hpp"
#include "io/catalog_sections.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_carbon_data {

using namespace gpuadvise;

namespace {

std::vector<std::string> errors_of(const std::string& yaml, Catalog& c) {
    std::vector<io::TableRef> tables;
    Diagnostics d;
    io::parse_catalog_yaml(yaml, "t.yaml", false, ".", c, tables, d);
    std::vector<std::string> out;
    for (const auto& x : d.all()) out.push_back(format_diagnostic(x));
    return out;
}

}  // namespace

TEST_CASE("carbon: data/carbon.yaml holds every region of the source CSV with its grid intensity, unchanged",
          "[io]") {
    std::ifstream in(std::string(GPUADVISE_SOURCE_DIR) + "/data/carbon/gcp-region-carbon-2025.csv");
    REQUIRE(in);
    io::CatalogOptions options;
    options.sky_catalogs = false;
    options.cache = false;
    const Catalog builtin = io::load_catalog(options);
    std::string line;
    std::getline(in, line);
    CHECK(line == "Google Cloud Region,Location,Google CFE,Grid carbon intensity (gCO2eq / kWh)");
    std::size_t rows = 0;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const std::string region = line.substr(0, line.find(','));
        const double value = std::stod(line.substr(line.rfind(',') + 1));
        ++rows;
        INFO(region);
        auto it =
            std::find_if(builtin.grid_carbon.begin(), builtin.grid_carbon.end(),
                         [&](const GridIntensity& g) { return g.provider == "gcp" && g.region == region; });
        REQUIRE(it != builtin.grid_carbon.end());
        CHECK(it->g_co2e_per_kwh == Approx(value).epsilon(1e-12));
        CHECK(it->source.find("region-carbon-info") != std::string::npos);
    }
    CHECK(rows == 47);
    CHECK(builtin.grid_carbon.size() == rows);
    // The billing and PUE data of the shipped providers, with their sources.
    const Provider* gcp = builtin.find_provider("gcp");
    REQUIRE(gcp);
    CHECK(gcp->billing.increment_seconds == std::optional<int>(1));
    CHECK(gcp->billing.minimum_seconds == std::optional<int>(60));
    CHECK_FALSE(gcp->billing.source.empty());
    CHECK(gcp->pue == std::optional<double>(1.10));
    CHECK_FALSE(gcp->pue_source.empty());
}

TEST_CASE("carbon and billing keys: values are read, mistakes are located", "[io]") {
    Catalog c;
    auto ok = errors_of(
        "providers:\n  - id: p\n    as_of: 2026-01-01\n    source: s\n"
        "    billing: {increment: minute, minimum_seconds: 120, stopped_bills_storage: false, source: b}\n"
        "    pue: 1.2\n    pue_source: ps\n"
        "grid_carbon:\n  - provider: p\n    source: g\n    regions: {r1: 100.5, r2: 0}\n",
        c);
    CHECK(ok.empty());
    REQUIRE(c.providers.size() == 1);
    CHECK(c.providers[0].billing.increment_seconds == std::optional<int>(60));
    CHECK(c.providers[0].billing.minimum_seconds == std::optional<int>(120));
    CHECK(c.providers[0].billing.stopped_bills_storage == std::optional<bool>(false));
    CHECK(c.providers[0].pue == std::optional<double>(1.2));
    REQUIRE(c.grid_carbon.size() == 2);
    CHECK(c.grid_carbon[0].region == "r1");
    CHECK(c.grid_carbon[0].g_co2e_per_kwh == Approx(100.5));

    Catalog bad;
    auto e = errors_of(
        "providers:\n  - id: p\n    as_of: 2026-01-01\n    source: s\n"
        "    billing: {increment: fortnight, source: b}\n    pue: 0.5\n"
        "grid_carbon:\n  - provider: p\n    source: g\n    regions: {r1: lots}\n",
        bad);
    REQUIRE(e.size() == 3);  // the increment, the PUE (below 1), the intensity
    CHECK(e[0].rfind(
              "t.yaml:5:26: error: providers[0].billing.increment: unknown billing increment 'fortnight'",
              0) == 0);
    CHECK(e[1].rfind("t.yaml:6:10: error: providers[0].pue: number 0.5 is out of range", 0) == 0);
    CHECK(e[2] == "t.yaml:10:19: error: grid_carbon[0].regions.r1: expected a number, found 'lots'");
    Catalog no_source;
    auto m =
        errors_of("providers:\n  - id: p\n    as_of: 2026-01-01\n    source: s\n    pue: 1.2\n", no_source);
    REQUIRE(m.size() == 1);
    CHECK(m[0] == "t.yaml:2:5: error: providers[0]: missing required key 'pue_source'");
}

}  // namespace io_test_carbon_data
