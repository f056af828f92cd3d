// The [cli] tests' way to run gpuadvise in-process: on the frozen test catalog
// (tests/fixtures/frozen/, plus `extra` layers from there), or on the shipped one.
#pragma once

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/app.hpp"

namespace gpuadvise::testing {

struct CliResult {
    int exit = 0;
    std::string out, err;
    nlohmann::json json;  // parsed stdout when run with --json
};

inline const std::string& frozen_dir() {
    static const std::string dir = std::string(GPUADVISE_SOURCE_DIR) + "/tests/fixtures/frozen/";
    return dir;
}

// gpuadvise with exactly `args` after its name (no catalog, format or width added).
inline CliResult run_args(const std::vector<std::string>& args) {
    std::vector<const char*> argv{"gpuadvise"};
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    CliResult r;
    r.exit = gpuadvise::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

// `json`: add --json and parse stdout; otherwise --wide, so text checks see whole cells.
inline CliResult run_cli(std::vector<std::string> args, bool json = true, bool shipped = false,
                         const std::vector<std::string>& extra = {}) {
    std::vector<std::string> head{"gpuadvise"};
    if (!shipped) {
        const std::string& dir = frozen_dir();
        head.insert(head.end(), {"--no-default-catalog", "--catalog", dir + "catalog.yaml", "--catalog",
                                 dir + "models.yaml", "--catalog", dir + "compat.yaml"});
        for (const auto& e : extra) head.insert(head.end(), {"--catalog", dir + e});
    }
    args.insert(args.begin(), head.begin() + 1, head.end());
    args.push_back(json ? "--json" : "--wide");
    CliResult r = run_args(args);
    if (json && !r.out.empty()) r.json = nlohmann::json::parse(r.out);
    return r;
}

}  // namespace gpuadvise::testing
