// Option values gpuadvise refuses although CLI11 would take them (issue #17): empty values, numbers
// in another base, conflicting formats. Empty arguments cannot be written in a golden `cmd` file.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "cli/app.hpp"

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
