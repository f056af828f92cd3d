// Option values gpuadvise refuses although CLI11 would take them (issue #17): empty values, numbers
// in another base, conflicting formats. Empty arguments cannot be written in a golden `cmd` file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>
#include <string>
#include <vector>

#include "cli/app.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace cli_test_option_values {

namespace {

int run(std::vector<std::string> args, std::string& err_text) {
    args.insert(args.begin(), "gpuadvise");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    int code = gpuadvise::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
    err_text = err.str();
    return code;
}

}  // namespace

TEST_CASE("empty option values are usage errors, not 0 or 'no filter'", "[cli]") {
    std::string err;
    CHECK(run({"estimate", "--model", "bert", "--zero", ""}, err) == 2);
    CHECK(err.find("gpuadvise: error: --zero: an empty value") != std::string::npos);
    CHECK(run({"offers", "--pytorch", ""}, err) == 2);
    CHECK(err.find("gpuadvise: error: --pytorch: an empty value") != std::string::npos);
    CHECK(run({"--catalog", "", "gpus"}, err) == 2);
    CHECK(err.find("gpuadvise: error: --catalog: an empty value") != std::string::npos);
}

TEST_CASE("numbers in another base and conflicting formats are usage errors", "[cli]") {
    std::string err;
    CHECK(run({"estimate", "--model", "bert", "--batch-size", "0x10"}, err) == 2);
    CHECK(err.find("'0x10': hexadecimal, binary and octal numbers are not accepted") != std::string::npos);
    CHECK(run({"--json", "--format", "table", "gpus"}, err) == 2);
    CHECK(err.find("--json and --format table conflict") != std::string::npos);
    CHECK(run({"--json", "--format", "json", "gpus"}, err) == 0);
}

TEST_CASE("a file name that is not UTF-8 does not break JSON output", "[cli]") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("gpuadvise-utf8-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string name = (dir / "caf\xe9.yaml").string();
    std::ofstream(name) << "schema_version: 1\n";
    std::vector<std::string> args{"gpuadvise", "--catalog", name, "catalog", "info", "--json"};
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    CHECK(gpuadvise::cli::run(static_cast<int>(argv.size()), argv.data(), out, err) == 0);
    CHECK(err.str().find("internal error") == std::string::npos);
    CHECK(out.str().find("caf\xef\xbf\xbd.yaml") != std::string::npos);  // U+FFFD in place of the byte
    fs::remove_all(dir);
}

}  // namespace cli_test_option_values
