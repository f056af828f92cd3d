// Commitment plans: paid whether used or not, on-demand for what they do not cover, break-even
// utilisation and the crossover in runs a week.
#include <catch2/catch.hpp>

#include "gpuadvise/catalog/commitment.hpp"
#include "gpuadvise/market/commitment_cost.hpp"
#include "gpuadvise/market/cost_model.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_commitment {

using namespace gpuadvise;

namespace {

Catalog committed_offer(double od, std::vector<Commitment> commitments) {
    Catalog c;
    Offer o;
    o.provider = "gcp";
    o.gpu = "a100-40gb-sxm";
    o.instance_type = "a2-highgpu-1g";
    o.region = "us-central1";
    o.on_demand_per_hour = od;
    o.commitments = std::move(commitments);
    c.offers.push_back(o);
    return c;
}

}  // namespace

TEST_CASE("a job needing 3 instances with 2 committed pays the third on demand", "[core]") {
    // 2 committed slots at 1000 a month, 100 busy hours a month per instance, on-demand 2.0 an hour.
    const CommitmentCost c = cost_with_commitment(1000, 2.0, 3, 2, 100, 730);
    CHECK(c.committed_per_month == Approx(2000));
    CHECK(c.covered_hours == Approx(200));
    CHECK(c.on_demand_hours == Approx(100));
    CHECK(c.on_demand_per_month == Approx(200));
    CHECK(c.total_per_month == Approx(2200));
    // Committed slots are paid in full even when idle: 3 slots for 100 h each still cost 3000.
    CHECK(cost_with_commitment(1000, 2.0, 3, 3, 100, 730).total_per_month == Approx(3000));
    // Without an on-demand price, uncovered hours cannot be bought.
    CHECK(std::isinf(cost_with_commitment(1000, std::nullopt, 3, 2, 100, 730).total_per_month));
}

TEST_CASE("a copy busier than the month takes a second slot only when that is cheaper than on-demand",
          "[core]") {
    // 800 h a month on one instance: 1 slot + 70 h on demand (1000 + 140) beats 2 slots (2000).
    CHECK(best_committed_slots(1000, 2.0, 1, 800, 730) == 1);
    // 1400 h: 1 slot + 670 h (1000 + 1340) loses to 2 slots (2000).
    CHECK(best_committed_slots(1000, 2.0, 1, 1400, 730) == 2);
    // Below one month: always one slot per instance.
    CHECK(best_committed_slots(1000, 2.0, 4, 10, 730) == 4);
}

TEST_CASE("break-even utilisation and the crossover in runs a week", "[core]") {
    // GCP us-central1 a2-highgpu-1g (pricing.yml 2026-07-30): 3.673385 USD/h, 1 year 1689.3711392 USD/month.
    const double be = break_even_utilisation(1689.3711392, 3.673385, 730);
    CHECK(be == Approx(1689.3711392 / (3.673385 * 730)));
    CHECK(be == Approx(0.63).margin(0.005));
    // 8.5 h runs: 0.63 x 730 h / 8.5 h a run = 54.1 runs a month = 12.5 runs a week.
    auto r = crossover_runs_per_week(be, 730, 8.5);
    REQUIRE(r);
    CHECK(*r == Approx(be * 730 / 8.5 * 12 / 52));
    CHECK_FALSE(crossover_runs_per_week(1.2, 730, 8.5));  // dearer than on-demand at full use: never wins
}

TEST_CASE("reserved picks the commitment term that costs the workload least", "[core]") {
    Catalog c = committed_offer(3.673385,
                                {{12, 1689.3711392, {}, 0, "machine type + region", "s", "2026-07-30", ""},
                                 {36, 938.56707798, {}, 0, "machine type + region", "s", "2026-07-30", ""}});
    const Offer& o = c.offers[0];
    auto any = cost_plan(c, o, 1, Plan::reserved, 8.5, 40, {}, "USD");
    REQUIRE(any);
    CHECK(any->term_months == 36);
    // 40 runs x 8.5 h x 52/12 = 1473 h a month: 2 slots of 730 h (the third month-lane would be 13 h on demand).
    CHECK(any->committed_instances == 2);
    CHECK(any->cost_per_month == Approx(2 * 938.56707798 + (40 * 8.5 * 52.0 / 12 - 2 * 730) * 3.673385));
    auto one_year = cost_plan(c, o, 1, Plan::reserved, 8.5, 1, {}, "USD", 12);
    REQUIRE(one_year);
    CHECK(one_year->term_months == 12);
    CHECK(one_year->cost_per_month == Approx(1689.3711392));  // 37 h used, the whole month paid
    REQUIRE(one_year->crossover_runs_per_week);
    CHECK(*one_year->crossover_runs_per_week == Approx(1689.3711392 / (3.673385 * 8.5 * 52 / 12)));
    CHECK_FALSE(cost_plan(c, o, 1, Plan::reserved, 8.5, 1, {}, "USD", 1));  // no 1-month term
    CHECK(cost_commitment_terms(c, o, 1, 8.5, 1, "USD").size() == 2);
}

TEST_CASE("reserved costs only the cheapest commitments and picks what costing each alone picks", "[core]") {
    // An offer with a dozen commitments (AWS: RIs and savings plans of two terms, three payments each, and a
    // capacity block), some priced within a hair of each other: cost_reserved_at skips every commitment
    // dearer than the cheapest of the term. The answer must be the one of costing each commitment alone and
    // keeping the cheapest (a tie within 1e-9 to the shorter term), as before the shortcut.
    std::vector<Commitment> all;
    const double prices[] = {2100, 2050, 1990.5, 1990.5, 1990.5000001, 2400,
                             1500, 1480, 1480,   1600,   1470.25,      900};
    const int terms[] = {12, 12, 12, 36, 12, 12, 36, 36, 12, 36, 36, 1};
    for (int i = 0; i < 12; ++i) {
        Commitment k;
        k.term_months = terms[i];
        k.price_per_month = prices[i];
        k.source = "test";
        if (i == 11) k.kind = CommitmentKind::capacity_block;  // never costed as a term
        all.push_back(k);
    }
    Catalog c = committed_offer(4.1, all);
    const Offer& o = c.offers[0];
    BillingAssumptions billing;
    billing.idle_minutes = 7;
    billing.prompt_release_minutes = 5;
    for (int term : {0, 1, 12, 36})
        for (int instances : {1, 3})
            for (double hours : {0.5, 8.5, 300.0})
                for (double runs : {0.1, 1.0, 7.0, 40.0, 300.0}) {
                    std::optional<PlanCost> want;
                    double want_price = 0;  // want's commitment points into a catalog gone by then
                    for (const auto& k : all) {
                        Catalog one = committed_offer(4.1, {k});
                        auto x = cost_plan(one, one.offers[0], instances, Plan::reserved, hours, runs, {},
                                           "USD", term, billing);
                        if (x && (!want || x->cost_per_month < want->cost_per_month - 1e-9 ||
                                  (std::fabs(x->cost_per_month - want->cost_per_month) <= 1e-9 &&
                                   x->term_months < want->term_months))) {
                            want = x;
                            want_price = k.price_per_month;
                        }
                    }
                    auto got =
                        cost_plan(c, o, instances, Plan::reserved, hours, runs, {}, "USD", term, billing);
                    INFO("term " << term << ", " << instances << " instances, " << hours << " h, " << runs
                                 << " runs a week");
                    REQUIRE(got.has_value() == want.has_value());
                    if (!got) continue;
                    CHECK(got->cost_per_month == want->cost_per_month);
                    CHECK(got->term_months == want->term_months);
                    CHECK(got->committed_instances == want->committed_instances);
                    CHECK(got->idle_cost_per_run == want->idle_cost_per_run);
                    CHECK(got->prompt_release_saving_per_run == want->prompt_release_saving_per_run);
                    REQUIRE(got->commitment);
                    CHECK(got->commitment->price_per_month == want_price);
                    // plan_flip's month of the same offer (its 11 priced commitments past the 8 it holds
                    // inline): cost_plan's figure.
                    const auto month = ReservedMonth(c, o, instances, hours, "USD", billing).at(runs, term);
                    REQUIRE(month);
                    CHECK(month->cost_per_month == Approx(got->cost_per_month).epsilon(1e-12));
                    CHECK(month->term_months == got->term_months);
                }
}

TEST_CASE("plan filter values: reserved of any term or of one term", "[core]") {
    CHECK(parse_plan_filter("reserved") == PlanFilter{Plan::reserved, 0});
    CHECK(parse_plan_filter("reserved-1m") == PlanFilter{Plan::reserved, 1});
    CHECK(parse_plan_filter("reserved-1y") == PlanFilter{Plan::reserved, 12});
    CHECK(parse_plan_filter("reserved-3y") == PlanFilter{Plan::reserved, 36});
    CHECK(parse_plan_filter("on-demand") == PlanFilter{Plan::on_demand, 0});
    CHECK_FALSE(parse_plan_filter("reserved-"));
    CHECK_FALSE(parse_plan_filter("reserved-0y"));
    CHECK_FALSE(parse_plan_filter("reserved-1w"));
    CHECK(term_label(12) == "1-year");
    CHECK(term_label(1) == "1-month");
    CHECK(term_short(36) == "3y");
}

}  // namespace unit_test_commitment
