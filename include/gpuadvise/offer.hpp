// Providers and their offers: what can be rented, where, at which prices.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/commitment.hpp"

namespace gpuadvise {

// Where a piece of catalog data came from, for diagnostics (1-based; 0 = unknown).
struct SourceLocation {
    std::string file;
    int line = 0;
    int column = 0;

    bool operator==(const SourceLocation&) const = default;
};

enum class Plan { on_demand, reserved, spot };

const char* to_string(Plan p);  // "on_demand", "reserved", "spot"

struct Provider {
    std::string id;        // "aws", "provider-c"
    std::string name;      // display name
    std::string currency;  // ISO 4217 code of its prices
    std::string kind;      // "example" (from the source document), "public", or "placeholder" (prices
                           // that are not real quotes: listed, never recommended)
    std::optional<double> network_gbps;  // between nodes
    bool rdma = false;
    std::optional<double> rdma_gbps;
    std::vector<std::string> images;    // preinstalled images: "pytorch", "cuda"
    std::vector<std::string> features;  // free text: "free data migration"
    std::optional<std::string> driver_version;  // host driver when known
    std::string as_of;
    std::string source;
    SourceLocation where;

    bool operator==(const Provider&) const = default;
};

// One rentable configuration: provider x GPU x count x region. Prices are for the whole offer
// (all its GPUs) in the offer's currency; nullopt where that plan does not exist.
struct Offer {
    std::string provider;
    std::string gpu;  // canonical GPU id
    int gpu_count = 1;
    std::string region;
    std::string instance_type;
    std::string currency = "USD";
    std::optional<double> on_demand_per_hour;
    std::optional<double> reserved_per_month;
    std::optional<double> spot_per_hour;
    std::optional<double> vcpus;
    std::optional<double> ram_gb;
    std::optional<double> local_disk_gb;
    std::string as_of;   // ISO date of the prices
    std::string source;
    std::vector<std::string> notes;  // e.g. "GPU-only price: host VM not included"
    SourceLocation where;
    std::vector<Commitment> commitments;  // 1-month, 1-year, 3-year … plans (reserved_per_month is one of 1 month)

    std::optional<double> price(Plan p) const;
    bool operator==(const Offer&) const = default;
};

}  // namespace gpuadvise
