// The SkyPilot vms.csv reader, from strings: columns by name, quoting, CRLF, GpuInfo flavours,
// GCP host + accelerator rows, variant choice by memory and form factor, price quirks, errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <random>
#include <string>

#include "io/offer_tables.hpp"
#include "io/skypilot_gpu_names.hpp"
#include "io/skypilot_records.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_skypilot_csv {

using namespace gpuadvise;

namespace {

Gpu gpu(std::string id, std::string family, double memory_gb, std::string form_factor,
        std::vector<std::string> aliases = {}) {
    Gpu g;
    g.id = std::move(id);
    g.family = std::move(family);
    g.memory_gb = memory_gb;
    g.form_factor = std::move(form_factor);
    g.aliases = std::move(aliases);
    return g;
}

Catalog gpu_catalog() {
    Catalog c;
    c.gpus = {gpu("a100-40gb-pcie", "A100", 40, "pcie"),
              gpu("a100-40gb-sxm", "A100", 40, "sxm"),
              gpu("a100-80gb-pcie", "A100", 80, "pcie", {"A100-80G-PCIe"}),
              gpu("a100-80gb-sxm", "A100", 80, "sxm"),
              gpu("h100-pcie", "H100", 80, "pcie"),
              gpu("h100-sxm", "H100", 80, "sxm", {"H100-MEGA"}),
              gpu("h100-nvl", "H100", 94, "pcie"),
              gpu("l4", "L4", 24, "pcie"),
              gpu("t4", "T4", 16, "pcie"),
              gpu("rtx-6000-ada", "RTX6000Ada", 48, "pcie", {"RTX6000-Ada"}),
              gpu("rtx-4090", "RTX4090", 24, "pcie")};
    for (const char* id : {"aws", "gcp", "cudo", "vast", "p"}) {
        Provider p;
        p.id = id;
        p.as_of = "2026-07-09";
        p.source = "test";
        c.providers.push_back(p);
    }
    return c;
}

struct Loaded {
    Catalog catalog;
    Diagnostics diags;
    std::map<std::string, long> reasons;
    std::vector<std::string> errors;
};

Loaded load(const std::string& provider, const std::string& csv) {
    Loaded l{gpu_catalog(), {}, {}, {}};
    io::TableRef ref{provider, "skypilot", "t.csv", "t.csv", false, {"t.csv", 0, 0}};
    io::load_offer_table(ref, csv, l.catalog, l.diags);
    for (const auto& s : l.catalog.skipped)
        for (const auto& [r, n] : s.rows_by_reason) l.reasons[r] += n;
    for (const auto& d : l.diags.all()) l.errors.push_back(format_diagnostic(d));
    return l;
}

const std::string kAwsHeader =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
    "AvailabilityZone\n";

std::string gpu_info(int mib, int count = 1) {
    return "\"{'Gpus': [{'Name': 'X', 'Manufacturer': 'NVIDIA', 'Count': " + std::to_string(count) +
           ", 'MemoryInfo': {'SizeInMiB': " + std::to_string(mib) +
           "}}], 'TotalGpuMemoryInMiB': " + std::to_string(mib * count) + "}\"";
}

}  // namespace

TEST_CASE("columns are found by name whatever their order; per-instance prices stay per instance", "[io]") {
    auto l =
        load("cudo",
             "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
             "epyc-a100-pcie_2x,A100,2.0,8,16,2.7459999999999996,us-1," +
                 gpu_info(81920, 2) + ",\n");
    REQUIRE(l.errors.empty());
    REQUIRE(l.catalog.offers.size() == 1);
    const Offer& o = l.catalog.offers[0];
    CHECK(o.gpu == "a100-80gb-pcie");  // A100 on cudo is 80 GB: memory decides, the instance says PCIe
    CHECK(o.gpu_count == 2);
    CHECK(o.on_demand_per_hour == Approx(2.746));
    CHECK_FALSE(o.spot_per_hour);
    CHECK(o.as_of == "2026-07-09");
    CHECK(o.where.line == 2);
}

TEST_CASE("AWS p4d is A100 40 GB SXM, p4de A100 80 GB SXM; zone duplicates merge keeping the lowest spot",
          "[io]") {
    auto l = load("aws", kAwsHeader + "p4d.24xlarge,A100,8.0,96,1152," + gpu_info(40960, 8) +
                             ",32.77,12.5,us-east-1,use1-az1\n"
                             "p4d.24xlarge,A100,8.0,96,1152," +
                             gpu_info(40960, 8) +
                             ",32.77,11.25,us-east-1,use1-az2\n"
                             "p4de.24xlarge,A100-80GB,8.0,96,1152," +
                             gpu_info(81920, 8) + ",40.96,,us-east-1,use1-az1\n");
    REQUIRE(l.errors.empty());
    REQUIRE(l.catalog.offers.size() == 2);
    CHECK(l.catalog.offers[0].gpu == "a100-40gb-sxm");
    CHECK(l.catalog.offers[0].spot_per_hour == Approx(11.25));
    CHECK(l.catalog.offers[1].gpu == "a100-80gb-sxm");
    CHECK(l.reasons["zone duplicate merged (lowest price kept)"] == 1);
}

TEST_CASE("Azure's ND sizes are SXM boards; its NC sizes keep the conservative variant", "[io]") {
    auto l = load("azure", kAwsHeader + "Standard_ND96isr_H100_v5,H100,8.0,96,1900," + gpu_info(81920, 8) +
                               ",98.32,,eastus,\n"
                               "Standard_ND96amsr_A100_v4,A100-80GB,8.0,96,1900," +
                               gpu_info(81920, 8) + ",32.77,,eastus,\n" +
                               "Standard_NC40ads_H100_v5,H100,1.0,40,320," + gpu_info(81920, 1) +
                               ",6.98,,eastus,\n");
    REQUIRE(l.errors.empty());
    REQUIRE(l.catalog.offers.size() == 3);
    CHECK(l.catalog.offers[0].gpu == "h100-sxm");
    CHECK_FALSE(l.catalog.offers[0].variant_assumed);
    CHECK(l.catalog.offers[1].gpu == "a100-80gb-sxm");
    CHECK(l.catalog.offers[2].gpu == "h100-pcie");  // an H100 NVL card: no SXM hint, the conservative variant
    CHECK(l.catalog.offers[2].variant_assumed);
}

TEST_CASE("quoted commas, CRLF line endings and JSON GpuInfo are read", "[io]") {
    auto l = load(
        "vast",
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region\r\n"
        "1x-RTX_6000Ada,RTX6000-Ada,1,32,64.0,\"{\"\"Gpus\"\": [{\"\"Name\"\": \"\"RTX6000-Ada\"\", "
        "\"\"Count\"\": 1, \"\"MemoryInfo\"\": {\"\"SizeInMiB\"\": 49140}}]}\",0.77,0.00,\", US, NA\"\r\n");
    REQUIRE(l.errors.empty());
    REQUIRE(l.catalog.offers.size() == 1);
    CHECK(l.catalog.offers[0].gpu == "rtx-6000-ada");
    CHECK(l.catalog.offers[0].region == "US, NA");
    CHECK_FALSE(l.catalog.offers[0].spot_per_hour);  // 0.00 = no spot market
    CHECK(l.reasons["spot price 0 (no spot market)"] == 1);
}

TEST_CASE("GpuInfo holding the total memory of all GPUs (vast) still picks the per-GPU variant", "[io]") {
    // 2 x A100 with SizeInMiB 81920 = 2 x 40 GB; with 163840 = 2 x 80 GB.
    auto l =
        load("vast", kAwsHeader + "2x-A100_SXM4,A100,2,32,64," +
                         "\"{'Gpus': [{'Name': 'A100', 'Count': 2, 'MemoryInfo': {'SizeInMiB': 81920}}], "
                         "'TotalGpuMemoryInMiB': 81920}\",1.87,,Germany,\n" +
                         "2x-A100_SXM4,A100,2,32,64," +
                         "\"{'Gpus': [{'Name': 'A100', 'Count': 2, 'MemoryInfo': {'SizeInMiB': 163840}}], "
                         "'TotalGpuMemoryInMiB': 163840}\",1.90,,Montana,\n");
    REQUIRE(l.catalog.offers.size() == 2);
    CHECK(l.catalog.offers[0].gpu == "a100-40gb-sxm");
    CHECK(l.catalog.offers[1].gpu == "a100-80gb-sxm");
}

TEST_CASE("GCP accelerator rows are priced with the host row of their zone, or marked GPU-only", "[io]") {
    auto l =
        load("gcp",
             "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,"
             "Price,SpotPrice\n"
             "a2-highgpu-1g,12.0,85.0,,,,us-central1,us-central1-a,0.9,0.5\n"
             ",,,A100,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 40960}}]},us-central1,us-central1-a,2.9,1.2\n"
             ",,,T4,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 16384}}]},us-central1,us-central1-a,0.35,0.14\n"
             ",,,tpu-v6e-1,1,tpu-v6e-1,asia-east1,asia-east1-c,700.0,700.0\n"
             ",,,H100,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 81920}}]},us-east4,us-east4-a,9.0,9.5\n");
    REQUIRE(l.errors.empty());
    REQUIRE(l.catalog.offers.size() == 3);
    const Offer& a100 = l.catalog.offers[0];
    CHECK(a100.gpu == "a100-40gb-sxm");
    CHECK(a100.instance_type == "a2-highgpu-1g");
    CHECK(*a100.on_demand_per_hour == Approx(3.8));
    CHECK(*a100.spot_per_hour == Approx(1.7));
    CHECK(a100.vcpus == Approx(12));
    const Offer& t4 = l.catalog.offers[1];
    CHECK(t4.gpu == "t4");
    CHECK(*t4.on_demand_per_hour == Approx(0.35));
    REQUIRE(t4.notes.size() == 1);
    CHECK(t4.notes[0].str().find("GPU-only price") == 0);
    CHECK_FALSE(t4.price_complete);
    CHECK(a100.price_complete);
    const Offer& h100 =
        l.catalog.offers[2];  // no a3 host row for that zone: GPU-only, spot above on-demand dropped
    CHECK(h100.gpu == "h100-sxm");
    CHECK_FALSE(h100.price_complete);
    CHECK_FALSE(h100.spot_per_hour);
    CHECK(l.reasons["sentinel price 700.0 (zone does not offer it)"] == 2);
    CHECK(l.reasons["not a GPU (TPU)"] == 1);
    CHECK(l.reasons["spot price not below on-demand (spot price dropped)"] == 1);
}

TEST_CASE(
    "an N1 GPU is priced with the table's n1-highmem host of its zone (SkyPilot's default), else GPU-only",
    "[io]") {
    auto l = load(
        "gcp",
        "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,"
        "SpotPrice\n"
        "n1-highmem-8,8.0,52.0,,,,us-central1,us-central1-a,0.47,0.10\n"
        "n1-highmem-16,16.0,104.0,,,,us-central1,us-central1-a,0.95,0.20\n"
        ",,,T4,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 16384}}]},us-central1,us-central1-a,0.35,0.12\n"
        ",,,T4,2,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 16384}}]},us-central1,us-central1-a,0.70,0.24\n"
        ",,,T4,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 16384}}]},europe-west4,europe-west4-b,0.35,0.12\n");
    REQUIRE(l.errors.empty());
    REQUIRE(l.catalog.offers.size() == 3);
    const Offer& one = l.catalog.offers[0];
    CHECK(one.instance_type == "n1-highmem-8");
    CHECK(*one.on_demand_per_hour == Approx(0.82));
    CHECK(*one.spot_per_hour == Approx(0.22));
    CHECK(one.vcpus == Approx(8));
    CHECK(one.ram_gb == Approx(52));
    CHECK(one.price_complete);
    const Offer& two = l.catalog.offers[1];
    CHECK(two.instance_type == "n1-highmem-16");
    CHECK(*two.on_demand_per_hour == Approx(1.65));
    CHECK(two.price_complete);
    const Offer& eu = l.catalog.offers[2];  // no host row in that zone
    CHECK(eu.instance_type == "n1-*");
    CHECK_FALSE(eu.price_complete);
    CHECK(*eu.on_demand_per_hour == Approx(0.35));
}

TEST_CASE(
    "each GCP accelerator row gets its own zone's host, whatever the order of the rows, and its own note",
    "[io]") {
    // The same accelerator in four zones: a host priced 0, no host, a host row after the accelerator
    // rows, and a host listed twice (the last row counts). And an N1 GPU with and without its host.
    auto l = load(
        "gcp",
        "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,"
        "SpotPrice\n"
        "a2-highgpu-1g,12.0,85.0,,,,us-central1,us-central1-a,0.0,\n"
        "a2-highgpu-1g,12.0,85.0,,,,us-west1,us-west1-b,0.5,0.2\n"
        "a2-highgpu-1g,12.0,85.0,,,,us-west1,us-west1-b,0.7,0.3\n"
        ",,,A100,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 40960}}]},us-central1,us-central1-a,2.0,\n"
        ",,,A100,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 40960}}]},us-east1,us-east1-c,2.1,\n"
        ",,,A100,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 40960}}]},europe-west4,europe-west4-a,2.2,1.0\n"
        ",,,A100,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 40960}}]},us-west1,us-west1-b,2.3,1.0\n"
        ",,,T4,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 16384}}]},us-east1,us-east1-c,0.35,\n"
        ",,,T4,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 16384}}]},asia-east1,asia-east1-a,0.36,\n"
        "a2-highgpu-1g,12.0,85.0,,,,europe-west4,europe-west4-a,0.8,0.4\n"
        "n1-highmem-8,8.0,52.0,,,,asia-east1,asia-east1-a,0.47,\n");
    REQUIRE(l.errors.empty());
    REQUIRE(l.catalog.offers.size() == 6);
    const auto& o = l.catalog.offers;
    auto note = [](const Offer& offer) { return offer.notes.empty() ? std::string() : offer.notes[0].str(); };
    CHECK(o[0].instance_type == "a2-highgpu-1g");  // its zone's host is priced 0
    CHECK(note(o[0]) ==
          "GPU-only price: the a2-highgpu-1g host VM is not included (its price in the table is 0)");
    CHECK(*o[0].on_demand_per_hour == Approx(2.0));
    CHECK(o[1].instance_type == "a2-highgpu-1g");  // no host row in its zone
    CHECK(note(o[1]) ==
          "GPU-only price: the a2-highgpu-1g host VM is not included (no host row in the table)");
    CHECK_FALSE(o[1].price_complete);
    CHECK(o[2].region == "europe-west4");  // its host row comes last in the table
    CHECK(o[2].price_complete);
    CHECK(*o[2].on_demand_per_hour == Approx(3.0));
    CHECK(*o[2].spot_per_hour == Approx(1.4));
    CHECK(o[2].notes.empty());
    CHECK(o[3].region == "us-west1");  // its host is listed twice: the last row's prices
    CHECK(*o[3].on_demand_per_hour == Approx(3.0));
    CHECK(*o[3].spot_per_hour == Approx(1.3));
    CHECK(o[4].instance_type == "n1-*");  // no n1 host in its zone
    CHECK(note(o[4]) == "GPU-only price: the n1-* host VM is not included (no host row in the table)");
    CHECK(o[5].instance_type == "n1-highmem-8");
    CHECK(note(o[5]).find("host VM n1-highmem-8 included") == 0);
    CHECK(*o[5].on_demand_per_hour == Approx(0.83));
    CHECK(l.reasons["GCP GPU-only price (host VM price missing or 0; kept, marked in notes)"] == 3);
}

TEST_CASE("empty and zero prices are counted; rows without any price are dropped", "[io]") {
    auto l =
        load("aws", kAwsHeader + "p5e.48xlarge,H100,8,192,2048," + gpu_info(81920, 8) + ",,44.8,ap-1,a\n" +
                        "p5.48xlarge,H100,8,192,2048," + gpu_info(81920, 8) + ",0.0,,ap-1,a\n");
    REQUIRE(l.catalog.offers.size() == 1);
    CHECK_FALSE(l.catalog.offers[0].on_demand_per_hour);
    CHECK(*l.catalog.offers[0].spot_per_hour == Approx(44.8));
    CHECK(l.reasons["on-demand price empty"] == 1);
    CHECK(l.reasons["on-demand price 0"] == 1);
    CHECK(l.reasons["no usable price (row dropped)"] == 1);
}

TEST_CASE("unknown accelerators are skipped with a reason; an ambiguous variant is assumed, never optimistic",
          "[io]") {
    auto l = load("p", kAwsHeader + "x1,RTX9999,1,8,32," + gpu_info(32607) + ",0.5,,r,\n" +
                           "x2,H100,1,8,32," + gpu_info(81920) + ",2.0,,r,\n" +  // SXM or PCIe?
                           "x3,H100,1,8,32," + gpu_info(95830) + ",2.1,,r,\n" +  // 94 GB: the NVL
                           "x4,Inferentia2,1,8,32,,0.7,,r,\n");
    REQUIRE(l.catalog.offers.size() == 2);
    CHECK(l.catalog.offers[0].gpu == "h100-pcie");  // issue 14: the conservative variant, marked
    REQUIRE(l.catalog.offers[0].notes.size() == 1);
    CHECK(
        l.catalog.offers[0].notes[0] ==
        "variant assumed: H100 could be h100-pcie, h100-sxm; h100-pcie assumed (least memory, slowest link)");
    CHECK(l.catalog.offers[1].gpu == "h100-nvl");
    CHECK(l.reasons["accelerator not in the GPU catalog: RTX9999"] == 1);
    CHECK(l.reasons
              ["variant assumed: H100 could be h100-pcie, h100-sxm; h100-pcie assumed (least memory, slowest "
               "link) (kept, marked in notes)"] == 1);
    CHECK(l.reasons["not a GPU (Inferentia)"] == 1);
    REQUIRE(l.catalog.skipped.size() == 1);
    CHECK(l.catalog.skipped[0].rows_by_kind.at(SkipKind::accelerator) == 2);  // skipped: RTX9999, Inferentia
    CHECK(l.catalog.skipped[0].rows_by_kind.at(SkipKind::variant_assumed) == 1);  // kept, marked
}

TEST_CASE("malformed tables give located errors", "[io]") {
    SECTION("a missing column") {
        auto l = load("p", "InstanceType,AcceleratorName,AcceleratorCount,Region\nx,T4,1,r\n");
        REQUIRE(l.errors.size() == 1);
        CHECK(l.errors[0] ==
              "t.csv:1: error: SkyPilot table header lacks column 'Price'; a vms.csv needs "
              "InstanceType, AcceleratorName, AcceleratorCount, Price and Region");
    }
    SECTION("text in a price") {
        auto l = load("p", kAwsHeader + "x,T4,1,4,16,,0.35,,r,\nx,T4,1,4,16,,cheap,,r,\n");
        REQUIRE(l.errors.size() == 1);
        CHECK(l.errors[0] == "t.csv:3: error: Price: 'cheap' is not a number");
    }
    SECTION("an unterminated quote") {
        auto l =
            load("p", kAwsHeader +
                          "x,T4,1,4,16,,0.35,,r,\ny,T4,1,4,16,\"{'Gpus': [,0.35,,r,\nz,T4,1,4,16,,0.4,,r,\n");
        REQUIRE(l.errors.size() == 1);
        CHECK(l.errors[0].rfind(
                  "t.csv:3: error: malformed CSV: the quoted field that starts on this line is never closed",
                  0) == 0);
    }
    SECTION("a row with too many fields") {
        auto l = load("p", kAwsHeader + "x,T4,1,4,16,,0.35,,r,,extra\n");
        REQUIRE(l.errors.size() == 1);
        CHECK(l.errors[0].rfind("t.csv:2: error: row has 11 fields, the header has 10", 0) == 0);
    }
    SECTION("an empty file") {
        auto l = load("p", "");
        REQUIRE(l.errors.size() == 1);
        CHECK(l.errors[0].find("the table is empty") != std::string::npos);
    }
}

TEST_CASE("GpuInfo scanning takes memory and counts from any of the upstream spellings", "[io]") {
    auto lower = io::scan_gpu_info(
        "{'gpus': [{'name': 'h100', 'count': 8.0, 'memoryinfo': {'sizeinmib': 81559}}], "
        "'totalgpumemoryinmib': 81559}");
    CHECK(lower.size_mib == Approx(81559));
    CHECK(lower.count == Approx(8));
    auto quoted_count = io::scan_gpu_info(
        "{'Gpus': [{'Name': 'A40', 'Count': '1.0', 'LogicalGpuCount': 4, "
        "'MemoryInfo': {'SizeInMiB': 49152}}]}");
    CHECK(quoted_count.count == Approx(1));
    CHECK_FALSE(quoted_count.total_mib);
    auto plain = io::scan_gpu_info("V100");
    CHECK_FALSE(plain.size_mib);
    CHECK(io::parse_decimal("0.36979999999999996") == Approx(0.3698));
    CHECK_FALSE(io::parse_decimal("1.2.3"));
    CHECK_FALSE(io::parse_decimal("nan"));
}

TEST_CASE("skypilot: the fast decimal path gives exactly the double from_chars gives", "[io]") {
    // parse_decimal reads short plain decimals itself (Clinger's exact fast path) and hands the
    // rest to from_chars; both must agree bit for bit, or a price could change in the last digit.
    std::mt19937_64 rng(42);
    auto check = [](const std::string& text) {
        double expected = 0;
        std::from_chars(text.data(), text.data() + text.size(), expected);
        auto got = io::parse_decimal(text);
        REQUIRE(got);
        CHECK(std::memcmp(&*got, &expected, sizeof expected) == 0);
    };
    for (const char* text :
         {"0", "8", "64.0", "1.5863", "2.700300000001", "0.36979999999999996", "5.", ".5", "00.10",
          "123456789012345", "1234567890123456", "0.000000000000001", "98.76543210987654", "1e3"})
        check(text);
    for (int i = 0; i < 20000; ++i) {
        const int int_digits = static_cast<int>(rng() % 8), frac_digits = static_cast<int>(rng() % 16);
        std::string text;
        for (int d = 0; d < int_digits; ++d) text += static_cast<char>('0' + rng() % 10);
        if (frac_digits > 0 || text.empty()) text += '.';
        for (int d = 0; d < frac_digits || text == "."; ++d) text += static_cast<char>('0' + rng() % 10);
        check(text);
    }
    CHECK_FALSE(io::parse_decimal("1.2.3"));
    CHECK_FALSE(io::parse_decimal("."));
    CHECK(io::parse_decimal("-1") ==
          -1.0);  // not a fast-path text: from_chars reads it (the reader rejects negatives)
}

}  // namespace io_test_skypilot_csv
