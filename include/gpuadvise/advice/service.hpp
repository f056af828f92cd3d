// An online service (--task serve): its traffic, its schedule, and the replicas that carry its
// peak under the latency targets (docs/methodology.md, "Serving as a service").
#pragma once

#include <optional>

#include "gpuadvise/model/configuration.hpp"

namespace gpuadvise {

// Peak traffic over the mean of the hours the service is up, when only a daily or monthly volume
// is given: a stated assumption, not taken from a published trace (a service's busiest hour is
// commonly a few times its mean; --peak-factor gives the user's own; docs/methodology.md).
inline constexpr double kDefaultPeakFactor = 3;

// What the service must carry. One of requests_per_day, tokens_per_month (output tokens) or
// peak_rps gives the traffic; the others follow from it and the output length.
struct ServiceTraffic {
    std::optional<double> requests_per_day, tokens_per_month, peak_rps;
    std::optional<double> peak_factor;  // peak / mean; nullopt = kDefaultPeakFactor (not with peak_rps)
    double hours_per_day = 24;          // hours a day the replicas are up (--hours-per-day)
    int min_replicas = 1;
};

// The traffic in requests per second: the mean over the hours up, and the peak.
struct ServiceLoad {
    double mean_rps = 0, peak_rps = 0;
    double requests_per_month = 0, output_tokens_per_month = 0;
    double peak_factor = kDefaultPeakFactor;
};
ServiceLoad service_load(const ServiceTraffic& traffic, int output_len);

// The replicas of one configuration that carry the peak: `groups` copies of the configuration
// (each `replicas_per_group` replicas, its data ranks), at least min_replicas replicas.
struct ServiceSizing {
    int replicas = 1;        // replicas running (groups x replicas per group)
    int groups = 1;          // copies of the configuration rented
    double utilisation = 0;  // the peak's share of the replicas' capacity
    double peak_rps = 0;
    double hours_per_month = 0;  // hours each rented instance is up
    // The month's cost over the output tokens it serves at the real load (not at full load);
    // nullopt when the traffic states no tokens. Set once the plan is priced.
    std::optional<double> cost_per_million_tokens;
};
ServiceSizing size_service(const ServiceTraffic& traffic, const ServiceLoad& load,
                           const ServingEstimate& group);

}  // namespace gpuadvise
