// recommend, run in-process (issue #13, points 2, 3, 4 and 6): partial prices are completed or marked
// and ranked last, one-off jobs rank by cost per run, weekly hours over 168 are planned in parallel,
// deadlines are checked on the band's high end, and the top option says why it wins.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "run_cli.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace cli_test_recommend_decisions {

namespace {

using Result = gpuadvise::testing::CliResult;

// The frozen test catalog (plus `extra` catalog files), or the shipped one when `shipped`.
Result run(std::vector<std::string> args, bool json = true, bool shipped = false,
           std::vector<std::string> extra = {}) {
    return gpuadvise::testing::run_cli(std::move(args), json, shipped, extra);
}

bool notes_say_gpu_only(const nlohmann::json& rec) {
    for (const auto& n : rec["offer_notes"])
        if (n.get<std::string>().find("GPU-only price") != std::string::npos) return true;
    return false;
}

bool has_warning(const nlohmann::json& rec, const std::string& text) {
    for (const auto& w : rec["warnings"])
        if (w.get<std::string>().find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("a GPU-only price is completed with its host row, else marked and ranked after complete prices",
          "[cli]") {
    auto r =
        run({"recommend", "--model", "bert", "--gpu", "T4", "--top", "10"}, true, false, {"gpu-only.yaml"});
    REQUIRE(r.exit == 0);
    const auto& recs = r.json["recommendations"];
    bool completed = false, partial = false;
    for (std::size_t i = 0; i < recs.size(); ++i) {
        const auto& rec = recs[i];
        if (rec["provider"] != "epsilon") continue;
        if (rec["region"] == "us-central1") {  // 0.35 GPU + 0.47 n1-highmem-8 host in the same zone
            completed = true;
            CHECK(rec["price_complete"] == true);
            CHECK(rec["instance_type"] == "n1-highmem-8");
            CHECK(rec["vcpus"] == 8);
            CHECK(rec["ram_gb"] == 52);
            CHECK(rec["price_per_hour"].get<double>() == Approx(0.82));
        } else {  // europe-west4: no host row, the GPU alone at 0.20: the cheapest, yet last
            partial = true;
            CHECK(rec["price_complete"] == false);
            CHECK(notes_say_gpu_only(rec));
            CHECK(i + 1 == recs.size());
        }
    }
    CHECK(completed);
    CHECK(partial);
    auto text =
        run({"recommend", "--model", "bert", "--gpu", "T4", "--top", "10"}, false, false, {"gpu-only.yaml"});
    CHECK(text.out.find("GPU only; host VM extra") != std::string::npos);
    CHECK(text.out.find("n1-highmem-8 8c/52G") != std::string::npos);
}

TEST_CASE(
    "shipped catalog: no ranked option in the top 10 has a partial price unless marked, and marked ones come "
    "last",
    "[cli]") {
    const std::vector<std::vector<std::string>> scenarios{
        {"--model", "bert", "--interruptible"},
        {"--model", "bert", "--gpu", "T4"},
        {"--model", "resnet50", "--runs-per-week", "10"},
        {"--model", "llama-2-7b", "--task", "lora"},
        {"--model", "lenet", "--interruptible", "--gpu", "T4,V100,P100"},
        {"--model", "bert", "--provider", "gcp", "--gpu",
         "T4,V100"},  // only GPU-only prices: all ranked, all marked
    };
    int partial_seen = 0;
    for (const auto& s : scenarios) {
        std::vector<std::string> args{"recommend", "--top", "10"};
        args.insert(args.end(), s.begin(), s.end());
        auto r = run(args, true, true);
        INFO(s[1]);
        REQUIRE(r.exit == 0);
        const auto& recs = r.json["recommendations"];
        REQUIRE(recs.size() >= 1);
        bool partial_before = false;
        for (const auto& rec : recs) {
            const bool partial = notes_say_gpu_only(rec);
            CHECK(rec["price_complete"] == !partial);   // a partial price is always marked
            if (!partial) CHECK_FALSE(partial_before);  // complete prices first
            partial_before = partial_before || partial;
            partial_seen += partial;
        }
        // The case: bert --interruptible put gcp's GPU-only T4 spot price first.
        if (std::find(s.begin(), s.end(), "gcp") == s.end()) CHECK(recs[0]["price_complete"] == true);
    }
    CHECK(partial_seen >= 1);  // the GCP-only scenario ranks some, marked
    auto text =
        run({"recommend", "--model", "bert", "--provider", "gcp", "--gpu", "T4", "--top", "3"}, false, true);
    CHECK(text.out.find("GPU only; host VM extra") != std::string::npos);
}

TEST_CASE("a one-off job (--runs-per-week 0 or --runs 1) ranks by cost per run, with no monthly cost",
          "[cli]") {
    for (const char* how : {"--runs-per-week=0", "--runs=1"}) {
        auto r = run({"recommend", "--model", "resnet50", how, "--top", "20"});
        INFO(how);
        REQUIRE(r.exit == 0);
        CHECK(r.json["workload"]["one_off"] == true);
        CHECK(r.json["workload"]["runs"] == 1);
        const auto& recs = r.json["recommendations"];
        REQUIRE(recs.size() >= 3);
        double last = 0;
        for (const auto& rec : recs) {
            CHECK(rec["cost_per_month"].is_null());
            CHECK(rec["plan"] != "reserved");
            const double per_run = rec["cost_per_run"];
            CHECK(rec["cost_of_runs"].get<double>() == Approx(per_run));
            CHECK(per_run >= last - 1e-9);
            last = per_run;
        }
        CHECK(recs[0]["reasons"][0].get<std::string>().rfind("cheapest", 0) == 0);
    }
    auto three = run({"recommend", "--model", "resnet50", "--runs", "3", "--top", "3"});
    REQUIRE(three.exit == 0);
    for (const auto& rec : three.json["recommendations"])
        CHECK(rec["cost_of_runs"].get<double>() ==
              Approx(3 * rec["cost_per_run"].get<double>()).epsilon(1e-3));
    auto both = run({"recommend", "--model", "resnet50", "--runs", "3", "--runs-per-week", "2"}, false);
    CHECK(both.exit == 2);
    auto text = run({"recommend", "--model", "resnet50", "--runs", "1"}, false);
    CHECK(text.out.find("one-off: 1 run (ranked by cost per run") != std::string::npos);
    CHECK(text.out.find("by cost per run") != std::string::npos);
}

TEST_CASE("a workload of 224 h a week on one GPU is planned on parallel copies", "[cli]") {
    // 28 runs of 8 h a week (224 h, over the 168 h of a week) on one RTX 4090.
    auto r =
        run({"recommend", "--model", "resnet50", "--provider", "beta-gpu", "--gpu", "RTX4090:1",
             "--runs-per-week", "28", "--hours-per-run", "8", "--measured-on", "rtx-4090", "--top", "1"});
    REQUIRE(r.exit == 0);
    REQUIRE(r.json["recommendations"].size() == 1);
    const auto& rec = r.json["recommendations"][0];
    CHECK(rec["parallel_copies"] == 2);
    bool said = false;
    for (const auto& x : rec["reasons"])
        said = said || x.get<std::string>().find("more than the 168 h in a week") != std::string::npos;
    CHECK(said);
    auto text =
        run({"recommend", "--model", "resnet50", "--provider", "beta-gpu", "--gpu", "RTX4090:1",
             "--runs-per-week", "28", "--hours-per-run", "8", "--measured-on", "rtx-4090", "--top", "1"},
            false);
    CHECK(text.out.find("2 in parallel") != std::string::npos);
    auto light =
        run({"recommend", "--model", "resnet50", "--provider", "beta-gpu", "--gpu", "RTX4090:1",
             "--runs-per-week", "4", "--hours-per-run", "8", "--measured-on", "rtx-4090", "--top", "1"});
    CHECK(light.json["recommendations"][0]["parallel_copies"] == 1);
}

TEST_CASE("deadlines are checked on the band's high end; --deadline-confidence point warns where it may miss",
          "[cli]") {
    const std::vector<std::string> job{"recommend",        "--model", "llama-2-7b", "--task", "lora",
                                       "--deadline-hours", "2",       "--top",      "50"};
    auto high = run(job);
    auto point_args = job;
    point_args.insert(point_args.end(), {"--deadline-confidence", "point"});
    auto point = run(point_args);
    REQUIRE(point.exit == 0);
    CHECK(high.json["workload"]["deadline_confidence"] == "high");
    std::size_t high_count = 0;
    if (high.exit == 0)
        for (const auto& rec : high.json["recommendations"]) {
            CHECK(rec["hours_per_run_band"][1].get<double>() <= 2.0 + 1e-6);
            ++high_count;
        }
    int warned = 0;
    for (const auto& rec : point.json["recommendations"]) {
        CHECK(rec["hours_per_run"].get<double>() <= 2.0 + 1e-6);
        const bool over = rec["hours_per_run_band"][1].get<double>() > 2.0 + 1e-6;
        CHECK(has_warning(rec, "may miss the deadline") == over);
        warned += over;
    }
    CHECK(warned >= 1);  // the point estimate lets through options whose band misses
    CHECK(high_count < point.json["recommendations"].size());
}

TEST_CASE("the top option says why it wins; the table shows the instance and host size", "[cli]") {
    auto r = run({"recommend", "--model", "bert", "--runs-per-week", "4"});
    REQUIRE(r.exit == 0);
    const auto& top = r.json["recommendations"][0];
    REQUIRE(top["reasons"].size() >= 2);
    CHECK(top["reasons"][0].get<std::string>().rfind("cheapest for this workload's", 0) == 0);
    CHECK(top["reasons"][1].get<std::string>().find("fits in memory with") != std::string::npos);
    CHECK(top.contains("vcpus"));
    CHECK(top.contains("ram_gb"));
    auto deadline = run({"recommend", "--model", "bert", "--runs-per-week", "4", "--deadline-hours", "10"});
    REQUIRE(deadline.exit == 0);
    CHECK(deadline.json["recommendations"][0]["reasons"][1].get<std::string>().rfind("within the deadline",
                                                                                     0) == 0);
    auto text = run({"recommend", "--model", "bert", "--runs-per-week", "4"}, false);
    CHECK(text.out.find("INSTANCE") != std::string::npos);
    CHECK(text.out.find("Why #1: cheapest for this workload's") != std::string::npos);
}

}  // namespace cli_test_recommend_decisions
