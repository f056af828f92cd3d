// Billing increments, minimum charges and the idle tail (issue 19); energy and carbon per run.
#include <catch2/catch.hpp>

#include "gpuadvise/market/cost_model.hpp"
#include "gpuadvise/model/energy.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_billing_energy {

using namespace gpuadvise;

namespace {

// Two providers with the same hourly price, one billing per second, one per hour.
Catalog two_providers() {
    Catalog c;
    for (const char* id : {"per-second", "per-hour", "unknown-billing"}) {
        Provider p;
        p.id = id;
        p.as_of = "2026-01-01";
        p.source = "test";
        if (std::string(id) == "per-second") p.billing = {1, 60, true, "test: per second, 60 s minimum"};
        if (std::string(id) == "per-hour") p.billing = {3600, 3600, std::nullopt, "test: per hour"};
        c.providers.push_back(p);
        Offer o;
        o.provider = id;
        o.gpu = "a100";
        o.gpu_count = 1;
        o.region = "r1";
        o.on_demand_per_hour = 3.0;
        o.spot_per_hour = 1.0;
        c.offers.push_back(o);
    }
    return c;
}

constexpr double kRun = 1.0 + 5.0 / 60.0;  // 1 h 05 min

}  // namespace

TEST_CASE(
    "billing: a per-second and a per-hour provider at the same price bill a 1 h 05 min run as their "
    "increments say",
    "[core]") {
    Catalog c = two_providers();
    auto sec = cost_plan(c, c.offers[0], 1, Plan::on_demand, kRun, 1, {}, "USD", 0,
                         billing_assumptions(c, c.find_provider("per-second"), 0));
    auto hour = cost_plan(c, c.offers[1], 1, Plan::on_demand, kRun, 1, {}, "USD", 0,
                          billing_assumptions(c, c.find_provider("per-hour"), 0));
    REQUIRE(sec);
    REQUIRE(hour);
    CHECK(sec->billed_hours_per_run == Approx(kRun));
    CHECK(sec->cost_per_run == Approx(3.0 * 65.0 / 60.0));  // 3900 s at 3/h
    CHECK(hour->billed_hours_per_run == Approx(2.0));       // rounded up to the second hour
    CHECK(hour->cost_per_run == Approx(6.0));
    CHECK(hour->cost_per_month == Approx(6.0 * 52.0 / 12.0));
    CHECK(sec->cost_per_run < hour->cost_per_run);
}

TEST_CASE("billing: --idle-minutes 30 raises the cost by the idle half-hour", "[core]") {
    Catalog c = two_providers();
    const Provider* p = c.find_provider("per-second");
    auto none =
        cost_plan(c, c.offers[0], 1, Plan::on_demand, kRun, 1, {}, "USD", 0, billing_assumptions(c, p, 0));
    auto idle =
        cost_plan(c, c.offers[0], 1, Plan::on_demand, kRun, 1, {}, "USD", 0, billing_assumptions(c, p, 30));
    REQUIRE(none);
    REQUIRE(idle);
    CHECK(idle->cost_per_run - none->cost_per_run == Approx(0.5 * 3.0));
    CHECK(idle->idle_cost_per_run == Approx(1.5));
    CHECK(idle->idle_hours_per_run == Approx(0.5));
    CHECK(idle->hours_per_run == Approx(kRun));  // the run itself is not longer
    // Releasing after the guide's 5 minutes instead of 30 saves 25 minutes' price.
    CHECK(idle->prompt_release_saving_per_run == Approx(25.0 / 60.0 * 3.0));
    CHECK(none->prompt_release_saving_per_run == Approx(0));
    // Two instances pay the idle tail twice.
    auto two =
        cost_plan(c, c.offers[0], 2, Plan::on_demand, kRun, 1, {}, "USD", 0, billing_assumptions(c, p, 30));
    CHECK(two->idle_cost_per_run == Approx(3.0));
}

TEST_CASE("billing: the minimum charge and a provider without billing data", "[core]") {
    Catalog c = two_providers();
    auto b = billing_assumptions(c, c.find_provider("per-second"), 0);
    CHECK(billed_hours(b, 10.0 / 3600.0, 0) == Approx(60.0 / 3600.0));  // a 10 s run pays the 60 s minimum
    CHECK(billed_hours(b, 1.0, 0) == Approx(1.0));                      // no rounding error at a whole hour
    auto unknown = billing_assumptions(c, c.find_provider("unknown-billing"), 0);
    CHECK(unknown.increment_assumed);
    CHECK(unknown.increment_seconds ==
          Approx(60));  // policy default_billing_increment_seconds: per minute, never silently per second
    CHECK(billed_hours(unknown, 61.0 / 3600.0, 0) == Approx(120.0 / 3600.0));
    c.policy.set("default_billing_increment_seconds", 3600);
    CHECK(billing_assumptions(c, c.find_provider("unknown-billing"), 0).increment_seconds == Approx(3600));
    CHECK(b.stopped_bills_storage == std::optional<bool>(true));
    // Spot is billed by the same increment: the expected hours (with interruptions) rounded up.
    Catalog h = two_providers();
    auto spot = cost_plan(h, h.offers[1], 1, Plan::spot, kRun, 1, {0.1, 10, 30}, "USD", 0,
                          billing_assumptions(h, h.find_provider("per-hour"), 0));
    REQUIRE(spot);
    CHECK(spot->billed_hours_per_run == Approx(2.0));
    CHECK(spot->cost_per_run == Approx(2.0));
}

TEST_CASE("billing: reserved capacity is not rounded; the idle tail costs what it adds to the month",
          "[core]") {
    Catalog c;
    Offer o;
    o.provider = "p";
    o.gpu = "a100";
    o.on_demand_per_hour = 4.0;
    o.commitments.push_back(
        {1, 1460, std::nullopt, 0, "instance", "test", "2026-01-01", ""});  // 2/h at full use
    c.offers.push_back(o);
    BillingAssumptions b{3600, 3600, 30, 5, false, std::nullopt, "test"};
    auto r = cost_plan(c, c.offers[0], 1, Plan::reserved, 10, 40, {}, "USD", 0, b);
    REQUIRE(r);
    CHECK(r->hours_per_run == Approx(10));
    CHECK(r->billed_hours_per_run == Approx(10.5));  // slot hours: run + idle, no increment
    CHECK(r->idle_cost_per_run >= 0);
}

TEST_CASE("energy: kWh = share of TDP x GPUs x hours x PUE; carbon = kWh x the region's grid intensity",
          "[core]") {
    Catalog c;
    Gpu g;
    g.id = "a100";
    g.tdp_w = 400;
    c.gpus.push_back(g);
    Provider gcp;
    gcp.id = "gcp";
    gcp.pue = 1.10;
    gcp.pue_source = "test fleet PUE";
    c.providers.push_back(gcp);
    c.grid_carbon.push_back({"gcp", "europe-west9", 15.83, "test table"});
    c.grid_carbon.push_back({"gcp", "us-central1", 431.95, "test table"});
    Offer o;
    o.provider = "gcp";
    o.gpu = "a100";
    o.region = "europe-west9";
    const GridCarbonIndex grid(c);
    auto e = run_energy(c, grid, g, c.find_provider("gcp"), o, 8, 2.0, 1);
    REQUIRE(e);
    const double kwh = 0.76 * 400 * 8 * 2.0 * 1.10 / 1000.0;
    CHECK(e->kwh_per_run == Approx(kwh));
    CHECK_FALSE(e->pue_assumed);
    REQUIRE(e->co2e_kg_per_run);
    CHECK(*e->co2e_kg_per_run == Approx(kwh * 15.83 / 1000.0));
    CHECK(*e->co2e_kg_per_month == Approx(kwh * 52.0 / 12.0 * 15.83 / 1000.0));
    o.region = "US-Central1";  // regions match ignoring case
    CHECK(*run_energy(c, grid, g, c.find_provider("gcp"), o, 8, 2.0, 1)->co2e_kg_per_run ==
          Approx(kwh * 431.95 / 1000.0));

    // A region without data: unknown, never a guess; a provider without a PUE: the policy default.
    Offer other = o;
    other.provider = "alpha";
    auto u = run_energy(c, grid, g, nullptr, other, 8, 2.0, 1);
    REQUIRE(u);
    CHECK_FALSE(u->co2e_kg_per_run);
    CHECK(u->co2e_basis.rfind("unknown", 0) == 0);
    CHECK(u->pue_assumed);
    CHECK(u->kwh_per_run == Approx(0.76 * 400 * 8 * 2.0 * 1.57 / 1000.0));
    Gpu no_tdp = g;
    no_tdp.tdp_w.reset();
    CHECK_FALSE(run_energy(c, grid, no_tdp, nullptr, o, 1, 1, 1));
}

}  // namespace unit_test_billing_energy
