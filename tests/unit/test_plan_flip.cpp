// plan_flip (plan_flip.cpp) searches the options from the lowest bound on their crossing up (each
// commitment's month has a floor), each cut off at the best crossing so far. That may not change the
// answer: it is checked against the plain search, every option's crossing worked out on its own
// (commitment_beats_at without a cut-off), the smallest kept, of equal ones the first.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/advice/recommend_candidates.hpp"
#include "engine_catalog.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_plan_flip {

using namespace gpuadvise;
using namespace enginetest;

namespace {

Commitment commitment(int term, double per_month) {
    Commitment k;
    k.term_months = term;
    k.price_per_month = per_month;
    return k;
}

// Offers of slow and fast GPUs with commitments of two terms, against a fast GPU to rent otherwise, at
// run lengths from a few hours to a week's. The offer with the first crossing (2) has a copy in another
// region, listed after offers whose bounds lie above it: of the two equal crossings the first must win.
Catalog flip_catalog() {
    Catalog c = base_catalog();
    std::vector<Offer> offers;
    const char* gpu[] = {"t4", "v100", "t4", "a100", "v100", "a100"};
    const double od[] = {0.6, 1.4, 0.5, 2.0, 1.2, 2.2};
    const double month[] = {150, 420, 130, 600, 380, 640};
    for (int i = 0; i < 6; ++i) {
        Offer o = make_offer("p", gpu[i], 1, {od[i], {}, {}}, "r" + std::to_string(i));
        o.commitments = {commitment(12, month[i]), commitment(36, 0.8 * month[i])};
        offers.push_back(o);
    }
    Offer copy = offers[2];
    copy.region = "r6";
    offers.push_back(copy);
    offers.push_back(make_offer("p", "h100", 1, {2.5, {}, {}}, "r9"));  // the one to rent otherwise
    add(c, make_provider("p"), offers);
    return c;
}

}  // namespace

TEST_CASE("plan_flip finds the smallest crossing that searching every option finds", "[core]") {
    const Catalog c = flip_catalog();
    for (double hours : {2.0, 10.0, 40.0}) {
        for (const char* model : {"midnet", "bignet"}) {
            RecommendRequest r = request(c, model, 2, hours, "h100");
            INFO(model << " " << hours << " h on h100");
            detail::EstimateCache estimates(c, r.workload);
            const detail::CandidatePool pool = detail::build_candidates(c, r, estimates);
            const auto against = detail::otherwise_rent(c, r, pool.options);
            REQUIRE(against);
            std::optional<double> best;
            std::size_t best_index = 0;
            for (std::size_t i = 0; i < pool.options.size(); ++i) {
                if (!pool.options[i].in_filter) continue;
                const auto x = detail::commitment_beats_at(c, r, pool.options[i], *against);
                if (x && (!best || *x < *best - 1e-12)) {
                    best = x;
                    best_index = i;
                }
            }
            const auto flip = detail::plan_flip(c, r, pool.options, against);
            REQUIRE(flip.has_value() == best.has_value());
            if (!best) continue;
            CHECK(flip->runs_per_week == Approx(*best).epsilon(1e-12));
            CHECK(flip->reserved == &pool.options[best_index]);
        }
    }
}

}  // namespace unit_test_plan_flip
