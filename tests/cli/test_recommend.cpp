// recommend, run in-process on the frozen test catalog (tests/fixtures/frozen/, so that a price refresh
// of data/ cannot change what these check): the properties issue 4 promises, checked on the JSON a
// script would read.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <set>
#include <sstream>
#include <string>

#include "run_cli.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace cli_test_recommend {

namespace {

using Result = gpuadvise::testing::CliResult;

Result run(std::vector<std::string> args) { return gpuadvise::testing::run_cli(std::move(args)); }

bool has_warning(const nlohmann::json& rec, const std::string& text) {
    for (const auto& w : rec["warnings"])
        if (w.get<std::string>().find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("bert: BERT-Large's default job, four steps, several providers, plan agrees with break-even",
          "[cli]") {
    auto r = run({"recommend", "--model", "bert", "--runs-per-week", "4"});
    REQUIRE(r.exit == 0);
    CHECK(r.json["schema_version"] == 1);
    CHECK(r.json["workload"]["model"] == "bert-large");
    CHECK(r.json["workload"]["requested_as"] == "bert");
    const auto& steps = r.json["analysis"]["steps"];
    REQUIRE(steps.size() == 5);
    CHECK(steps[0]["name"] == "model size");
    CHECK(steps[1]["name"] == "training frequency");
    CHECK(steps[2]["name"] == "dataset");
    CHECK(steps[3]["name"] == "scaling");
    std::set<std::string> providers;
    for (const auto& rec : r.json["recommendations"]) providers.insert(rec["provider"].get<std::string>());
    CHECK(providers.size() >= 2);
    // The plan agrees with the break-even wherever the option has a reserved price; the frozen catalog
    // gives the top options one (it was never checked on the built-in data, whose top options had none).
    const double runs_per_month = 4 * 52.0 / 12;
    int checked = 0;
    for (const auto& rec : r.json["recommendations"]) {
        const double hours = rec["hours_per_run"];
        const double monthly_hours = hours * runs_per_month;
        if (!rec["break_even_hours_per_month"].is_null()) {
            const bool reserved_cheaper = monthly_hours > rec["break_even_hours_per_month"].get<double>();
            CHECK((rec["plan"] == "reserved") == reserved_cheaper);
            ++checked;
        }
    }
    CHECK(checked >= 1);
    REQUIRE_FALSE(r.json["recommendations"].empty());
    CHECK_FALSE(r.json["recommendations"][0]["break_even_hours_per_month"].is_null());
}

TEST_CASE("plan agrees with break-even on both sides of it", "[cli]") {
    // beta-gpu's RTX 4090: 0.34 an hour or 190 a month (break-even 559 h). 20 runs of 8 h a week is 693 h.
    for (const char* runs : {"1", "20"}) {
        auto r =
            run({"recommend", "--model", "resnet50", "--provider", "beta-gpu", "--gpu", "RTX4090:1",
                 "--runs-per-week", runs, "--hours-per-run", "8", "--measured-on", "rtx-4090", "--top", "1"});
        REQUIRE(r.exit == 0);
        REQUIRE(r.json["recommendations"].size() == 1);
        const auto& rec = r.json["recommendations"][0];
        REQUIRE_FALSE(rec["break_even_hours_per_month"].is_null());
        CHECK(rec["break_even_hours_per_month"].get<double>() == Approx(190 / 0.34));
        const double monthly_hours = rec["hours_per_run"].get<double>() * std::stod(runs) * 52 / 12;
        CHECK((rec["plan"] == "reserved") ==
              (monthly_hours > rec["break_even_hours_per_month"].get<double>()));
        CHECK(rec["plan"] == (std::string(runs) == "1" ? "on_demand" : "reserved"));
    }
}

TEST_CASE("cost per run is billed hours times the converted hourly price; a month is runs x 52/12", "[cli]") {
    for (const char* currency : {"USD", "CNY"}) {
        auto r = run({"recommend", "--model", "resnet50", "--runs-per-week", "3", "--currency", currency,
                      "--top", "20"});
        REQUIRE(r.exit == 0);
        for (const auto& rec : r.json["recommendations"]) {
            CHECK(rec["currency"] == currency);
            // billed: the run and the idle tail, rounded up to the billing increment (issue 19)
            const double hours = rec["billed_hours_per_run"], price = rec["price_per_hour"],
                         per_run = rec["cost_per_run"];
            CHECK(hours >= rec["hours_per_run"].get<double>());
            CHECK(per_run == Approx(hours * price).epsilon(1e-4));
            if (rec["plan"] != "reserved")
                CHECK(rec["cost_per_month"].get<double>() == Approx(per_run * 3 * 52 / 12).epsilon(1e-4));
        }
    }
}

TEST_CASE("lenet is not sent to an A100/H100-class GPU; --gpu A100 warns of over-buying", "[cli]") {
    auto r = run({"recommend", "--model", "lenet", "--runs-per-week", "1"});
    REQUIRE(r.exit == 0);
    const std::set<std::string> premium{"A100", "H100", "H200", "B200", "GH200", "MI300X", "MI250X"};
    CHECK_FALSE(premium.count(r.json["recommendations"][0]["gpu_family"].get<std::string>()));
    auto a100 = run({"recommend", "--model", "lenet", "--runs-per-week", "1", "--gpu", "A100"});
    REQUIRE(a100.exit == 0);
    REQUIRE_FALSE(a100.json["recommendations"].empty());
    CHECK(has_warning(a100.json["recommendations"][0], "over-buying"));
}

TEST_CASE("llama-2-7b full fine-tune: only configurations whose memory holds the model states", "[cli]") {
    auto r = run({"recommend", "--model", "llama-2-7b", "--task", "finetune", "--top", "30"});
    REQUIRE(r.exit == 0);
    const double params = r.json["workload"]["params"];
    REQUIRE_FALSE(r.json["recommendations"].empty());
    // ZeRO-3 over several 80 GB GPUs is the stated sharding when asked for.
    auto zero3 = run(
        {"recommend", "--model", "llama-2-7b", "--task", "finetune", "--zero", "3", "--gpu", "A100:80GB"});
    REQUIRE(zero3.exit == 0);
    for (const auto& rec : zero3.json["recommendations"]) {
        CHECK(rec["gpu_count"].get<int>() >= 2);
        CHECK(rec["memory_required_gb"].get<double>() <= 80);
    }
    CHECK(zero3.json["workload"]["zero_stage"] == 3);
    for (const auto& rec : r.json["recommendations"]) {
        CHECK(rec["memory_required_gb"].get<double>() <= rec["memory_available_gb"].get<double>());
        // 16 bytes per parameter of model states (mixed-precision AdamW), sharded across the GPUs.
        CHECK(rec["gpu_count"].get<double>() * rec["memory_available_gb"].get<double>() >= 16 * params / 1e9);
    }
    auto lora = run({"recommend", "--model", "llama-2-7b", "--task", "lora", "--gpu", "RTX4090,A10,L4"});
    REQUIRE(lora.exit == 0);
    bool single_24 = false;
    for (const auto& rec : lora.json["recommendations"])
        single_24 = single_24 || (rec["gpu_count"] == 1 && rec["memory_available_gb"].get<double>() <= 24.5);
    CHECK(single_24);
}

TEST_CASE("plan: rare short runs pick on-demand, 20 runs of 8 h a week pick reserved", "[cli]") {
    auto light = run({"recommend", "--model", "resnet50", "--provider", "provider-b", "--runs-per-week", "1",
                      "--hours-per-run", "2", "--measured-on", "v100-16gb-pcie"});
    REQUIRE(light.exit == 0);
    CHECK(light.json["recommendations"][0]["plan"] == "on_demand");
    auto heavy = run({"recommend", "--model", "resnet50", "--provider", "provider-b", "--runs-per-week", "20",
                      "--hours-per-run", "8", "--measured-on", "v100-16gb-pcie"});
    REQUIRE(heavy.exit == 0);
    const auto& rec = heavy.json["recommendations"][0];
    CHECK(rec["plan"] == "reserved");
    CHECK(20 * 8 * 52.0 / 12 > rec["break_even_hours_per_month"].get<double>());
}

TEST_CASE("spot appears only for --interruptible jobs, with its overhead", "[cli]") {
    auto plain = run({"recommend", "--model", "resnet50", "--runs-per-week", "5", "--top", "50"});
    REQUIRE(plain.exit == 0);
    for (const auto& rec : plain.json["recommendations"]) {
        CHECK(rec["plan"] != "spot");
        for (const auto& alt : rec["alternatives"]) CHECK(alt["plan"] != "spot");
    }
    auto spot = run({"recommend", "--model", "resnet50", "--runs-per-week", "5", "--top", "50",
                     "--interruptible", "--checkpoint-minutes", "20"});
    REQUIRE(spot.exit == 0);
    bool any_spot = false;
    for (const auto& rec : spot.json["recommendations"])
        if (rec["plan"] == "spot") {
            any_spot = true;
            CHECK(rec["spot_overhead_fraction"].get<double>() > 0);
        }
    CHECK(any_spot);
}

TEST_CASE("two nodes without RDMA are warned about by default", "[cli]") {
    auto r = run({"recommend", "--model", "resnet50", "--nodes", "2", "--top", "50"});
    REQUIRE(r.exit == 0);
    int rdma = 0, plain = 0;
    for (const auto& rec : r.json["recommendations"]) {
        CHECK(rec["instances"] == 2);
        // alpha-cloud is the frozen catalog's provider with 400 Gbit/s RDMA between nodes.
        const bool has_rdma = rec["provider"] == "alpha-cloud";
        CHECK(has_warning(rec, "without RDMA") == !has_rdma);
        (has_rdma ? rdma : plain)++;
    }
    CHECK(rdma >= 1);
    CHECK(plain >= 1);
}

TEST_CASE("an impossible budget exits 3 and names the binding constraint and the nearest miss", "[cli]") {
    auto r = run({"recommend", "--model", "bert", "--runs-per-week", "4", "--budget-monthly", "0.01"});
    CHECK(r.exit == 3);
    CHECK(r.json["recommendations"].empty());
    CHECK(r.json["nothing_fits"]["binding_constraint"] == "budget");
    CHECK(r.json["nothing_fits"]["nearest_miss"].get<std::string>().find("over the budget") !=
          std::string::npos);
}

// #13: the feasible count must not change with --currency. A 0.1 % regional price difference was
// "the same price" in one currency and not in another (a tolerance on converted monthly costs).
TEST_CASE("the number of feasible options does not depend on --currency", "[cli]") {
    const std::string hosts = std::string(GPUADVISE_SOURCE_DIR) + "/tests/fixtures/frozen/hosts.yaml";
    std::set<long> counts;
    for (const char* currency : {"USD", "EUR", "CNY"}) {
        for (const char* model : {"bert", "resnet50"}) {
            auto r = run({"--catalog", hosts, "recommend", "--model", model, "--runs-per-week", "4",
                          "--currency", currency, "--provider", "epsilon-hosts", "--gpu", "t4"});
            REQUIRE(r.exit == 0);
            counts.insert(std::string(model) == "bert" ? r.json["feasible_options"].get<long>()
                                                       : 1000 + r.json["feasible_options"].get<long>());
        }
    }
    CHECK(counts.size() == 2);    // one count per model, whatever the currency
    CHECK(counts.count(2) == 1);  // the two regions' prices differ: two options, never merged
}

}  // namespace cli_test_recommend
