// catalog import: writes a catalog that loads, refuses to overwrite without --force, replaces with it.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include <unistd.h>

#include "cli/app.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace cli_test_catalog_import {

namespace fs = std::filesystem;

namespace {

int run(std::vector<std::string> args, std::string* err_text = nullptr) {
    args.insert(args.begin(), "gpuadvise");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    int code = gpuadvise::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
    if (err_text) *err_text = err.str();
    return code;
}

std::string out_of(std::vector<std::string> args) {
    args.insert(args.begin(), "gpuadvise");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    (void)gpuadvise::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
    return out.str();
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

TEST_CASE("catalog import writes a loadable catalog and never overwrites without --force", "[cli]") {
    const fs::path dir = fs::temp_directory_path() / ("gpuadvise-import-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string input = std::string(GPUADVISE_SOURCE_DIR) + "/data/skypilot/lium.csv";
    const fs::path out = dir / "out";

    REQUIRE(run({"catalog", "import", "skypilot", input, "--output", out.string(), "--as-of",
                 "2026-11-01"}) == 0);
    REQUIRE(fs::exists(out / "catalog.yaml"));
    const std::string first = slurp(out / "catalog.yaml");
    CHECK(first.find("2026-11-01") != std::string::npos);
    CHECK(run({"--catalog", (out / "catalog.yaml").string(), "offers", "--provider", "lium"}) == 0);

    std::string err;
    CHECK(run({"catalog", "import", "skypilot", input, "--output", out.string(), "--as-of", "2026-11-02"},
              &err) == 1);
    CHECK(err.find("already exists; nothing was written") != std::string::npos);
    CHECK(slurp(out / "catalog.yaml") == first);

    CHECK(run({"catalog", "import", "skypilot", input, "--output", out.string(), "--as-of", "2026-11-02",
               "--force"}) == 0);
    CHECK(slurp(out / "catalog.yaml").find("2026-11-02") != std::string::npos);
    // Nothing but the output is left behind: the link `out` and the one version it points to.
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
    CHECK(entries == 2);
    CHECK(fs::is_symlink(out));
    CHECK(fs::exists(dir / fs::read_symlink(out) / ".gpuadvise-import"));
    fs::remove_all(dir);
}

// Issue #29: one rule for a SkyPilot table's date, imported or given with --catalog: unknown unless
// --as-of gives it; the file's modification time (touched to 2023-01-01 here) is never the date.
TEST_CASE("catalog import without --as-of writes as_of unknown, as --catalog reads the same table", "[cli]") {
    const fs::path dir = fs::temp_directory_path() / ("gpuadvise-import-date-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path input = dir / "lium.csv";
    fs::copy_file(std::string(GPUADVISE_SOURCE_DIR) + "/data/skypilot/lium.csv", input);
    fs::last_write_time(input, fs::file_time_type::clock::now() - std::chrono::hours(24 * 365 * 3));
    const fs::path out = dir / "mycat";
    REQUIRE(run({"catalog", "import", "skypilot", input.string(), "--output", out.string()}) == 0);
    const std::string yaml = slurp(out / "catalog.yaml");
    CHECK(yaml.find("as_of: unknown") != std::string::npos);
    CHECK(yaml.find("as_of: 20") == std::string::npos);
    const auto imported = nlohmann::json::parse(
        out_of({"--catalog", (out / "catalog.yaml").string(), "offers", "--provider", "lium", "--json"}));
    const auto direct = nlohmann::json::parse(
        out_of({"--catalog", input.string(), "offers", "--provider", "lium", "--json"}));
    REQUIRE(!imported["offers"].empty());
    REQUIRE(imported["offers"].size() == direct["offers"].size());
    for (std::size_t i = 0; i < imported["offers"].size(); ++i) {
        CHECK(imported["offers"][i]["as_of"] == "");
        CHECK(direct["offers"][i]["as_of"] == "");
    }
    // With --as-of the date is that one.
    REQUIRE(run({"catalog", "import", "skypilot", input.string(), "--output", out.string(), "--as-of",
                 "2026-11-01", "--force"}) == 0);
    CHECK(slurp(out / "catalog.yaml").find("as_of: 2026-11-01") != std::string::npos);
    fs::remove_all(dir);
}

}  // namespace cli_test_catalog_import
