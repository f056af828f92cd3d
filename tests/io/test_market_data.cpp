// The shipped SkyPilot data (data/market.yaml + data/skypilot/*.csv), checked against a naive,
// independent reading of the same CSV files: issue 5's "Done when" lines.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "cli/app.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_market_data {

namespace {

// A deliberately simple CSV reader (quotes and doubled quotes only); nothing shared with src/io.
std::vector<std::map<std::string, std::string>> naive_csv(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    std::vector<std::vector<std::string>> records;
    std::vector<std::string> rec;
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
                field += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                field += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            rec.push_back(field);
            field.clear();
        } else if (c == '\n') {
            rec.push_back(field);
            field.clear();
            records.push_back(rec);
            rec.clear();
        } else if (c != '\r') {
            field += c;
        }
    }
    std::vector<std::map<std::string, std::string>> rows;
    for (std::size_t r = 1; r < records.size(); ++r) {
        std::map<std::string, std::string> row;
        for (std::size_t k = 0; k < records[0].size() && k < records[r].size(); ++k)
            row[records[0][k]] = records[r][k];
        rows.push_back(row);
    }
    return rows;
}

struct Cheapest {
    double per_gpu = std::numeric_limits<double>::infinity();
    std::string provider, instance, region;
};

// Lowest on-demand price per GPU over every row whose accelerator is an A100 of any variant.
// GCP accelerator rows add the a2 host row of the same zone (PROVENANCE.md).
Cheapest cheapest_a100_from_files() {
    namespace fs = std::filesystem;
    Cheapest best;
    const fs::path dir = fs::path(GPUADVISE_SOURCE_DIR) / "data" / "skypilot";
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".csv") continue;
        const std::string provider = entry.path().stem().string();
        auto rows = naive_csv(entry.path().string());
        std::map<std::string, double> host;  // "type|zone" -> price
        for (auto& r : rows)
            if (r["AcceleratorName"].empty() && !r["Price"].empty())
                host[r["InstanceType"] + "|" + r["AvailabilityZone"]] = std::stod(r["Price"]);
        for (auto& r : rows) {
            const std::string& name = r["AcceleratorName"];
            if (name.rfind("A100", 0) != 0 || r["Price"].empty()) continue;
            double price = std::stod(r["Price"]);
            const int count = static_cast<int>(std::stod(r["AcceleratorCount"]));
            std::string instance = r["InstanceType"];
            if (instance.empty()) {  // GCP accelerator row
                instance = name == "A100-80GB" ? "a2-ultragpu-" + std::to_string(count) + "g"
                           : count == 16       ? "a2-megagpu-16g"
                                               : "a2-highgpu-" + std::to_string(count) + "g";
                auto h = host.find(instance + "|" + r["AvailabilityZone"]);
                if (h == host.end() || h->second <= 0) continue;
                price += h->second;
            }
            if (price <= 0) continue;
            if (price / count < best.per_gpu) best = {price / count, provider, instance, r["Region"]};
        }
    }
    return best;
}

nlohmann::json run_json(std::vector<const char*> args, int expected_exit, std::string* err_out = nullptr) {
    args.insert(args.begin(), "gpuadvise");
    std::ostringstream out, err;
    const int code = gpuadvise::cli::run(static_cast<int>(args.size()), args.data(), out, err);
    INFO(err.str());
    REQUIRE(code == expected_exit);
    if (err_out) *err_out = err.str();
    return nlohmann::json::parse(out.str());
}

}  // namespace

TEST_CASE("the cheapest A100 per GPU on the shipped data equals an independent computation over the CSVs",
          "[cli]") {
    const Cheapest expected = cheapest_a100_from_files();
    REQUIRE(expected.per_gpu < 100);
    auto j = run_json(
        {"offers", "--gpu", "A100", "--plan", "on-demand", "--sort", "price-per-gpu", "--format", "json"}, 0);
    REQUIRE(!j["offers"].empty());
    const auto& first = j["offers"][0];
    CHECK(first["provider"] == expected.provider);
    CHECK(first["instance_type"] == expected.instance);
    CHECK(first["price_per_gpu_hour_converted"].get<double>() == Approx(expected.per_gpu).epsilon(1e-6));
    CHECK(first["region"].get<std::string>().find(expected.region.substr(0, expected.region.find(','))) !=
          std::string::npos);
    CHECK(first["as_of"] == "2026-07-09");
}

TEST_CASE("catalog validate over the shipped data exits 0 and counts the SkyPilot quirks", "[cli]") {
    setenv("GPUADVISE_TODAY", "2026-11-29",
           1);  // the golden tests' date: the v8 files (as_of 2025-01-01) are stale
    auto j = run_json({"catalog", "validate", "--format", "json"}, 0);
    unsetenv("GPUADVISE_TODAY");
    CHECK(j["valid"] == true);
    const auto& s = j["summary"];
    // Counts from the files: AWS has 3 and GCP many GPU rows with spot >= on-demand; 9 AWS p5e and 5 verda
    // rows have no on-demand price; GCP TPU rows carry 700.0; TPUs and GPUs missing from the GPU catalog skip.
    CHECK(s["spot_not_below_on_demand_rows"].get<long>() >= 3);
    CHECK(s["empty_price_rows"].get<long>() == 30);  // + 16 g6e rows in ap-northeast-3 (aws-g-family.csv)
    CHECK(s["sentinel_price_rows"].get<long>() > 0);
    CHECK(s["skipped_accelerator_rows"].get<long>() > 0);
    bool stale_warning = false;
    for (const auto& w : j["warnings"])
        if (w["message"].get<std::string>().find("provider 'daytona'") != std::string::npos &&
            w["message"].get<std::string>().find("older than") != std::string::npos)
            stale_warning = true;
    CHECK(stale_warning);
}

}  // namespace io_test_market_data
