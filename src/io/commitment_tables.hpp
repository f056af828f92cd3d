// Commitment price tables: files that carry 1-year / 3-year / reserved prices for a provider's
// machines, attached to its offers after every offer table is read (docs/catalog.md):
// - `gcp-pricing`: Cyclenerd's google-cloud-pricing-cost-calculator `pricing.yml` (the upstream
//   format, whole or cut down to the GPU machine types): per machine type and region `hour`,
//   `hour_spot`, `month`, `month_1y`, `month_3y`, `month_spot`.
// - `commitments-csv`: one row per published reserved price (data/commitments/hyperstack-reserved.csv).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuadvise/catalog/catalog.hpp"
#include "io/table_ref.hpp"

namespace gpuadvise::io {

bool is_commitment_table_format(std::string_view format);

// One machine type in one region of a GCP price file.
struct GcpMachinePrice {
    std::string machine_type;  // "a2-highgpu-1g"
    std::string gpu_key;       // "a100", "a100-80gb", "h100-80gb", "h100-80gb-mega", "l4", "rtx6000"
    double gpu_count = 0;      // may be fractional upstream (g4-standard-6: 0.125)
    std::optional<double> vcpus, ram_gib;
    std::string region;
    std::optional<double> hour, hour_spot, month, month_1y, month_3y, month_spot;  // USD
    int line = 0;
};

struct GcpPriceList {
    std::string generated;                  // the file's about.generated, e.g. "Thu Jul 30 06:13:17 2026"
    std::string as_of;                      // the same as an ISO date ("" when it cannot be read)
    std::string url;                        // about.url
    std::vector<GcpMachinePrice> machines;  // machine types with a GPU key, in file order
    std::size_t invalid_prices = 0;         // prices present but not a number >= 0 (each a warning)
};

// Reads the text of a pricing.yml (upstream or cut down). Problems go to diags, located in `origin`.
// Used by the table loader and by `catalog update` to refresh the file.
GcpPriceList read_gcp_pricing(std::string_view text, const std::string& origin, Diagnostics& diags);

// Reads a commitment table into offers appended to catalog.offers ("donors": attach_commitments
// merges them into the provider's matching offers, or keeps them as offers of their own).
void load_commitment_table(const TableRef& ref, std::string_view bytes, Catalog& catalog, Diagnostics& diags);

// Merges the donor offers in [begin, end) of each range (with the table's format) into the other
// offers of their provider: gcp-pricing by machine type + region (unmatched machines stay as offers
// with complete prices); commitments-csv by GPU (and instance-type text), always removed.
struct DonorRange {
    std::string format;
    std::string file;  // display name, for the skip counts
    std::size_t begin = 0, end = 0;
};
void attach_commitments(Catalog& catalog, const std::vector<DonorRange>& ranges);

}  // namespace gpuadvise::io
