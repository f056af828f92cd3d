// The cost model: plan costs, break-even, reserved capacity and spot overhead.
#include <catch2/catch.hpp>

#include "gpuadvise/market/cost_model.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_cost_model {

using namespace gpuadvise;

namespace {

Catalog one_offer(std::optional<double> od, std::optional<double> reserved, std::optional<double> spot,
                  std::string currency = "USD") {
    Catalog c;
    c.rates = {{"CNY", 0.14, "2024-06-28", "test"}};
    Offer o;
    o.provider = "p";
    o.gpu = "v100";
    o.gpu_count = 1;
    o.currency = std::move(currency);
    o.on_demand_per_hour = od;
    o.reserved_per_month = reserved;
    o.spot_per_hour = spot;
    c.offers.push_back(o);
    return c;
}

}  // namespace

TEST_CASE("on-demand: cost per run is hours times the hourly price; a month is 52/12 weeks", "[core]") {
    Catalog c = one_offer(4.5, 2800, {}, "CNY");
    auto cost = cost_plan(c, c.offers[0], 1, Plan::on_demand, 2.0, 1, {}, "CNY");
    REQUIRE(cost);
    CHECK(cost->cost_per_run == Approx(9.0));
    CHECK(cost->cost_per_month == Approx(9.0 * 52 / 12));
    auto usd = cost_plan(c, c.offers[0], 1, Plan::on_demand, 2.0, 1, {}, "USD");
    CHECK(usd->cost_per_run == Approx(9.0 * 0.14));
}

TEST_CASE("reserved breaks even at the monthly price over the hourly price", "[core]") {
    Catalog c = one_offer(4.5, 2800, {}, "CNY");
    auto light = cost_plan(c, c.offers[0], 1, Plan::reserved, 2.0, 1, {}, "CNY");
    REQUIRE(light);
    CHECK(*light->break_even_hours_per_month == Approx(2800 / 4.5));
    CHECK(light->cost_per_month == Approx(2800));
    CHECK(light->cost_per_run == Approx(light->hours_per_run * light->price_per_hour));
    // 1 run of 2 h a week is far below break-even: on-demand is cheaper.
    auto od = cost_plan(c, c.offers[0], 1, Plan::on_demand, 2.0, 1, {}, "CNY");
    CHECK(od->cost_per_month < light->cost_per_month);
    // 20 runs of 8 h a week = 693 h a month, above the 622 h break-even: reserved is cheaper.
    auto heavy_r = cost_plan(c, c.offers[0], 1, Plan::reserved, 8.0, 20, {}, "CNY");
    auto heavy_od = cost_plan(c, c.offers[0], 1, Plan::on_demand, 8.0, 20, {}, "CNY");
    CHECK(heavy_r->cost_per_month < heavy_od->cost_per_month);
    CHECK(heavy_r->reserved_sets == 1);
}

TEST_CASE("reserved capacity is per instance per month: more hours than a month reserve more", "[core]") {
    Catalog c = one_offer(4.5, 2800, {}, "CNY");
    // 40 runs of 8 h a week = 1387 h a month: two reserved instances.
    auto r = cost_plan(c, c.offers[0], 1, Plan::reserved, 8.0, 40, {}, "CNY");
    CHECK(r->reserved_sets == 2);
    CHECK(r->cost_per_month == Approx(5600));
    auto two_nodes = cost_plan(c, c.offers[0], 2, Plan::reserved, 8.0, 1, {}, "CNY");
    CHECK(two_nodes->cost_per_month == Approx(5600));
}

TEST_CASE("spot adds the expected interruption overhead to the run time", "[core]") {
    Catalog c = one_offer(3.0, {}, 1.0);
    SpotAssumptions spot{0.1, 10, 30};  // 0.1/h x (10 + 15) min = 4.17 % more time
    CHECK(spot_overhead_fraction(spot) == Approx(0.1 * 25 / 60));
    auto s = cost_plan(c, c.offers[0], 1, Plan::spot, 10.0, 1, spot, "USD");
    REQUIRE(s);
    CHECK(s->hours_per_run == Approx(10.0 * (1 + 0.1 * 25 / 60)));
    CHECK(s->cost_per_run == Approx(s->hours_per_run * 1.0));
}

TEST_CASE("a plan without a price, or priced at zero, is not costed", "[core]") {
    Catalog c = one_offer(3.0, {}, 0.0);
    CHECK_FALSE(cost_plan(c, c.offers[0], 1, Plan::reserved, 1, 1, {}, "USD"));
    CHECK_FALSE(cost_plan(c, c.offers[0], 1, Plan::spot, 1, 1, {}, "USD"));
    CHECK_FALSE(cost_plan(c, c.offers[0], 1, Plan::on_demand, 1, 1, {}, "EUR"));  // no rate
}

}  // namespace unit_test_cost_model
