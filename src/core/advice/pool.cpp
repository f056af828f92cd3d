// plan_pools(): each job's candidates (recommend's engine), the offers they share, and the pool's
// committed instances sized on a week of hourly demand.
#include "gpuadvise/advice/pool.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <unordered_map>

#include "gpuadvise/advice/evaluate.hpp"
#include "gpuadvise/base/format.hpp"
#include "gpuadvise/base/text.hpp"
#include "recommend_candidates.hpp"

namespace gpuadvise {

int WeekSchedule::slots() const { return static_cast<int>(std::count(on.begin(), on.end(), true)); }

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out(1);
    for (char c : s)
        if (c == sep)
            out.emplace_back();
        else
            out.back() += c;
    return out;
}

bool parse_hour(std::string_view s, int& out) {
    s = trim(s);
    if (s.empty() || s.size() > 2 ||
        !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
    out = std::stoi(std::string(s));
    return out <= 24;
}

}  // namespace

std::optional<WeekSchedule> parse_schedule(std::string_view hours, std::string_view days,
                                           ScheduleError* error) {
    auto fail = [&](std::string why,
                    ScheduleError::Field field = ScheduleError::Field::hours) -> std::optional<WeekSchedule> {
        if (error) *error = {field, std::move(why)};
        return std::nullopt;
    };
    std::array<bool, 24> day{};
    const std::string h = to_lower(trim(hours));
    if (h == "any" || h.empty())
        day.fill(true);
    else if (h == "day")
        for (int i = 8; i < 20; ++i) day[static_cast<std::size_t>(i)] = true;
    else if (h == "night")
        for (int i = 0; i < 24; ++i) day[static_cast<std::size_t>(i)] = i < 8 || i >= 20;
    else {
        for (const std::string& part : split(h, ',')) {
            const auto dash = part.find('-');
            int from = 0, to = 0;
            if (dash == std::string::npos || !parse_hour(std::string_view(part).substr(0, dash), from) ||
                !parse_hour(std::string_view(part).substr(dash + 1), to) || from == 24 || from == to)
                return fail("'" + part +
                            "' is not an hour range; use FROM-TO in whole hours 0-24 (e.g. 8-18, 22-6), or "
                            "any, day, night");
            for (int i = from; i != to; i = (i + 1) % 24) {
                day[static_cast<std::size_t>(i)] = true;
                if (to == 24 && i == 23) break;
            }
        }
    }
    const std::string d = to_lower(trim(days));
    int first_day = 0, last_day = 7;
    if (d == "weekdays")
        last_day = 5;
    else if (d == "weekend")
        first_day = 5;
    else if (!(d.empty() || d == "all"))
        return fail("'" + std::string(days) + "' is not a set of days; use all, weekdays or weekend",
                    ScheduleError::Field::days);
    WeekSchedule s;
    for (int k = first_day; k < last_day; ++k)
        for (int i = 0; i < 24; ++i)
            s.on[static_cast<std::size_t>(k * 24 + i)] = day[static_cast<std::size_t>(i)];
    if (s.slots() == 0) return fail("the schedule has no hour to run in");
    s.text = h.empty() ? "any" : h;
    if (d == "weekdays" || d == "weekend") s.text += " " + d;
    return s;
}

PoolSizing size_pool(const WeekDemand& demand, std::optional<double> committed_price,
                     std::optional<double> overflow_price) {
    PoolSizing out;
    for (double d : demand) {
        out.peak_instances = std::max(out.peak_instances, d);
        out.demand_hours_per_week += d;
    }
    // The week's demand as its distinct hourly values and how many hours have each: a job's demand
    // is one value over its schedule's hours and 0 elsewhere, so a sizing is a few terms, not 168
    // (plan sizes every job alone on every offer it can run on: 10,000 jobs x 1,000 offers).
    std::array<double, kWeekSlots> value{};
    std::array<int, kWeekSlots> hours{};
    std::size_t distinct = 0;
    for (double d : demand) {
        std::size_t j = 0;
        while (j < distinct && value[j] != d) ++j;
        if (j == distinct) value[distinct++] = d;
        ++hours[j];
    }
    auto evaluate = [&](int n) {
        PoolSizing s = out;
        s.committed_instances = n;
        s.served_hours_per_week = 0;
        for (std::size_t j = 0; j < distinct; ++j)
            s.served_hours_per_week += hours[j] * std::min(value[j], static_cast<double>(n));
        s.overflow_hours_per_week = std::max(0.0, s.demand_hours_per_week - s.served_hours_per_week);
        s.utilisation = slot_utilisation(s.served_hours_per_week, n);
        s.committed_cost_per_month = n * committed_price.value_or(0);
        s.overflow_cost_per_month = s.overflow_hours_per_week * overflow_price.value_or(0) * kWeeksPerMonth;
        s.cost_per_month = s.committed_cost_per_month + s.overflow_cost_per_month;
        return s;
    };
    // plan_pools keeps the peak of a job at kMaxPoolInstances; a caller beyond INT_MAX is clamped.
    const int cover = static_cast<int>(
        std::min(std::ceil(out.peak_instances - 1e-9), double(std::numeric_limits<int>::max())));
    if (!overflow_price) return evaluate(committed_price ? cover : 0);
    if (!committed_price) return evaluate(0);
    // The cost is convex and piecewise linear in N, with its kinks at the hours' demands: between two
    // neighbouring candidates (0, the floor and ceiling of each distinct demand, the cover) it is
    // linear, so its least value over the integers is at a candidate. At most 2 x 168 + 2 evaluations
    // instead of one per instance up to the peak (a peak of 250,000 instances took 20 s).
    std::vector<int> candidates{0, cover};
    for (std::size_t j = 0; j < distinct; ++j)
        for (double n : {std::floor(value[j]), std::ceil(value[j])})
            if (n > 0 && n < cover) candidates.push_back(static_cast<int>(n));
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    PoolSizing best = evaluate(0);
    for (int n : candidates) {
        if (n == 0) continue;
        PoolSizing s = evaluate(n);
        if (s.cost_per_month < best.cost_per_month - 1e-9) best = s;  // ties: fewer commitments
    }
    return best;
}

namespace {

// The most instances one job may keep busy at once on an offer in a plan (docs/plan.md, "Bounds"):
// far above any cloud's GPU fleet, and small enough for the sizing's int counts.
constexpr double kMaxPoolInstances = 1e6;

// What one job needs on one offer.
struct JobOnOffer {
    int instances = 1;
    int gpu_count = 1;
    double hours_per_run = 0;
};

struct JobOptions {
    // (index of the offer in catalog.offers, what the job needs on it), by index: 24 bytes an offer
    // (an unordered_map of pointers was about 64, and 10,000 jobs keep theirs at once).
    std::vector<std::pair<std::size_t, JobOnOffer>> by_offer;
    Constraint binding = Constraint::filters;
    std::string nearest_miss;

    const JobOnOffer* on(std::size_t offer) const {
        const auto it = std::lower_bound(by_offer.begin(), by_offer.end(), offer,
                                         [](const auto& x, std::size_t i) { return x.first < i; });
        return it != by_offer.end() && it->first == offer ? &it->second : nullptr;
    }
};

JobOptions job_options(const Catalog& catalog, const PoolJob& job) {
    RecommendRequest r = job.request;
    r.budget_monthly.reset();  // a pool's cost is the pool's, not one job's
    const Evaluation evaluation = evaluate(catalog, r);
    JobOptions out;
    std::string too_busy;  // the first offer left out for needing more than kMaxPoolInstances at once
    for (const auto& o : evaluation.options)
        if (o.in_filter) {
            const double hours = o.hours_per_run;
            // The fewest instances the job keeps busy at once on this offer (its weekly instance-hours
            // over the hours its schedule allows); a job past the bound is not sized on the offer.
            const double peak = o.instances * job.request.runs_per_week * hours / job.schedule.slots();
            if (!(peak <= kMaxPoolInstances)) {
                if (too_busy.empty())
                    too_busy = o.offer->provider + " " + o.offer->gpu + " x" +
                               std::to_string(o.offer->gpu_count) + ": the job keeps " + format_count(peak) +
                               " instances busy at once (" + std::to_string(o.instances) + " per run x " +
                               format_number(job.request.runs_per_week) + " runs a week x " +
                               format_duration(hours) + " a run over " +
                               std::to_string(job.schedule.slots()) + " schedule hours), more than the " +
                               format_count(kMaxPoolInstances) +
                               " a plan sizes; fewer runs a week or shorter runs";
                continue;
            }
            out.by_offer.push_back({static_cast<std::size_t>(o.offer - catalog.offers.data()),
                                    {o.instances, o.gpu_count, hours}});
        }
    std::sort(out.by_offer.begin(), out.by_offer.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    // An offer listed twice by the evaluation (it should not be) counts once.
    out.by_offer.erase(std::unique(out.by_offer.begin(), out.by_offer.end(),
                                   [](const auto& a, const auto& b) { return a.first == b.first; }),
                       out.by_offer.end());
    out.by_offer.shrink_to_fit();
    if (out.by_offer.empty() && !too_busy.empty()) {
        out.binding = Constraint::scaling;
        out.nearest_miss = too_busy;
    } else if (out.by_offer.empty()) {
        out.binding = evaluation.nothing.binding;
        out.nearest_miss = evaluation.nothing.nearest_miss;
    }
    return out;
}

WeekDemand spread(const WeekSchedule& s, double instance_hours_per_week) {
    WeekDemand d{};
    const double per_slot = instance_hours_per_week / s.slots();
    for (std::size_t i = 0; i < d.size(); ++i)
        if (s.on[i]) d[i] = per_slot;
    return d;
}

// The members of a pool: each job and its options, jobs that share their options in one group
// (sized once per offer: 10,000 jobs of one workload are one sizing, not 10,000 copies).
struct Members {
    std::vector<const PoolJob*> jobs;
    std::vector<std::size_t> group;          // jobs[i]'s index in options
    std::vector<const JobOptions*> options;  // one per group
};

// The pool on one offer, its jobs not yet listed (per_group and the members give them: finish());
// nullopt when the offer has no price that can carry the overflow or commitment.
struct OfferPool {
    PoolPlan plan;
    std::vector<PoolJobPlan> per_group;  // the sizing of each group's jobs (job: the group's first)
};

std::optional<OfferPool> plan_on_offer(const Catalog& catalog, const Offer& offer, const Members& m,
                                       const std::string& currency) {
    OfferPool out;
    PoolPlan& p = out.plan;
    p.offer = &offer;
    p.gpu = catalog.find_gpu(offer.gpu);
    if (const Commitment* k = cheapest_commitment(offer, 0)) {
        p.committed_price_per_month = catalog.convert(k->price_per_month, offer.currency, currency);
        p.term_months = k->term_months;
    } else if (offer.reserved_per_month && *offer.reserved_per_month > 0) {
        p.committed_price_per_month = catalog.convert(*offer.reserved_per_month, offer.currency, currency);
        p.term_months = 1;
    }
    if (!p.committed_price_per_month) p.term_months = 0;
    if (offer.on_demand_per_hour && *offer.on_demand_per_hour > 0)
        p.on_demand_per_hour = catalog.convert(*offer.on_demand_per_hour, offer.currency, currency);
    p.overflow_price_per_hour = p.on_demand_per_hour;
    const bool all_interruptible =
        std::all_of(m.jobs.begin(), m.jobs.end(), [](const PoolJob* j) { return j->request.interruptible; });
    if (all_interruptible && offer.spot_per_hour && *offer.spot_per_hour > 0) {
        if (auto spot = catalog.convert(*offer.spot_per_hour, offer.currency, currency)) {
            // The most work any of the jobs loses to interruptions (each job's checkpoint interval).
            double overhead = 0;
            for (const PoolJob* j : m.jobs)
                overhead = std::max(overhead, spot_overhead_fraction(spot_assumptions(catalog, j->request)));
            const double effective = *spot * (1 + overhead);
            if (!p.overflow_price_per_hour || effective < *p.overflow_price_per_hour) {
                p.overflow_price_per_hour = effective;
                p.overflow_plan = Plan::spot;
                p.spot_overhead = overhead;
            }
        }
    }
    if (!p.overflow_price_per_hour && !p.committed_price_per_month) return std::nullopt;
    const std::size_t index = static_cast<std::size_t>(&offer - catalog.offers.data());
    out.per_group.resize(m.options.size());
    std::vector<bool> sized(m.options.size(), false);
    WeekDemand total{};
    for (std::size_t i = 0; i < m.jobs.size(); ++i) {
        PoolJobPlan& jp = out.per_group[m.group[i]];
        if (!sized[m.group[i]]) {
            sized[m.group[i]] = true;
            const JobOnOffer& x = *m.options[m.group[i]]->on(index);
            jp.job = m.jobs[i];
            jp.instances = x.instances;
            jp.gpu_count = x.gpu_count;
            jp.hours_per_run = x.hours_per_run;
            jp.instance_hours_per_week = x.instances * m.jobs[i]->request.runs_per_week * x.hours_per_run;
            jp.demand = spread(m.jobs[i]->schedule, jp.instance_hours_per_week);
            jp.feasible_offers = m.options[m.group[i]]->by_offer.size();
        }
        for (std::size_t s = 0; s < total.size(); ++s) total[s] += jp.demand[s];  // job by job, in order
    }
    p.pooled = size_pool(total, p.committed_price_per_month, p.overflow_price_per_hour);
    return out;
}

// The plan of the chosen offer, with a line per job: each job sized alone and on committed
// instances of its own (only here: the offer is chosen on the pooled cost, and sizing every job
// alone on every offer was most of a plan's time).
PoolPlan finish(OfferPool&& chosen, const Members& m) {
    PoolPlan p = std::move(chosen.plan);
    for (PoolJobPlan& jp : chosen.per_group) {
        jp.alone = size_pool(jp.demand, p.committed_price_per_month, p.overflow_price_per_hour);
        if (p.committed_price_per_month)
            jp.dedicated = size_pool(jp.demand, p.committed_price_per_month, std::nullopt);
    }
    double dedicated_busy = 0;
    p.jobs.reserve(m.jobs.size());
    for (std::size_t i = 0; i < m.jobs.size(); ++i) {  // summed job by job, in the jobs' order
        const PoolJobPlan& jp = chosen.per_group[m.group[i]];
        if (p.committed_price_per_month) {
            p.dedicated_instances += jp.dedicated.committed_instances;
            p.dedicated_cost_per_month += jp.dedicated.cost_per_month;
            dedicated_busy += jp.dedicated.served_hours_per_week;
        }
        p.alone_committed_instances += jp.alone.committed_instances;
        p.alone_cost_per_month += jp.alone.cost_per_month;
        p.jobs.push_back(jp);
        p.jobs.back().job = m.jobs[i];
    }
    p.dedicated_utilisation = slot_utilisation(dedicated_busy, p.dedicated_instances);
    p.saving_per_month = p.alone_cost_per_month - p.pooled.cost_per_month;
    // Below a cent the two plans cost the same; the difference is the order of the sums ("-0 USD").
    if (std::abs(p.saving_per_month) < 0.005) p.saving_per_month = 0;
    if (p.alone_cost_per_month > 0) p.saving_fraction = p.saving_per_month / p.alone_cost_per_month;
    return p;
}

}  // namespace

PoolResult plan_pools(const Catalog& catalog, const std::vector<PoolJob>& jobs) {
    PoolResult result;
    std::vector<std::string> names;
    for (const auto& j : jobs)
        if (std::find(names.begin(), names.end(), j.pool) == names.end()) names.push_back(j.pool);
    // Each job's options, once per distinct workload: 10,000 jobs of a few kinds cost a few evaluations.
    std::vector<JobOptions> distinct;
    distinct.reserve(jobs.size());
    std::vector<std::size_t> options_of(jobs.size());
    std::unordered_map<std::string_view, std::size_t> by_key;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        if (!jobs[i].options_key.empty()) {
            const auto [it, added] = by_key.try_emplace(jobs[i].options_key, distinct.size());
            if (!added) {
                options_of[i] = it->second;
                continue;
            }
        }
        options_of[i] = distinct.size();
        distinct.push_back(job_options(catalog, jobs[i]));
    }
    for (const auto& name : names) {
        Members m;
        std::vector<std::size_t> group_of(distinct.size(), distinct.size());  // distinct → m.options
        for (std::size_t i = 0; i < jobs.size(); ++i)
            if (jobs[i].pool == name) {
                std::size_t& g = group_of[options_of[i]];
                if (g == distinct.size()) {
                    g = m.options.size();
                    m.options.push_back(&distinct[options_of[i]]);
                }
                m.jobs.push_back(&jobs[i]);
                m.group.push_back(g);
            }
        PoolPlan none;
        none.name = name;
        for (std::size_t i = 0; i < m.jobs.size() && none.why.empty(); ++i) {
            const JobOptions& o = *m.options[m.group[i]];
            if (o.by_offer.empty())
                none.why = "job '" + m.jobs[i]->name +
                           "' fits no offer (binding constraint: " + to_string(o.binding) + "; " +
                           o.nearest_miss + ")";
        }
        std::optional<OfferPool> best;
        std::size_t common = 0;
        if (none.why.empty())
            for (std::size_t k = 0; k < catalog.offers.size(); ++k) {  // catalog order: ties go to the first
                const Offer& offer = catalog.offers[k];
                if (!std::all_of(m.options.begin(), m.options.end(),
                                 [&](const JobOptions* o) { return o->on(k) != nullptr; }))
                    continue;
                ++common;
                auto p = plan_on_offer(catalog, offer, m, m.jobs.front()->request.currency);
                if (p && (!best || p->plan.pooled.cost_per_month < best->plan.pooled.cost_per_month - 1e-9))
                    best = std::move(p);
            }
        if (best) {
            PoolPlan chosen = finish(std::move(*best), m);
            chosen.name = name;
            chosen.common_offers = common;
            result.pools.push_back(std::move(chosen));
            continue;
        }
        if (none.why.empty())
            none.why =
                common == 0
                    ? "no offer can run every job of the pool (each job's gpu and constraints); give jobs "
                      "that need different GPUs their own 'pool:'"
                    : "the offers every job can run on have no usable price";
        for (std::size_t i = 0; i < m.jobs.size(); ++i) {
            PoolJobPlan jp;
            jp.job = m.jobs[i];
            jp.feasible_offers = m.options[m.group[i]]->by_offer.size();
            none.jobs.push_back(jp);
        }
        result.pools.push_back(std::move(none));
    }
    result.assumptions = {
        "the week is 168 hourly slots; each job's instance-hours (instances x runs a week x billed hours per "
        "run) are "
        "spread evenly over the hours its schedule allows, so the pool is sized on the peak and shape of the "
        "summed "
        "demand, not the sum of the jobs' peaks (a scheduler such as Kubernetes queues runs into free "
        "instances)",
        "a committed instance costs its cheapest commitment's monthly price whether busy or not; demand "
        "above the "
        "committed instances runs on demand (on spot where every job of the pool is interruptible and spot "
        "is cheaper, "
        "with the largest spot overhead of its jobs)",
        "a month is 52/12 weeks; each job alone is sized the same way on the same offer (its own committed "
        "instances, "
        "or none when on-demand is cheaper)",
    };
    return result;
}

std::optional<double> slot_utilisation(double served_hours_per_week, int instances) {
    if (instances <= 0) return std::nullopt;
    return served_hours_per_week / (instances * static_cast<double>(kWeekSlots));
}

PoolSizing alone_total(const PoolPlan& pool) {
    PoolSizing total;
    for (const auto& job : pool.jobs) {
        total.committed_instances += job.alone.committed_instances;
        total.demand_hours_per_week += job.alone.demand_hours_per_week;
        total.served_hours_per_week += job.alone.served_hours_per_week;
        total.overflow_hours_per_week += job.alone.overflow_hours_per_week;
        total.committed_cost_per_month += job.alone.committed_cost_per_month;
        total.overflow_cost_per_month += job.alone.overflow_cost_per_month;
        total.cost_per_month += job.alone.cost_per_month;
    }
    total.utilisation = slot_utilisation(total.served_hours_per_week, total.committed_instances);
    return total;
}

}  // namespace gpuadvise
