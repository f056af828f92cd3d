// Commitment plans end to end (issue 15): recommend picks a GCP commitment for a heavy job and
// on-demand for a light one, and both agree with a hand calculation from the catalog's prices.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <sstream>

#include "cli/app.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace cli_test_plans {

namespace {

nlohmann::json run_json(std::vector<std::string> args) {
    args.insert(args.begin(), "gpuadvise");
    args.push_back("--json");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    const int rc = gpuadvise::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
    INFO(err.str());
    REQUIRE(rc == 0);
    return nlohmann::json::parse(out.str());
}

// The catalog's offer of this provider, machine type and region, as `offers --json` lists it.
nlohmann::json offer_of(const std::string& provider, const std::string& gpu, const std::string& instance,
                        const std::string& region) {
    const auto j = run_json({"offers", "--provider", provider, "--gpu", gpu, "--region", region});
    for (const auto& o : j["offers"])
        if (o["instance_type"] == instance && o["region"] == region) return o;
    FAIL("no offer " + instance + " in " + region);
    return {};
}

double commitment_price(const nlohmann::json& offer, int term) {
    for (const auto& c : offer["commitments"])
        if (c["term_months"] == term) return c["price_per_month"].get<double>();
    FAIL("no commitment of " + std::to_string(term) + " months");
    return 0;
}

// A finding of the analysis by its rule, as JSON ({rule, kind, message, numbers}); null when none.
nlohmann::json finding(const nlohmann::json& rec, const std::string& rule) {
    for (const auto& s : rec["analysis"]["steps"])
        for (const auto& f : s["findings"])
            if (f["rule"] == rule) return f;
    return nullptr;
}

// One number a finding states (docs/json.md, findings[].numbers).
double number(const nlohmann::json& finding, const std::string& name) {
    REQUIRE(finding.is_object());
    INFO(finding.dump());
    REQUIRE(finding.contains("numbers"));
    REQUIRE(finding["numbers"].contains(name));
    return finding["numbers"][name].get<double>();
}

const double kMonth = 730, kRunsPerMonth = 52.0 / 12;

}  // namespace

TEST_CASE("40 runs a week of 8 h: a GCP commitment, its break-even and crossover as by hand", "[cli]") {
    const auto rec = run_json({"recommend", "--model", "resnet50", "--runs-per-week", "40", "--hours-per-run",
                               "8", "--measured-on", "v100-16gb-sxm2", "--provider", "gcp"});
    const auto& top = rec["recommendations"].at(0);
    CHECK(top["provider"] == "gcp");
    REQUIRE(top["plan"] == "reserved");
    const int term = top["term_months"].get<int>();
    CHECK((term == 12 || term == 36));
    const auto offer = offer_of("gcp", top["gpu"], top["instance_type"], top["region"]);
    const double od = offer["on_demand_per_hour"].get<double>();
    const double price = commitment_price(offer, term);
    const double h = top["billed_hours_per_run"].get<double>();  // the slot hours: run + idle tail
    // By hand: break-even = monthly commitment / (on-demand x 730 h); crossover = that share of 730 h in runs.
    const double be = price / (od * kMonth);
    CHECK(top["break_even_utilisation"].get<double>() == Approx(be).epsilon(1e-3));
    // Against its own machine on demand (#28: the crossover proper is against the cheapest on-demand option).
    CHECK(top["own_crossover_runs_per_week"].get<double>() ==
          Approx(be * kMonth / h / kRunsPerMonth).epsilon(1e-3));
    // Paid whether used or not: whole slots for the month's hours, on-demand for what they leave.
    const double busy = 40 * kRunsPerMonth * h;
    const double lanes_low = std::max(1.0, std::floor(busy / kMonth)), lanes_high = std::ceil(busy / kMonth);
    const double low = lanes_low * price + std::max(0.0, busy - lanes_low * kMonth) * od,
                 high = lanes_high * price;
    CHECK(top["cost_per_month"].get<double>() == Approx(std::min(low, high)).epsilon(1e-3));
    const auto crossover = finding(rec, "2.crossover");
    CHECK(crossover["kind"] == "preference");
    // By hand: the commitment's month over the cheapest on-demand option's cost per run, in runs a week.
    const auto& x = rec["plan_crossover"];
    const auto flip_offer = offer_of("gcp", x["gpu"], x["instance_type"], x["region"]);
    CHECK(number(crossover, "crossover_runs_per_week") ==
          Approx(commitment_price(flip_offer, x["term_months"]) / x["against"]["cost_per_run"].get<double>() /
                 kRunsPerMonth)
              .epsilon(1e-3));
    CHECK(number(crossover, "runs_per_week") == 40);
    CHECK(number(crossover, "term_months") == term);
    const auto break_even = finding(rec, "2.break_even");
    CHECK(number(break_even, "break_even_utilisation") == Approx(be).epsilon(1e-3));
    CHECK(number(break_even, "term_months") == term);
    CHECK(number(break_even, "runs_per_month") == Approx(40 * kRunsPerMonth));
    CHECK(number(break_even, "hours_per_month") ==
          Approx(40 * kRunsPerMonth * number(break_even, "hours_per_run")));
    const auto heuristic = finding(rec, "2.frequency_heuristic");
    CHECK(heuristic["kind"] == "heuristic");
    CHECK(number(heuristic, "runs_per_week") == 40);
    // alternatives: the other plans of the configuration, each with its monthly cost
    bool on_demand = false;
    for (const auto& a : top["alternatives"])
        if (a["plan"] == "on_demand")
            on_demand = a["cost_per_month"].get<double>() > top["cost_per_month"].get<double>();
    CHECK(on_demand);
}

TEST_CASE("1 run a week: on-demand, with the crossover above which a commitment would win, as by hand",
          "[cli]") {
    const auto rec = run_json({"recommend", "--model", "resnet50", "--runs-per-week", "1", "--hours-per-run",
                               "8", "--measured-on", "v100-16gb-sxm2", "--provider", "gcp"});
    CHECK(rec["recommendations"].at(0)["plan"] == "on_demand");
    const auto& x = rec["plan_crossover"];
    REQUIRE(x.is_object());
    const auto offer = offer_of("gcp", x["gpu"], x["instance_type"], x["region"]);
    const double be =
        commitment_price(offer, x["term_months"]) / (offer["on_demand_per_hour"].get<double>() * kMonth);
    CHECK(x["break_even_utilisation"].get<double>() == Approx(be).epsilon(1e-6));
    const double crossover = be * kMonth / x["hours_per_run"].get<double>() / kRunsPerMonth;
    // Against its own machine on demand: the second, labelled figure (#28).
    CHECK(x["own_crossover_runs_per_week"].get<double>() == Approx(crossover).epsilon(1e-3));
    CHECK(crossover > 1);
    CHECK(number(finding(rec, "2.crossover"), "own_crossover_runs_per_week") ==
          Approx(crossover).epsilon(1e-3));
    // The crossover proper: against the cheapest on-demand option, where --what-if flips.
    const double flip = commitment_price(offer, x["term_months"]) /
                        x["against"]["cost_per_run"].get<double>() / kRunsPerMonth;
    CHECK(x["crossover_runs_per_week"].get<double>() == Approx(flip).epsilon(1e-3));
    CHECK(number(finding(rec, "2.crossover"), "crossover_runs_per_week") == Approx(flip).epsilon(1e-3));
    CHECK(flip > crossover);  // the cheapest on-demand option costs less a run than the commitment's machine
    CHECK(number(finding(rec, "2.crossover"), "runs_per_week") == 1);
}

TEST_CASE("what-if: at most 1000 points, TO within --runs-per-week's range", "[cli]") {
    const auto rec =
        run_json({"recommend", "--model", "resnet50", "--provider", "gcp", "--gpu", "a100-40gb-sxm:1",
                  "--region", "us-central1", "--what-if", "runs-per-week=1:1000"});
    CHECK(rec["what_if"].size() == 1000);
    for (const char* spec : {"runs-per-week=1:1001", "runs-per-week=0:999.5:0.5", "runs-per-week=1e308:1e308",
                             "runs-per-week=10000:10001"}) {
        const std::vector<std::string> args{"gpuadvise", "recommend", "--model",
                                            "resnet50",  "--what-if", spec};
        std::vector<const char*> argv;
        for (const auto& a : args) argv.push_back(a.c_str());
        std::ostringstream out, err;
        INFO(spec);
        CHECK(gpuadvise::cli::run(static_cast<int>(argv.size()), argv.data(), out, err) == 2);
        CHECK(err.str().find("at most 1000 points") != std::string::npos);
    }
}

TEST_CASE("what-if: the crossover points agree with the break-even utilisation of the same options",
          "[cli]") {
    const auto rec = run_json({"recommend", "--model", "resnet50", "--hours-per-run", "8", "--measured-on",
                               "v100-16gb-sxm2", "--provider", "gcp", "--gpu", "a100-40gb-sxm:1", "--region",
                               "us-central1", "--what-if", "runs-per-week=1:40"});
    REQUIRE(rec["what_if"].size() == 40);
    const auto& first = rec["what_if"].at(0);
    const auto& last = rec["what_if"].at(39);
    CHECK(first["runs_per_week"] == 1);
    CHECK(first["spot"].is_null());  // not --interruptible
    REQUIRE(first["on_demand"].is_object());
    REQUIRE(last["reserved"].is_object());
    CHECK(first["on_demand"]["cost_per_month"].get<double>() <
          first["reserved"]["cost_per_month"].get<double>());
    CHECK(last["reserved"]["cost_per_month"].get<double>() <
          last["on_demand"]["cost_per_month"].get<double>());
    REQUIRE(rec["what_if_crossovers"].size() == 1);
    const auto& c = rec["what_if_crossovers"].at(0);
    CHECK(c["from"] == "on_demand");
    CHECK(c["to"] == "reserved");
    // The same option at 1 run a week: its best commitment's break-even, in runs a week.
    const auto& top = rec["recommendations"].at(0);
    CHECK(top["instance_type"] == "a2-highgpu-1g");
    const double be = top["break_even_utilisation"].get<double>();
    CHECK(c["runs_per_week"].get<double>() ==
          Approx(be * kMonth / top["billed_hours_per_run"].get<double>() / kRunsPerMonth).epsilon(1e-3));
    CHECK(c["runs_per_week"].get<double>() ==
          Approx(top["crossover_runs_per_week"].get<double>()).epsilon(1e-3));
}

TEST_CASE("offers --plan reserved-1y: GCP g2 machines with their 1-year price and as-of", "[cli]") {
    const auto j = run_json({"offers", "--gpu", "L4", "--provider", "gcp", "--plan", "reserved-1y"});
    REQUIRE(j["offers"].size() > 10);
    for (const auto& o : j["offers"]) {
        CHECK(o["instance_type"].get<std::string>().rfind("g2-standard-", 0) == 0);
        CHECK(o["plan"] == "reserved");
        double one_year = 0;
        for (const auto& c : o["commitments"])
            if (c["term_months"] == 12) {
                one_year = c["price_per_month"].get<double>();
                CHECK(c["as_of"] == "2026-07-30");
            }
        REQUIRE(one_year > 0);
        CHECK(o["price_per_hour_converted"].get<double>() == Approx(one_year / 730).epsilon(1e-3));
    }
}

TEST_CASE("plan: the pool example saves on the built-in catalog", "[cli]") {
    const auto j = run_json({"plan", std::string(GPUADVISE_SOURCE_DIR) + "/docs/examples/jobs-pool.yaml"});
    REQUIRE(j["pools"].size() == 1);
    const auto& p = j["pools"][0];
    CHECK(p["saving_per_month"].get<double>() > 0);
    CHECK(p["term_months"].get<int>() > 0);  // pooled onto a commitment, not on-demand alone
}

TEST_CASE("recommend 20 runs a week of 8 h on AWS: a reservation, its term, payment and upfront sum",
          "[cli]") {
    const auto j = run_json({"recommend", "--model", "resnet50", "--runs-per-week", "20", "--hours-per-run",
                             "8", "--measured-on", "V100", "--provider", "aws"});
    const auto& top = j["recommendations"][0];
    REQUIRE(top["plan"] == "reserved");
    CHECK(top["term_months"].get<int>() >= 12);
    CHECK((top["commitment_kind"] == "reservation" || top["commitment_kind"] == "savings_plan"));
    CHECK(top["commitment_payment"] != "unknown");
    // Its month beats the best on-demand option of the same job (what the user would otherwise rent).
    const auto od = run_json({"recommend", "--model", "resnet50", "--runs-per-week", "20", "--hours-per-run",
                              "8", "--measured-on", "V100", "--provider", "aws", "--plan", "on-demand"});
    CHECK(top["cost_per_month"].get<double>() < od["recommendations"][0]["cost_per_month"].get<double>());
    // All upfront: the sum paid at the start is the term's total of the committed instances.
    if (top["commitment_payment"] == "all_upfront") {
        const auto offer = offer_of("aws", top["gpu"], top["instance_type"], top["region"]);
        double monthly = 0;
        for (const auto& c : offer["commitments"])
            if (c["term_months"] == top["term_months"] && c["payment"] == "all_upfront")
                monthly = c["price_per_month"].get<double>();
        CHECK(top["upfront_total"].get<double>() ==
              Approx(monthly * top["term_months"].get<int>() * top["committed_instances"].get<int>())
                  .epsilon(1e-3));
    }
    CHECK(j["providers_without_commitment_prices"].empty());
}

TEST_CASE("offers --provider aws --plan reserved-1y: p4d, p5, g5, g6 rows with their payment option",
          "[cli]") {
    const auto j = run_json({"offers", "--provider", "aws", "--plan", "reserved-1y"});
    std::map<std::string, int> families;
    for (const auto& o : j["offers"]) {
        const std::string type = o["instance_type"];
        CHECK(o["reserved_payment"].is_string());
        CHECK(o["reserved_payment"] != "unknown");
        if (o["reserved_kind"] == "reservation" || o["reserved_kind"] == "savings_plan")
            ++families[type.substr(0, type.find('.'))];
    }
    for (const char* f : {"p4d", "p5", "g5", "g6"}) CHECK(families[f] > 0);
}

}  // namespace cli_test_plans
