#include "gpuadvise/offer.hpp"

namespace gpuadvise {

const char* to_string(Plan p) {
    switch (p) {
        case Plan::on_demand: return "on_demand";
        case Plan::reserved: return "reserved";
        case Plan::spot: return "spot";
    }
    return "on_demand";
}

std::optional<double> Offer::price(Plan p) const {
    switch (p) {
        case Plan::on_demand: return on_demand_per_hour;
        case Plan::reserved: return reserved_per_month;
        case Plan::spot: return spot_per_hour;
    }
    return std::nullopt;
}

}  // namespace gpuadvise
