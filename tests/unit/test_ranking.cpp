// Ranking on in-memory catalogs: which offer the user sees first, how ties and regions are shown,
// each objective's order and the Pareto front (time vs cost).
#include <catch2/catch.hpp>

#include <cmath>

#include "core/advice/recommend_candidates.hpp"
#include "engine_catalog.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_ranking {

using namespace enginetest;

namespace {

// Three providers sell the same A100 at different prices; the run takes 2 h (measured on it).
Catalog three_prices() {
    Catalog c = base_catalog();
    add(c, make_provider("p-mid"), {make_offer("p-mid", "a100", 1, {2.0, {}, {}})});
    add(c, make_provider("p-cheap"), {make_offer("p-cheap", "a100", 1, {1.5, {}, {}})});
    add(c, make_provider("p-dear"), {make_offer("p-dear", "a100", 1, {3.0, {}, {}})});
    return c;
}

}  // namespace

TEST_CASE("ranking: the cheapest offer comes first, with its cost per run and per month", "[core]") {
    Catalog c = three_prices();
    auto r = recommend(c, request(c, "midnet", 3, 2.0, "a100"));
    REQUIRE(r.ranked.size() == 3);
    CHECK(ranked_names(r) ==
          std::vector<std::string>{"p-cheap/a100 x1@r1", "p-mid/a100 x1@r1", "p-dear/a100 x1@r1"});
    const auto& top = r.ranked[0];
    CHECK(top.rank == 1);
    CHECK(top.cost.plan == Plan::on_demand);
    CHECK(top.cost.hours_per_run == Approx(2.0));
    CHECK(top.cost.cost_per_run == Approx(3.0));                  // 2 h x 1.50
    CHECK(top.cost.cost_per_month == Approx(3.0 * 3 * 52 / 12));  // 3 runs a week
    CHECK(r.feasible == 3);
}

TEST_CASE("ranking: --top keeps the best N, the feasible count keeps them all", "[core]") {
    Catalog c = three_prices();
    auto req = request(c, "midnet", 3, 2.0, "a100");
    req.top = 2;
    auto r = recommend(c, req);
    CHECK(ranked_names(r) == std::vector<std::string>{"p-cheap/a100 x1@r1", "p-mid/a100 x1@r1"});
    CHECK(r.feasible == 3);
}

TEST_CASE("ranking: equal cost and time are ordered by name, whatever the catalog order", "[core]") {
    for (bool zeta_first : {true, false}) {
        Catalog c = base_catalog();
        Provider zeta = make_provider("zeta"), alpha = make_provider("alpha");
        if (zeta_first) {
            add(c, zeta, {make_offer("zeta", "a100", 1, {2.0, {}, {}})});
            add(c, alpha, {make_offer("alpha", "a100", 1, {2.0, {}, {}})});
        } else {
            add(c, alpha, {make_offer("alpha", "a100", 1, {2.0, {}, {}})});
            add(c, zeta, {make_offer("zeta", "a100", 1, {2.0, {}, {}})});
        }
        auto r = recommend(c, request(c, "midnet", 1, 2.0, "a100"));
        INFO("zeta first in the catalog: " << zeta_first);
        CHECK(ranked_names(r) == std::vector<std::string>{"alpha/a100 x1@r1", "zeta/a100 x1@r1"});
    }
}

TEST_CASE("ranking: the same instance at the same price in two regions is one option", "[core]") {
    Catalog c = base_catalog();
    add(c, make_provider("p"),
        {make_offer("p", "a100", 1, {2.0, {}, {}}, "us", "a1"),
         make_offer("p", "a100", 1, {2.0, {}, {}}, "eu", "a1"),
         make_offer("p", "a100", 1, {2.5, {}, {}}, "ap", "a1")});
    add(c, make_provider("q"), {make_offer("q", "a100", 1, {2.0, {}, {}}, "sa", "a1")});
    auto r = recommend(c, request(c, "midnet", 1, 2.0, "a100"));
    // eu and us merge (eu first: the name decides between equals); q is another provider; ap another price.
    CHECK(ranked_names(r) == std::vector<std::string>{"p/a100 x1@eu", "q/a100 x1@sa", "p/a100 x1@ap"});
    CHECK(r.feasible == 3);
    CHECK(has_reason(r.ranked[0], "also in us at the same price"));
    CHECK_FALSE(has_reason(r.ranked[1], "also in"));
    CHECK_FALSE(has_reason(r.ranked[2], "also in"));
}

namespace {

// A slow cheap GPU, a fast dear one and one in between, so that each objective picks another winner.
Catalog speeds() {
    Catalog c = base_catalog();
    add(c, make_provider("p"),
        {make_offer("p", "t4", 1, {0.20, {}, {}}), make_offer("p", "a100", 1, {1.40, {}, {}}),
         make_offer("p", "h100", 1, {6.00, {}, {}})});
    return c;
}

double balanced_score(const Candidate& c, double min_cost, double min_hours) {
    return (c.cost.cost_per_month / min_cost) * (c.cost.hours_per_run / min_hours);
}

}  // namespace

TEST_CASE("ranking: each objective orders by its own key and picks its own winner", "[core]") {
    Catalog c = speeds();
    auto req = request(c, "midnet", 2);
    auto by_cost = recommend(c, req);
    req.objective = Objective::time;
    auto by_time = recommend(c, req);
    req.objective = Objective::balanced;
    auto balanced = recommend(c, req);
    REQUIRE(by_cost.ranked.size() == 3);
    REQUIRE(by_time.ranked.size() == 3);
    REQUIRE(balanced.ranked.size() == 3);

    // The estimate orders the GPUs by speed as their peak figures do.
    double t4_hours = 0, a100_hours = 0, h100_hours = 0;
    for (const auto& x : by_cost.ranked)
        (x.gpu->id == "t4" ? t4_hours : x.gpu->id == "a100" ? a100_hours : h100_hours) = x.cost.hours_per_run;
    REQUIRE(t4_hours > a100_hours);
    REQUIRE(a100_hours > h100_hours);

    for (std::size_t k = 1; k < 3; ++k) {
        CHECK(by_cost.ranked[k - 1].cost.cost_per_month <= by_cost.ranked[k].cost.cost_per_month);
        CHECK(by_time.ranked[k - 1].cost.hours_per_run <= by_time.ranked[k].cost.hours_per_run);
    }
    CHECK(by_time.ranked[0].gpu->id == "h100");
    CHECK(by_cost.ranked[0].gpu->id == "t4");

    double min_cost = 1e300, min_hours = 1e300;
    for (const auto& x : balanced.ranked) {
        min_cost = std::min(min_cost, x.cost.cost_per_month);
        min_hours = std::min(min_hours, x.cost.hours_per_run);
    }
    for (std::size_t k = 1; k < 3; ++k)
        CHECK(balanced_score(balanced.ranked[k - 1], min_cost, min_hours) <=
              balanced_score(balanced.ranked[k], min_cost, min_hours));
    // Neither the cheapest nor the fastest: the A100 balances both (prices chosen so).
    CHECK(balanced.ranked[0].gpu->id == "a100");
}

TEST_CASE("Pareto front: an option is marked when nothing is both as fast and as cheap", "[core]") {
    gpuadvise::detail::Ranking ranking;
    // (hours per run, cost per month), in ranking order.
    const std::vector<std::pair<double, double>> points{{2, 5}, {3, 5}, {2, 6}, {1, 10}, {0.5, 30}, {1, 12}};
    for (std::size_t k = 0; k < points.size(); ++k) {
        ranking.order.push_back(k);
        ranking.hours.push_back(points[k].first);
        ranking.monthly.push_back(points[k].second);
    }
    const auto marks = gpuadvise::detail::pareto_marks(ranking);
    // (3, 5) is as cheap as (2, 5) but slower; (2, 6) and (1, 12) are beaten at their own run time.
    CHECK(marks == std::vector<bool>{true, false, false, true, true, false});
}

TEST_CASE("Pareto front: recommend marks the options a user would not rule out", "[core]") {
    Catalog c = speeds();
    // A second A100, dearer than p's: as fast, costs more, so off the front.
    add(c, make_provider("q"), {make_offer("q", "a100", 1, {2.0, {}, {}})});
    auto r = recommend(c, request(c, "midnet", 2));
    REQUIRE(r.ranked.size() == 4);
    for (const auto& x : r.ranked) {
        INFO(x.offer->provider << " " << x.gpu->id);
        // q's A100 is as fast as p's and dearer: dominated. The others are each the cheapest at their speed.
        CHECK(x.pareto == !(x.offer->provider == "q"));
    }
}

}  // namespace unit_test_ranking
