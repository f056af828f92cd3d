// `gpuadvise plan`: several workloads planned together on one offer (issue 19, "pooled workloads").
// Each job is what `recommend` takes (workload, runs a week, constraints) plus a schedule; the week
// is 168 hourly slots, each job's instance-hours spread evenly over the slots its schedule allows,
// and the committed (reserved) instances of the pool are sized against the summed demand per slot,
// so jobs whose schedules do not overlap share instances. See docs/plan.md.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/advice/recommendation.hpp"
#include "gpuadvise/base/calendar.hpp"

namespace gpuadvise {

inline constexpr int kWeekSlots = kHoursPerWeek;    // hours of a week, Monday 00:00 first
using WeekDemand = std::array<double, kWeekSlots>;  // instances busy in each hour (a fluid average)

// The hours of the week a job may run in.
struct WeekSchedule {
    std::array<bool, kWeekSlots> on{};
    std::string text;  // as given: "any", "day", "night", "8-18", with " weekdays" / " weekend"
    int slots() const;
};
// hours: "any" (0-24), "day" (08:00-20:00), "night" (20:00-08:00) or hour ranges "H-H[,H-H…]"
// (0 ≤ H ≤ 24, a range may wrap past midnight: "22-6"); days: "all", "weekdays" (Mon-Fri) or
// "weekend". nullopt (and `error` says why, and which of the two is wrong) for anything else or for a
// schedule with no hour.
struct ScheduleError {
    enum class Field { hours, days } field = Field::hours;
    std::string message;
};
std::optional<WeekSchedule> parse_schedule(std::string_view hours, std::string_view days,
                                           ScheduleError* error = nullptr);

// The committed instances that cost least for a week of demand: N × committed price a month + the
// instance-hours above N in each slot at the overflow price × weeks a month (52/12). No committed
// price: N = 0; no overflow price: N covers the peak.
struct PoolSizing {
    int committed_instances = 0;
    double peak_instances = 0;           // the highest slot of the demand
    double demand_hours_per_week = 0;    // instance-hours a week
    double served_hours_per_week = 0;    // by the committed instances
    double overflow_hours_per_week = 0;  // above them
    std::optional<double> utilisation;   // served / (N × 168); nullopt when N = 0
    double committed_cost_per_month = 0;
    double overflow_cost_per_month = 0;
    double cost_per_month = 0;
};
// Share of `instances` x 168 weekly slots that `served_hours_per_week` fills; nullopt for no instances.
std::optional<double> slot_utilisation(double served_hours_per_week, int instances);

PoolSizing size_pool(const WeekDemand& demand, std::optional<double> committed_price_per_month,
                     std::optional<double> overflow_price_per_hour);

// One job of a jobs file.
struct PoolJob {
    std::string name;
    std::string team;
    std::string pool = "default";  // jobs with the same pool name share instances
    RecommendRequest request;      // the workload and constraints, as `recommend` takes them
    WeekSchedule schedule;
    // Jobs with the same non-empty key have the same options on every offer, found once (the jobs
    // reader makes it from every field of the job but its name, team and pool).
    std::string options_key;
};

struct PoolJobPlan {
    const PoolJob* job = nullptr;
    int instances = 1;  // copies of the offer one run uses together
    int gpu_count = 1;
    double hours_per_run = 0;            // billed: the estimate + set-up
    double instance_hours_per_week = 0;  // instances × runs a week × hours per run
    WeekDemand demand{};                 // spread over the schedule's hours
    PoolSizing alone;                    // this job on the same offer, sized alone
    PoolSizing dedicated;             // committed instances covering the job's own peak (a team's own GPUs)
    std::size_t feasible_offers = 0;  // offers that can run it within its constraints
};

struct PoolPlan {
    std::string name;
    const Offer* offer = nullptr;  // nullptr: no offer serves every job (`why` says which)
    const Gpu* gpu = nullptr;
    int term_months = 0;                              // of the commitment priced (0: the offer has none)
    std::optional<double> committed_price_per_month;  // one instance, output currency
    std::optional<double> on_demand_per_hour;         // one instance
    Plan overflow_plan = Plan::on_demand;
    std::optional<double> overflow_price_per_hour;  // per useful instance-hour (spot: with its overhead)
    std::optional<double> spot_overhead;            // when the overflow runs on spot
    std::vector<PoolJobPlan> jobs;
    PoolSizing pooled;
    int alone_committed_instances = 0;
    // Each job on its own dedicated committed instances (its peak, rounded up): the guide's
    // "one team, one GPU" baseline; zero when the offer has no commitment price.
    int dedicated_instances = 0;
    std::optional<double> dedicated_utilisation;
    double dedicated_cost_per_month = 0;
    double alone_cost_per_month = 0;
    double saving_per_month = 0;  // alone − pooled
    std::optional<double> saving_fraction;
    std::size_t common_offers = 0;  // offers every job of the pool can run on
    std::string why;                // when offer is nullptr
};

struct PoolResult {
    std::vector<PoolPlan> pools;  // in the order their first job appears
    std::vector<std::string> assumptions;
};

// Plans every pool: for each offer all its jobs can run on (recommend's candidates and
// constraints, per job), the pooled sizing; the offer with the lowest pooled monthly total wins.
PoolResult plan_pools(const Catalog& catalog, const std::vector<PoolJob>& jobs);

// The pool's jobs each sized alone, added up (committed instances, hours and costs; utilisation of
// their committed instances together): the "each job alone" row of the plan.
PoolSizing alone_total(const PoolPlan& pool);

}  // namespace gpuadvise
