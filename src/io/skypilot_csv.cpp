// SkyPilot vms.csv tables.
#include "io/offer_tables.hpp"

namespace gpuadvise::io {

bool looks_like_skypilot_csv(std::string_view bytes) {
    std::string_view first = bytes.substr(0, bytes.find('\n'));
    return first.find("InstanceType") != std::string_view::npos &&
           first.find("AcceleratorName") != std::string_view::npos;
}

void load_offer_table(const TableRef& ref, std::string_view, Catalog&, Diagnostics& diags) {
    diags.error(ref.where, "tables: reading SkyPilot tables is not implemented yet");
}

}  // namespace gpuadvise::io
