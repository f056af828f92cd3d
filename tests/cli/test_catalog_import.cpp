// catalog import: writes a catalog that loads, refuses to overwrite without --force, replaces with it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
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

}  // namespace cli_test_catalog_import
