// recommend() on in-memory catalogs: the plan it chooses (break-even, spot), what the budget and
// the deadline remove, and what it says when nothing satisfies the request.
#include <catch2/catch.hpp>

#include "engine_catalog.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_recommend_engine {

using namespace enginetest;

namespace {

// One A100 offer: 2.00 an hour on demand, 500 a month reserved (break-even 250 h a month), 0.50 spot.
// The run takes 10 h (measured on the A100).
Catalog one_a100(Prices prices = {2.0, 500.0, 0.5}) {
    Catalog c = base_catalog();
    add(c, make_provider("p"), {make_offer("p", "a100", 1, prices)});
    return c;
}

const PlanCost* alternative(const Candidate& c, Plan plan) {
    for (const auto& a : c.alternatives)
        if (a.plan == plan) return &a;
    return nullptr;
}

}  // namespace

namespace {
std::string fmt_1(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}
}  // namespace

TEST_CASE("plan: below break-even on-demand is chosen, above it reserved", "[core]") {
    Catalog c = one_a100();
    // 10 h a run: 5.6 runs a week = 243 h a month (< 250), 6 runs = 260 h (> 250).
    auto below = recommend(c, request(c, "midnet", 5.6, 10.0, "a100"));
    REQUIRE(below.ranked.size() == 1);
    const Candidate& b = below.ranked[0];
    CHECK(b.cost.plan == Plan::on_demand);
    CHECK(b.cost.cost_per_month == Approx(2.0 * 10 * 5.6 * 52 / 12));
    const PlanCost* reserved = alternative(b, Plan::reserved);
    REQUIRE(reserved);
    REQUIRE(reserved->break_even_hours_per_month);
    CHECK(*reserved->break_even_hours_per_month == Approx(250));
    CHECK(reserved->cost_per_month == Approx(500));

    auto above = recommend(c, request(c, "midnet", 6, 10.0, "a100"));
    REQUIRE(above.ranked.size() == 1);
    const Candidate& a = above.ranked[0];
    CHECK(a.cost.plan == Plan::reserved);
    CHECK(a.cost.cost_per_month == Approx(500));
    REQUIRE(a.cost.break_even_hours_per_month);
    CHECK(*a.cost.break_even_hours_per_month == Approx(250));
    REQUIRE(alternative(a, Plan::on_demand));
    CHECK(alternative(a, Plan::on_demand)->cost_per_month == Approx(2.0 * 10 * 6 * 52 / 12));
}

TEST_CASE("plan: step 2 reports the break-even and the plan it leads to", "[core]") {
    Catalog c = one_a100();
    auto above = recommend(c, request(c, "midnet", 6, 10.0, "a100"));
    const Finding* f = finding(above, "2.break_even");
    REQUIRE(f);
    CHECK(contains(f->message, "260 h a month"));
    CHECK(contains(f->message, "breaks even at 34% of the term's hours (250 h a month per instance)"));
    CHECK(contains(f->message, "-> the commitment is cheaper"));
    auto below = recommend(c, request(c, "midnet", 1, 10.0, "a100"));
    f = finding(below, "2.break_even");
    REQUIRE(f);
    CHECK(contains(f->message, "breaks even at 34% of the term's hours (250 h a month per instance)"));
    CHECK(contains(f->message, "-> on-demand is cheaper"));
}

TEST_CASE("plan: without a reserved price the next reservable option shows the trade-off", "[core]") {
    Catalog c = base_catalog();
    add(c, make_provider("hourly"), {make_offer("hourly", "a100", 1, {1.0, {}, {}})});
    add(c, make_provider("monthly"), {make_offer("monthly", "a100", 1, {2.0, 500.0, {}})});
    auto r = recommend(c, request(c, "midnet", 1, 10.0, "a100"));
    REQUIRE(r.ranked.size() == 2);
    CHECK(r.ranked[0].offer->provider == "hourly");
    const Finding* f = finding(r, "2.break_even");
    REQUIRE(f);
    CHECK(contains(f->message, "no commitment prices known for hourly"));
    // Where a commitment would take over (#28): against what the user would otherwise rent, hourly's
    // a100 at 1.0 an hour: 500 a month over 1.0 x the run's hours, in runs a week. Against its own
    // machine on demand (2.0 an hour) it breaks even at 250 h, 250 / 10 h runs x 12 / 52 = 5.8 runs a week.
    const Finding* other = finding(r, "2.crossover");
    REQUIRE(other);
    const double run_hours = r.ranked[0].cost.billed_hours_per_run;
    const double flip = 500.0 / (1.0 * run_hours) * 12.0 / 52.0;
    REQUIRE(other->number("crossover_runs_per_week"));
    CHECK(*other->number("crossover_runs_per_week") == Approx(flip).epsilon(1e-6));
    CHECK(contains(other->message, "above " + fmt_1(flip) + " runs a week of this job"));
    INFO(other->message);
    CHECK(contains(
        other->message,
        "commitment in r1 beats the cheapest on-demand option (hourly a100 x1 a100x1, 10.00 USD a run)"));
    CHECK(contains(other->message, "against its own machine on demand it pays off above 5.8 runs a week"));
    REQUIRE(r.crossover);
    CHECK(r.crossover->against == r.ranked[0].offer);
}

TEST_CASE("plan: spot only when the job is interruptible, with the interruption overhead", "[core]") {
    Catalog c = one_a100();
    auto plain = recommend(c, request(c, "midnet", 1, 10.0, "a100"));
    REQUIRE(plain.ranked.size() == 1);
    CHECK(plain.ranked[0].cost.plan == Plan::on_demand);
    CHECK_FALSE(alternative(plain.ranked[0], Plan::spot));
    CHECK(kind_of(*finding(plain, "2.spot")) == "constraint");

    auto req = request(c, "midnet", 1, 10.0, "a100");
    req.interruptible = true;
    req.checkpoint_minutes = 30;
    auto spot = recommend(c, req);
    REQUIRE(spot.ranked.size() == 1);
    const Candidate& s = spot.ranked[0];
    CHECK(s.cost.plan == Plan::spot);
    // Default policy: 0.05 interruptions an hour, each costing 10 min restart + 15 min lost work.
    const double overhead = 0.05 * (10 + 15) / 60.0;
    REQUIRE(s.cost.spot_overhead);
    CHECK(*s.cost.spot_overhead == Approx(overhead));
    CHECK(s.cost.hours_per_run == Approx(10 * (1 + overhead)));
    CHECK(s.cost.cost_per_run == Approx(0.5 * 10 * (1 + overhead)));
    CHECK(kind_of(*finding(spot, "2.spot")) == "preference");

    // An offer with only a spot price is unusable for a job that cannot be interrupted.
    Catalog only_spot = one_a100({{}, {}, 0.5});
    auto none = recommend(only_spot, request(only_spot, "midnet", 1, 10.0, "a100"));
    CHECK(none.ranked.empty());
    REQUIRE(rejections(none, "price").size() == 1);
    CHECK(contains(rejections(none, "price")[0]->reason, "not --interruptible"));
}

TEST_CASE("plan: a deadline that spot's overhead would miss keeps on-demand", "[core]") {
    Catalog c = one_a100();
    auto req = request(c, "midnet", 1, 10.0, "a100");
    req.interruptible = true;
    req.deadline_hours = 10.1;  // spot takes 10.2 h
    req.deadline_confidence =
        DeadlineConfidence::point;  // on the estimate: the band's high end is over 10.1 h
    auto r = recommend(c, req);
    REQUIRE(r.ranked.size() == 1);
    CHECK(r.ranked[0].cost.plan == Plan::on_demand);
    REQUIRE_FALSE(r.ranked[0].warnings.empty());
    CHECK(contains(r.ranked[0].warnings.back().message, "may miss the deadline"));
}

TEST_CASE("deadline: checked on the high end of the time band by default", "[core]") {
    Catalog c = one_a100();
    auto req = request(c, "midnet", 1, 10.0, "a100");
    req.deadline_hours = 10.1;
    auto strict = recommend(c, req);
    CHECK(strict.ranked.empty());
    CHECK(strict.binding_constraint == Constraint::deadline);
    CHECK(contains(strict.nearest_miss, "high end of the time band"));
    req.deadline_hours = 1000;
    auto loose = recommend(c, req);
    REQUIRE(loose.ranked.size() == 1);
    CHECK(loose.ranked[0].hours_high <= 1000);
    CHECK(contains(loose.why_top.back(), "within the deadline"));
}

namespace {

// The same A100 run (10 h, once a week: 43.3 h a month) at three hourly prices.
Catalog three_a100s() {
    Catalog c = base_catalog();
    add(c, make_provider("cheap"), {make_offer("cheap", "a100", 1, {1.0, {}, {}})});
    add(c, make_provider("mid"), {make_offer("mid", "a100", 1, {2.0, {}, {}})});
    add(c, make_provider("dear"), {make_offer("dear", "a100", 1, {3.0, {}, {}})});
    return c;
}

}  // namespace

TEST_CASE("budget: options over the monthly budget are removed and named", "[core]") {
    Catalog c = three_a100s();
    auto req = request(c, "midnet", 1, 10.0, "a100");
    req.budget_monthly = 100;  // cheap 43.33, mid 86.67, dear 130 a month
    auto r = recommend(c, req);
    CHECK(ranked_names(r) == std::vector<std::string>{"cheap/a100 x1@r1", "mid/a100 x1@r1"});
    const auto over = rejections(r, "budget");
    REQUIRE(over.size() == 1);
    CHECK(over[0]->offer->provider == "dear");
    CHECK(contains(over[0]->reason, "130 USD a month is over the budget of 100 USD"));
}

TEST_CASE("budget: nothing fits -> the budget binds and the cheapest option is the nearest miss", "[core]") {
    Catalog c = three_a100s();
    auto req = request(c, "midnet", 1, 10.0, "a100");
    req.budget_monthly = 10;
    auto r = recommend(c, req);
    CHECK(r.ranked.empty());
    CHECK(r.feasible == 0);
    CHECK(binding_constraint(r) == "budget");
    CHECK(r.nearest_miss ==
          "cheap a100 x1 (on-demand) costs 43.33 USD a month, over the budget of 10.00 USD");
}

TEST_CASE("deadline: slower options are removed; nothing fast enough -> the fastest is the nearest miss",
          "[core]") {
    Catalog c = base_catalog();
    add(c, make_provider("p"),
        {make_offer("p", "t4", 1, {0.3, {}, {}}), make_offer("p", "a100", 1, {2.0, {}, {}})});
    auto req = request(c, "midnet", 1, 10.0, "a100");  // 10 h on the A100, longer on the T4
    req.deadline_hours = 12;
    auto r = recommend(c, req);
    CHECK(ranked_names(r) == std::vector<std::string>{"p/a100 x1@r1"});
    REQUIRE(rejections(r, "deadline").size() == 1);
    CHECK(rejections(r, "deadline")[0]->offer->gpu == "t4");

    req.deadline_hours = 5;
    auto none = recommend(c, req);
    CHECK(none.ranked.empty());
    CHECK(binding_constraint(none) == "deadline");
    CHECK(none.nearest_miss ==
          "p a100 x1 takes 11 h per run at the high end of the time band (estimate 10 h), over the deadline "
          "of 5.0 h");
}

TEST_CASE("nothing fits: memory binds when no GPU holds the model, filters when nothing matches", "[core]") {
    Catalog c = base_catalog();
    c.models.push_back(make_cnn("hugenet", 20e9, 1000));  // 320 GB of model states, data parallel only
    add(c, make_provider("p"),
        {make_offer("p", "t4", 1, {0.3, {}, {}}), make_offer("p", "a100", 8, {16.0, {}, {}})});
    auto huge = request(c, "hugenet", 1);
    huge.workload.zero_stage = 0;  // --zero 0: data parallel only, the states are not sharded
    huge.workload.zero_pinned = true;
    auto r = recommend(c, huge);
    CHECK(r.ranked.empty());
    CHECK(binding_constraint(r) == "memory");
    CHECK(contains(r.nearest_miss, "does not fit on any number of"));
    CHECK(rejections(r, "memory").size() == 2);

    auto req = request(c, "midnet", 1);
    req.providers = {"nobody"};
    auto filtered = recommend(c, req);
    CHECK(filtered.ranked.empty());
    CHECK(binding_constraint(filtered) == "filters");
}

TEST_CASE("a job that needs several GPUs rents enough of them, on one node or several", "[core]") {
    Catalog c = base_catalog();
    c.models.push_back(make_cnn("widenet", 1.5e9, 1000));  // 24 GB of model states: more than a T4 holds
    add(c, make_provider("p"),
        {make_offer("p", "t4", 1, {0.3, {}, {}}), make_offer("p", "a100", 1, {2.0, {}, {}})});
    auto wide = request(c, "widenet", 1);
    wide.workload.zero_stage = 0;  // --zero 0: data parallel only
    wide.workload.zero_pinned = true;
    auto r = recommend(c, wide);
    REQUIRE_FALSE(r.ranked.empty());
    for (const auto& x : r.ranked) {
        INFO(x.gpu->id);
        CHECK(x.estimate.memory_required_gb <= x.gpu->memory_gb);
        CHECK(x.gpu->id == "a100");  // data parallel does not shard the model states: the T4 never fits
    }
    CHECK(rejections(r, "memory").size() == 1);
}

TEST_CASE("prices in another currency are converted for ranking and shown in the request's currency",
          "[core]") {
    Catalog c = base_catalog();
    add(c, make_provider("yuan", "CNY"), {make_offer("yuan", "a100", 1, {10.0, {}, {}})});  // 1.40 USD
    add(c, make_provider("usd"), {make_offer("usd", "a100", 1, {1.5, {}, {}})});
    auto req = request(c, "midnet", 1, 2.0, "a100");
    auto r = recommend(c, req);
    REQUIRE(r.ranked.size() == 2);
    CHECK(r.ranked[0].offer->provider == "yuan");
    CHECK(r.ranked[0].cost.cost_per_run == Approx(2 * 10 * 0.14));
    req.currency = "CNY";
    auto cny = recommend(c, req);
    CHECK(cny.ranked[0].cost.cost_per_run == Approx(20));
    CHECK(cny.ranked[1].cost.cost_per_run == Approx(2 * 1.5 / 0.14));
}

TEST_CASE("network: an offer's nodes are joined by its instance family's network from the catalog",
          "[core]") {
    Catalog c = base_catalog();
    add(c, make_provider("p"),
        {make_offer("p", "h100", 8, {2.0, std::nullopt, std::nullopt}, "r1", "fab.8x")});
    c.networks = {{"p", "fab.", 400, NetworkKind::efa, "test: fab family"}};
    auto req = request(c, "midnet");
    req.nodes = 2;
    auto rdma = recommend(c, req);
    REQUIRE_FALSE(rdma.ranked.empty());
    const LinkSpec& link = rdma.ranked.front().estimate.config.network;
    CHECK(link.inter_node_gbps == Approx(400));
    CHECK(link.network_kind == NetworkKind::efa);
    CHECK(link.network_source == "test: fab family");
    CHECK_FALSE(has_warning(rdma.ranked.front(), "network"));

    // A longer prefix wins; Ethernet (not RDMA) is a slow network for multi-node training.
    c.networks.push_back({"p", "fab.8x", 50, NetworkKind::ethernet, "test: fab.8x"});
    auto tcp = recommend(c, req);
    REQUIRE_FALSE(tcp.ranked.empty());
    CHECK(tcp.ranked.front().estimate.config.network.inter_node_gbps == Approx(50));
    CHECK(tcp.ranked.front().estimate.config.network.network_kind == NetworkKind::ethernet);
    CHECK(std::any_of(tcp.ranked.front().warnings.begin(), tcp.ranked.front().warnings.end(),
                      [](const OptionWarning& w) { return w.kind == WarningKind::slow_network; }));
}

}  // namespace unit_test_recommend_engine
