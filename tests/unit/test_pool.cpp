// Pooled workloads (issue 19): the week's demand, the committed instances that serve it, and a pool
// of jobs planned against each job alone. In-memory catalogs; every number chosen here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <utility>

#include "engine_catalog.hpp"
#include "gpuadvise/advice/pool.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_pool {

using namespace gpuadvise;
using enginetest::add;
using enginetest::base_catalog;
using enginetest::make_offer;
using enginetest::make_provider;

namespace {

WeekDemand flat(double instances) {
    WeekDemand d{};
    d.fill(instances);
    return d;
}

// One A100 instance: 2.00 an hour on demand, 1000 a month committed (break-even 1000 / (2 x 728) = 69 %
// of a 52/12-week month), 0.80 an hour on spot.
Catalog pool_catalog() {
    Catalog c = base_catalog();
    add(c, make_provider("cloud"), {make_offer("cloud", "a100", 1, {2.0, 1000.0, 0.8}, "r1", "a100.1")});
    add(c, make_provider("other"), {make_offer("other", "t4", 1, {0.5, 250.0, std::nullopt}, "r1", "t4.1")});
    return c;
}

// A job whose run takes exactly `hours` on one a100 (a measured time), `instance_hours` a week.
PoolJob job(const Catalog& c, const std::string& name, double instance_hours, const std::string& schedule,
            const std::string& gpu = "a100") {
    const double hours = 10;
    PoolJob j;
    j.name = name;
    j.request = enginetest::request(c, "midnet", instance_hours / hours, hours, gpu);
    j.request.gpu = parse_gpu_spec(gpu);
    j.schedule = *parse_schedule(schedule, "all");
    return j;
}

}  // namespace

TEST_CASE("parse_schedule: day, night, hour ranges and days of the week", "[core][pool]") {
    CHECK(parse_schedule("any", "all")->slots() == 168);
    CHECK(parse_schedule("day", "all")->slots() == 84);
    const auto night = parse_schedule("night", "all");
    CHECK(night->slots() == 84);
    CHECK(night->on[0]);                                  // Monday 00:00
    CHECK(!night->on[8]);                                 // Monday 08:00
    CHECK(night->on[20]);                                 // Monday 20:00
    CHECK(parse_schedule("22-6", "all")->slots() == 56);  // wraps past midnight
    CHECK(parse_schedule("0-24", "all")->slots() == 168);
    CHECK(parse_schedule("8-12,13-17", "weekdays")->slots() == 40);
    CHECK(parse_schedule("day", "weekend")->slots() == 24);
    CHECK(parse_schedule("day", "weekdays")->text == "day weekdays");
    ScheduleError why;
    CHECK_FALSE(parse_schedule("25-3", "all", &why));
    CHECK(why.field == ScheduleError::Field::hours);
    CHECK(why.message.find("'25-3'") != std::string::npos);
    CHECK_FALSE(parse_schedule("evening", "all"));
    CHECK_FALSE(parse_schedule("day", "mondays", &why));
    CHECK(why.field == ScheduleError::Field::days);
    CHECK(why.message.find("set of days") != std::string::npos);
    CHECK_FALSE(parse_schedule("5-5", "weekdays", &why));
    CHECK(why.field == ScheduleError::Field::hours);  // no hour to run in: the hours' fault
    CHECK_FALSE(parse_schedule("5-5", "all"));
}

TEST_CASE("size_pool: commits only where the committed price beats the overflow", "[core][pool]") {
    // 0.8 instances all week: 1 committed (1000) beats 0.8 x 168 x 52/12 x 2.00 = 1164.8 on demand.
    PoolSizing busy = size_pool(flat(0.8), 1000.0, 2.0);
    CHECK(busy.committed_instances == 1);
    CHECK(busy.utilisation.value() == Approx(0.8));
    CHECK(busy.overflow_hours_per_week == Approx(0));
    CHECK(busy.cost_per_month == Approx(1000));
    // 0.5 all week: on demand (728) is cheaper than a commitment.
    PoolSizing idle = size_pool(flat(0.5), 1000.0, 2.0);
    CHECK(idle.committed_instances == 0);
    CHECK_FALSE(idle.utilisation);
    CHECK(idle.cost_per_month == Approx(0.5 * 168 * 52.0 / 12.0 * 2.0));
    // 2.4 all week: two committed, the 0.4 above them on demand (a third would be busy only 40 %).
    PoolSizing big = size_pool(flat(2.4), 1000.0, 2.0);
    CHECK(big.committed_instances == 2);
    CHECK(big.overflow_hours_per_week == Approx(0.4 * 168));
    CHECK(big.cost_per_month == Approx(2000 + 0.4 * 168 * 52.0 / 12.0 * 2.0));
    CHECK(big.peak_instances == Approx(2.4));
}

TEST_CASE("size_pool: no overflow price covers the peak; no committed price commits nothing",
          "[core][pool]") {
    WeekDemand d{};
    d[10] = 2.5;
    CHECK(size_pool(d, 1000.0, std::nullopt).committed_instances == 3);
    CHECK(size_pool(flat(3), std::nullopt, 2.0).committed_instances == 0);
}

TEST_CASE("size_pool: the closed form finds the N a loop over every N finds", "[core][pool]") {
    // The cheapest N by brute force (the loop size_pool ran before issue 31), over shaped weeks.
    auto brute = [](const WeekDemand& d, double committed, double overflow) {
        double peak = 0;
        for (double x : d) peak = std::max(peak, x);
        int best = 0;
        double best_cost = 0;
        for (int n = 0; n <= static_cast<int>(std::ceil(peak - 1e-9)); ++n) {
            double over = 0;
            for (double x : d) over += std::max(0.0, x - n);
            const double cost = n * committed + over * overflow * 52.0 / 12.0;
            if (n == 0 || cost < best_cost - 1e-9) {
                best = n;
                best_cost = cost;
            }
        }
        return std::pair{best, best_cost};
    };
    for (int shape = 0; shape < 40; ++shape) {
        WeekDemand d{};
        for (std::size_t i = 0; i < d.size(); ++i)  // deterministic, uneven: peaks, gaps, fractions
            d[i] = ((i * 37 + static_cast<std::size_t>(shape) * 11) % 23 == 0)
                       ? 0
                       : static_cast<double>((i * (shape + 3)) % 97) * (1 + shape % 5) / 7.0;
        for (double committed : {50.0, 400.0, 1000.0, 5000.0}) {
            const auto [n, cost] = brute(d, committed, 2.0);
            const PoolSizing s = size_pool(d, committed, 2.0);
            CHECK(s.committed_instances == n);
            CHECK(s.cost_per_month == Approx(cost));
        }
    }
}

TEST_CASE("plan_pools: three jobs share fewer committed instances than each alone needs", "[core][pool]") {
    const Catalog c = pool_catalog();
    // Each job keeps 0.8 of an instance busy all week (134.4 instance-hours): alone, each commits one.
    std::vector<PoolJob> jobs = {job(c, "a", 134.4, "any"), job(c, "b", 134.4, "any"),
                                 job(c, "c", 134.4, "any")};
    const PoolResult r = plan_pools(c, jobs);
    REQUIRE(r.pools.size() == 1);
    const PoolPlan& p = r.pools[0];
    REQUIRE(p.offer);
    CHECK(p.offer->instance_type == "a100.1");
    CHECK(p.alone_committed_instances == 3);
    CHECK(p.pooled.committed_instances == 2);
    CHECK(p.pooled.utilisation.value() == Approx(1.0));
    CHECK(p.alone_cost_per_month == Approx(3000));
    CHECK(p.pooled.cost_per_month == Approx(2000 + 0.4 * 168 * 52.0 / 12.0 * 2.0));
    CHECK(p.saving_per_month == Approx(p.alone_cost_per_month - p.pooled.cost_per_month));
    CHECK(p.saving_per_month > 0);
    REQUIRE(p.jobs.size() == 3);
    CHECK(p.jobs[0].instance_hours_per_week == Approx(134.4));
    CHECK(p.jobs[0].alone.utilisation.value() == Approx(0.8));
}

TEST_CASE("plan_pools: schedules that do not overlap share an instance; overlapping ones do not",
          "[core][pool]") {
    const Catalog c = pool_catalog();
    // Training by day and serving by night, each 84 h a week: one instance busy all week.
    std::vector<PoolJob> day_night = {job(c, "train", 84, "day"), job(c, "serve", 84, "night")};
    const PoolPlan a = plan_pools(c, day_night).pools.at(0);
    CHECK(a.alone_committed_instances == 0);  // alone each is busy half the week: on demand
    CHECK(a.pooled.peak_instances == Approx(1));
    CHECK(a.pooled.committed_instances == 1);
    CHECK(a.pooled.utilisation.value() == Approx(1));
    CHECK(a.pooled.cost_per_month == Approx(1000));
    CHECK(a.alone_cost_per_month == Approx(2 * 84 * 52.0 / 12.0 * 2.0));
    CHECK(a.dedicated_instances == 2);  // one instance of its own per job, each busy half the week
    CHECK(a.dedicated_utilisation.value() == Approx(0.5));
    CHECK(a.dedicated_cost_per_month == Approx(2000));
    // Both by day: the same instance-hours peak at two instances and leave the nights empty.
    std::vector<PoolJob> both_day = {job(c, "train", 84, "day"), job(c, "serve", 84, "day")};
    const PoolPlan b = plan_pools(c, both_day).pools.at(0);
    CHECK(b.pooled.peak_instances == Approx(2));
    CHECK(b.pooled.committed_instances == 0);
    CHECK(b.saving_per_month == Approx(0));
}

TEST_CASE("plan_pools: spot overflow only when every job is interruptible", "[core][pool]") {
    const Catalog c = pool_catalog();
    std::vector<PoolJob> jobs = {job(c, "a", 84, "day"), job(c, "b", 84, "night")};
    CHECK(plan_pools(c, jobs).pools.at(0).overflow_plan == Plan::on_demand);
    for (auto& j : jobs) j.request.interruptible = true;
    const PoolPlan p = plan_pools(c, jobs).pools.at(0);
    CHECK(p.overflow_plan == Plan::spot);
    REQUIRE(p.spot_overhead);
    CHECK(*p.overflow_price_per_hour == Approx(0.8 * (1 + *p.spot_overhead)));
}

TEST_CASE("plan_pools: jobs on different GPUs have no common offer unless pooled apart", "[core][pool]") {
    const Catalog c = pool_catalog();
    std::vector<PoolJob> jobs = {job(c, "a", 84, "day"), job(c, "b", 84, "night", "t4")};
    const PoolResult mixed = plan_pools(c, jobs);
    REQUIRE(mixed.pools.size() == 1);
    CHECK_FALSE(mixed.pools[0].offer);
    CHECK(mixed.pools[0].why.find("pool") != std::string::npos);
    jobs[1].pool = "t4s";
    const PoolResult apart = plan_pools(c, jobs);
    REQUIRE(apart.pools.size() == 2);
    CHECK(apart.pools[0].offer->gpu == "a100");
    CHECK(apart.pools[1].offer->gpu == "t4");
}

TEST_CASE("plan_pools: jobs that share an options key are sized as if each were evaluated", "[core][pool]") {
    const Catalog c = pool_catalog();
    std::vector<PoolJob> apart = {job(c, "a", 134.4, "any"), job(c, "b", 134.4, "any"),
                                  job(c, "c", 60, "day"), job(c, "d", 134.4, "any")};
    std::vector<PoolJob> shared = apart;
    shared[0].options_key = shared[1].options_key = shared[3].options_key = "same";
    shared[2].options_key = "other";
    const PoolPlan x = plan_pools(c, apart).pools.at(0), y = plan_pools(c, shared).pools.at(0);
    REQUIRE(x.offer == y.offer);
    REQUIRE(x.jobs.size() == y.jobs.size());
    for (std::size_t i = 0; i < x.jobs.size(); ++i) {
        CHECK(y.jobs[i].job == &shared[i]);
        CHECK(y.jobs[i].instance_hours_per_week == x.jobs[i].instance_hours_per_week);
        CHECK(y.jobs[i].alone.cost_per_month == x.jobs[i].alone.cost_per_month);
        CHECK(y.jobs[i].dedicated.committed_instances == x.jobs[i].dedicated.committed_instances);
        CHECK(y.jobs[i].feasible_offers == x.jobs[i].feasible_offers);
    }
    CHECK(y.pooled.cost_per_month == x.pooled.cost_per_month);
    CHECK(y.alone_cost_per_month == x.alone_cost_per_month);
    CHECK(y.dedicated_cost_per_month == x.dedicated_cost_per_month);
    CHECK(y.jobs[2].instance_hours_per_week != y.jobs[0].instance_hours_per_week);  // "other" is its own
}

}  // namespace unit_test_pool
