// Sizing an online service (service.hpp): replicas = ceil(peak / what one replica carries at the
// concurrency that meets the targets), at least the minimum, billed for the hours they are up.
#include "gpuadvise/advice/service.hpp"

#include <algorithm>
#include <cmath>

#include "gpuadvise/base/calendar.hpp"

namespace gpuadvise {

ServiceLoad service_load(const ServiceTraffic& traffic, int output_len) {
    ServiceLoad load;
    const double seconds_up_per_day = traffic.hours_per_day * 3600.0;
    const double out = std::max(1, output_len);
    double per_day = 0;
    if (traffic.requests_per_day)
        per_day = *traffic.requests_per_day;
    else if (traffic.tokens_per_month)
        per_day = *traffic.tokens_per_month / out / kDaysPerMonth;
    if (traffic.peak_rps) {
        load.peak_rps = *traffic.peak_rps;
        if (per_day > 0) {
            load.mean_rps = per_day / seconds_up_per_day;
        } else {
            // Only the peak given: the mean follows from the peak factor (stated default).
            load.mean_rps = load.peak_rps / traffic.peak_factor.value_or(kDefaultPeakFactor);
            per_day = load.mean_rps * seconds_up_per_day;
        }
        load.peak_factor = load.mean_rps > 0 ? load.peak_rps / load.mean_rps : 1;
    } else {
        load.mean_rps = per_day / seconds_up_per_day;
        load.peak_factor = traffic.peak_factor.value_or(kDefaultPeakFactor);
        load.peak_rps = load.mean_rps * load.peak_factor;
    }
    load.requests_per_month = per_day * kDaysPerMonth;
    load.output_tokens_per_month = load.requests_per_month * out;
    return load;
}

ServiceSizing size_service(const ServiceTraffic& traffic, const ServiceLoad& load,
                           const ServingEstimate& group) {
    ServiceSizing z;
    z.peak_rps = load.peak_rps;
    const int per_group = std::max(1, group.concurrency / std::max(1, group.concurrency_per_replica));
    const double per_replica = group.requests_per_s / per_group;
    const double needed = per_replica > 0 ? std::ceil(load.peak_rps / per_replica - 1e-9) : 1;
    const int replicas = std::max(traffic.min_replicas, static_cast<int>(std::min(needed, 1e6)));
    z.groups = (replicas + per_group - 1) / per_group;
    z.replicas = z.groups * per_group;
    z.utilisation = per_replica > 0 ? load.peak_rps / (z.replicas * per_replica) : 0;
    z.hours_per_month = traffic.hours_per_day * kDaysPerMonth;
    return z;
}

}  // namespace gpuadvise
