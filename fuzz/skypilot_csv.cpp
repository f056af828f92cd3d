// libFuzzer target: a SkyPilot vms.csv table through the offer-table reader, against the built-in
// GPUs. The first byte picks the provider (the reader has provider-specific rules: AWS form
// factors, GCP host pricing, Verda names); the rest is the table.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.hpp"
#include "io/offer_tables.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gpuadvise;
    if (size == 0) return 0;
    static constexpr std::array<const char*, 4> kProviders{"aws", "gcp", "verda", "lambda"};
    const std::string provider = kProviders[data[0] % kProviders.size()];
    const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);

    static const Catalog gpus_only = [] {
        Catalog c;
        c.gpus = fuzz::builtin_catalog().gpus;
        return c;
    }();
    Catalog catalog = gpus_only;
    Provider p;
    p.id = provider;
    p.currency = "USD";
    catalog.providers.push_back(p);
    io::TableRef ref;
    ref.provider = provider;
    ref.format = "skypilot";
    ref.path = ref.resolved_path = "/nonexistent/fuzz.csv";
    Diagnostics diags;
    (void)io::looks_like_skypilot_csv(bytes);
    io::load_offer_table(ref, bytes, catalog, diags);
    fuzz::consume(diags);
    return 0;
}
