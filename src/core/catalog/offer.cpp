#include "gpuadvise/catalog/offer.hpp"

namespace gpuadvise {

const char* to_string(Plan p) { return kPlanNames.name(p).data(); }  // the table's literals end in a NUL

std::optional<double> Offer::price(Plan p) const {
    switch (p) {
        case Plan::on_demand: return on_demand_per_hour;
        case Plan::reserved: return reserved_per_month;
        case Plan::spot: return spot_per_hour;
    }
    return std::nullopt;
}

}  // namespace gpuadvise
