// Example and placeholder providers (the guide's anonymised quotes, prices that are not quotes)
// are not rentable: recommend, compare and offers leave them out unless --include-examples.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

#include "cli/app.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace cli_test_examples {

namespace {

nlohmann::json run_json(std::vector<std::string> args) {
    args.insert(args.begin(), "gpuadvise");
    args.push_back("--json");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    (void)gpuadvise::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
    return nlohmann::json::parse(out.str());
}

// Every provider of kind example or placeholder in the built-in catalog.
std::set<std::string> not_rentable() {
    std::set<std::string> ids;
    const auto info = run_json({"catalog", "info"});
    for (const auto& p : info["providers"])
        if (p["kind"] == "example" || p["kind"] == "placeholder") ids.insert(p["id"].get<std::string>());
    return ids;
}

}  // namespace

TEST_CASE("without --include-examples no ranked, cheapest or listed offer is an example or placeholder",
          "[cli]") {
    const auto bad = not_rentable();
    REQUIRE(bad.count("provider-c"));
    for (auto args : std::vector<std::vector<std::string>>{
             {"recommend", "--model", "bert", "--gpu", "T4", "--top", "20"},
             {"recommend", "--model", "resnet18", "--pytorch", "1.12+cu102", "--top", "20"},
             {"recommend", "--model", "lenet", "--top", "20"}}) {
        const auto j = run_json(args);
        for (const auto& c : j["recommendations"]) CHECK_FALSE(bad.count(c["provider"].get<std::string>()));
    }
    const auto cmp = run_json({"compare", "A100", "V100", "T4"});
    for (const auto& g : cmp["gpus"])
        for (const char* plan : {"on_demand", "reserved", "spot"})
            if (!g["cheapest"][plan].is_null())
                CHECK_FALSE(bad.count(g["cheapest"][plan]["provider"].get<std::string>()));
    const auto offers = run_json({"offers", "--gpu", "T4,V100,A100"});
    for (const auto& o : offers["offers"]) CHECK_FALSE(bad.count(o["provider"].get<std::string>()));
}

TEST_CASE("the include-examples flag brings the example providers back, marked", "[cli]") {
    const auto rec = run_json({"recommend", "--model", "bert", "--gpu", "T4", "--include-examples"});
    bool seen = false;
    for (const auto& c : rec["recommendations"])
        if (c["provider"] == "provider-c") {
            seen = true;
            bool marked = false;
            for (const auto& w : c["warnings"])
                marked = marked || w.get<std::string>().find("example provider") != std::string::npos;
            CHECK(marked);
        }
    CHECK(seen);
    const auto offers = run_json({"offers", "--gpu", "T4", "--include-examples"});
    bool listed = false;
    for (const auto& o : offers["offers"])
        if (o["provider"] == "provider-c") listed = o["example"] == true;
    CHECK(listed);
}

}  // namespace cli_test_examples
