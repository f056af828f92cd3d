// Issue 12 through the command line: recommend names a sharded layout for jobs that only fit
// sharded, never ranks low-efficiency multi-node configurations unless pinned, and ranks serving
// by its cost per million output tokens.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <sstream>

#include "cli/app.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace cli_test_recommend_layouts {

namespace {

struct Result {
    int exit = 0;
    nlohmann::json json;
};

Result run(std::vector<std::string> args) {
    args.insert(args.begin(), "gpuadvise");
    args.push_back("--json");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    Result r;
    r.exit = gpuadvise::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
    r.json = nlohmann::json::parse(out.str());
    return r;
}

bool sharded(const nlohmann::json& p) {
    return p["tensor"].get<int>() > 1 || p["pipeline"].get<int>() > 1 || p["zero_stage"].get<int>() > 0;
}

}  // namespace

TEST_CASE("recommend llama-2-13b (default job) exits 0 with sharded layouts, 80 GB-class among them",
          "[cli]") {
    Result r = run({"recommend", "--model", "llama-2-13b", "--top", "10"});
    REQUIRE(r.exit == 0);
    REQUIRE_FALSE(r.json["recommendations"].empty());
    bool eighty = false;
    for (const auto& c : r.json["recommendations"]) {
        INFO(c["gpu"] << " x" << c["gpu_count"]);
        CHECK(c["parallelism"].is_object());
        if (c["gpu_count"].get<int>() > 1) CHECK(sharded(c["parallelism"]));
        eighty = eighty || c["memory_available_gb"].get<double>() >= 80;
    }
    CHECK(eighty);
    Result h = run({"recommend", "--model", "llama-2-13b", "--gpu", "H100", "--top", "3"});
    REQUIRE(h.exit == 0);
    CHECK(sharded(h.json["recommendations"][0]["parallelism"]));
}

TEST_CASE("recommend llama-2-70b --task finetune exits 0: sharded over 80 GB-class 8-GPU nodes", "[cli]") {
    Result r = run({"recommend", "--model", "llama-2-70b", "--task", "finetune", "--top", "10"});
    REQUIRE(r.exit == 0);
    for (const auto& c : r.json["recommendations"]) CHECK(sharded(c["parallelism"]));
    Result h =
        run({"recommend", "--model", "llama-2-70b", "--task", "finetune", "--gpu", "H100:8", "--top", "5"});
    REQUIRE(h.exit == 0);
    for (const auto& c : h.json["recommendations"]) {
        CHECK(c["parallelism"]["gpus_per_node"].get<int>() == 8);
        CHECK(c["memory_available_gb"].get<double>() >= 80);
        CHECK(sharded(c["parallelism"]));
    }
}

TEST_CASE("no multi-node configuration below the scaling-efficiency floor is ranked unless --nodes pins it",
          "[cli]") {
    for (std::vector<std::string> args :
         {std::vector<std::string>{"recommend", "--model", "llama-2-13b", "--zero", "3", "--top", "20"},
          std::vector<std::string>{"recommend", "--model", "llama-2-13b", "--zero", "3", "--gpu", "H100",
                                   "--top", "20"}}) {
        Result r = run(args);
        REQUIRE(r.exit == 0);
        for (const auto& c : r.json["recommendations"]) {
            INFO(c["provider"] << " " << c["gpu"] << " x" << c["gpu_count"]);
            if (c["instances"].get<int>() > 1) CHECK(c["scaling_efficiency"].get<double>() >= 0.5);
            // Never 23 single-T4 nodes timed like 529 GPUs: the count priced is the count timed.
            CHECK(c["gpu_count"].get<int>() == c["instances"].get<int>() * c["gpus_per_instance"].get<int>());
        }
    }
}

TEST_CASE("recommend --task inference ranks by cost per million output tokens at the monthly volume",
          "[cli]") {
    Result r = run({"recommend", "--model", "llama-2-7b", "--task", "inference", "--tokens-per-month", "1e9",
                    "--top", "5"});
    REQUIRE(r.exit == 0);
    double last = 0;
    for (const auto& c : r.json["recommendations"]) {
        REQUIRE(c["serving"].is_object());
        const double cost = c["serving"]["cost_per_million_tokens"].get<double>();
        CHECK(cost > 0);
        CHECK(cost >= last * 0.999);
        last = cost;
        // A month's cost is the volume at that price (on-demand, no set-up per batch of requests).
        CHECK(c["cost_per_month"].get<double>() == Approx(cost * 1000).epsilon(0.02));
        CHECK(c["serving"]["tokens_per_s"].get<double>() > 0);
        CHECK(c["serving"]["time_to_first_token_s"].get<double>() > 0);
        CHECK(c["serving"]["time_per_output_token_s"].get<double>() > 0);
    }
    Result d = run({"recommend", "--model", "llama-2-7b", "--task", "inference", "--requests-per-day",
                    "10000", "--top", "1"});
    REQUIRE(d.exit == 0);
}

}  // namespace cli_test_recommend_layouts
