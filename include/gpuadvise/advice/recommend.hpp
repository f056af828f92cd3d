// recommend and --what-if: the four-step analysis and the cost model over the catalog, for one
// job (the request and result types are in recommendation.hpp).
#pragma once

#include <memory>

#include "gpuadvise/advice/recommendation.hpp"

namespace gpuadvise {

namespace detail {
struct WhatIfBasis;
}
// What recommend sized for a request (the offers that can run the job, their layouts and estimates),
// kept when asked so that --what-if and the HTML report's charts over the same request re-cost these
// candidates instead of sizing the catalog again. Opaque outside the engine.
struct RecommendBasis {
    std::shared_ptr<detail::WhatIfBasis> state;
};

// `keep`: also keeps the basis for what_if_runs_per_week / what_if_requests_per_day of this request.
Recommendation recommend(const Catalog& catalog, const RecommendRequest& request,
                         RecommendBasis* keep = nullptr);

// --what-if runs-per-week=FROM:TO[:STEP]: the best option of each plan (lowest monthly cost, the
// request's constraints and filters) at each point, and where the cheapest plan changes.
struct WhatIfBest {
    std::string provider, gpu, instance_type, region;
    int gpu_count = 0;
    int term_months = 0;  // reserved only
    double cost_per_month = 0;
};
struct WhatIfPoint {
    double runs_per_week = 0;
    std::optional<WhatIfBest> on_demand, reserved, spot;
    std::vector<WhatIfBest>
        reserved_by_term;  // by_term: the best option of each commitment term, shortest first
};
struct WhatIfCrossover {
    double runs_per_week = 0;  // the point where the two plans cost the same (refined between grid points)
    Plan from = Plan::on_demand, to = Plan::reserved;  // cheapest below, cheapest above
};
struct WhatIf {
    std::vector<WhatIfPoint> points;
    std::vector<WhatIfCrossover> crossovers;
};
// --what-if requests-per-day=FROM:TO (an online service): the cheapest option a month, over every
// plan, at traffic points 1-2-5 per decade from FROM to TO, and where the choice changes.
struct ServiceWhatIfPoint {
    double requests_per_day = 0;
    std::optional<WhatIfBest> best;
    Plan plan = Plan::on_demand;
    int replicas = 0;
    double utilisation = 0;
    std::optional<double> cost_per_million_tokens;
};
struct ServiceWhatIf {
    std::vector<ServiceWhatIfPoint> points;
};
// `basis`: recommend's, kept for this same request (nullptr: the catalog is sized here).
ServiceWhatIf what_if_requests_per_day(const Catalog& catalog, const RecommendRequest& request, double from,
                                       double to, const RecommendBasis* basis = nullptr);
// by_term (the HTML report's plan chart): also the best option of each commitment term in the catalog.
WhatIf what_if_runs_per_week(const Catalog& catalog, const RecommendRequest& request, double from, double to,
                             double step, bool by_term = false, const RecommendBasis* basis = nullptr);

}  // namespace gpuadvise
