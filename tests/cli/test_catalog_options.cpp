// One catalog-options builder for every command: GPUADVISE_CATALOG, --catalog and validate's files.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <sstream>

#include "cli/context.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace cli_test_catalog_options {

using namespace gpuadvise;

TEST_CASE("every command's catalog options: built-in, GPUADVISE_CATALOG, --catalog, then extra files",
          "[cli]") {
    std::ostringstream out, err;
    cli::Context ctx(out, err);
    ctx.global.catalogs = {"c.yaml"};
    ctx.global.provider_name = "lab";
    ::setenv("GPUADVISE_CATALOG", "a.yaml::b.csv", 1);
    const io::CatalogOptions o = ctx.catalog_options({"x.yaml"});
    ::unsetenv("GPUADVISE_CATALOG");
    CHECK(o.builtin);
    CHECK(o.files == std::vector<std::string>{"a.yaml", "b.csv", "c.yaml", "x.yaml"});
    CHECK(o.provider_name == "lab");
    CHECK_FALSE(o.today.empty());

    ctx.global.no_default_catalog = true;
    const io::CatalogOptions bare = ctx.catalog_options();
    CHECK_FALSE(bare.builtin);
    CHECK(bare.files == std::vector<std::string>{"c.yaml"});
}

}  // namespace cli_test_catalog_options
