// Commitment plans in the catalog: the YAML format, the GCP price file (Cyclenerd pricing.yml),
// Hyperstack's reserved prices, and how they attach to offers.
#include <catch2/catch.hpp>

#include <algorithm>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/market/catalog_lint.hpp"
#include "io/catalog_loader.hpp"
#include "io/catalog_sections.hpp"
#include "io/commitment_tables.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_commitments {

using namespace gpuadvise;

namespace {

struct Parsed {
    Catalog catalog;
    std::vector<std::string> messages;
};

Parsed parse(const std::string& yaml) {
    Parsed p;
    std::vector<io::TableRef> tables;
    Diagnostics d;
    io::parse_catalog_yaml(yaml, "t.yaml", false, ".", p.catalog, tables, d);
    for (const auto& x : d.all()) p.messages.push_back(format_diagnostic(x));
    return p;
}

const std::string kHead = "providers:\n  - id: p\n    as_of: 2026-01-01\n    source: s\n    offers:\n";

bool any_contains(const std::vector<std::string>& v, const std::string& text) {
    return std::any_of(v.begin(), v.end(),
                       [&](const std::string& s) { return s.find(text) != std::string::npos; });
}

// A cut of the upstream format: two machine types, one region each, as Cyclenerd writes them.
const char* kGcp = R"(---
about:
  copyright: |2

    Licensed under the Apache License, Version 2.0
  generated: Thu Jul 30 06:13:17 2026
  timestamp: 1785391997
  url: https://github.com/Cyclenerd/google-cloud-pricing-cost-calculator
compute:
  instance:
    a2-highgpu-1g:
      a100: 1
      cost:
        us-central1:
          hour: 3.673385
          hour_spot: 1.92802
          month: 2681.57105
          month_1y: 1689.3711392
          month_3y: 938.56707798
          month_spot: 1407.4546
      cpu: 12
      ram: 85
    e2-standard-4:
      cost:
        us-central1:
          hour: 0.134
          month: 97.8
      cpu: 4
      ram: 16
    g2-standard-4:
      cost:
        us-east4:
          hour: 0.70683228
          hour_spot: 0.311
          month: 515.98756
          month_1y: 325.1
          month_3y: 232.2
          month_spot: 227.0
      cpu: 4
      l4: 1
      ram: 16
    g4-standard-6:
      cost:
        us-central1:
          hour: 0.55955625
          month: 408.47
          month_1y: 281.853
      cpu: 6
      ram: 22
      rtx6000: 0.125
)";

}  // namespace

TEST_CASE("reserved_per_month is a 1-month commitment; commitments: lists terms", "[io]") {
    auto p =
        parse(kHead +
              "      - gpu: t4\n        on_demand_per_hour: 2\n        reserved_per_month: 900\n"
              "        commitments:\n"
              "          - {term_months: 12, price_per_month: 800, upfront: 0.5, scope: instance + region}\n"
              "          - {term_months: 36, price_per_hour: 0.5}\n"
              "          - {term_months: 12, discount: 0.4}\n");
    REQUIRE(p.messages.empty());
    const auto& k = p.catalog.offers.at(0).commitments;
    REQUIRE(k.size() == 4);
    CHECK(k[0].term_months == 1);
    CHECK(k[0].price_per_month == 900);
    CHECK(k[1].term_months == 12);
    CHECK(k[1].upfront == 0.5);
    CHECK(k[1].scope == "instance + region");
    CHECK(k[1].source == "s");
    CHECK(k[1].as_of == "2026-01-01");
    CHECK(k[2].price_per_month == Approx(0.5 * 730));
    CHECK(k[3].price_per_month == Approx(0.6 * 2 * 730));
    CHECK(*k[3].discount == Approx(0.4));
}

TEST_CASE("a commitment without a term, with a discount outside 0-95 %, or with two prices is an error",
          "[io]") {
    auto no_term =
        parse(kHead + "      - {gpu: t4, on_demand_per_hour: 2, commitments: [{price_per_month: 800}]}\n");
    CHECK(any_contains(no_term.messages, "commitment without a term"));
    auto discount =
        parse(kHead +
              "      - {gpu: t4, on_demand_per_hour: 2, commitments: [{term_months: 12, discount: 0.97}]}\n");
    CHECK(any_contains(discount.messages, "outside 0-0.95"));
    auto negative =
        parse(kHead +
              "      - {gpu: t4, on_demand_per_hour: 2, commitments: [{term_months: 12, discount: -0.1}]}\n");
    CHECK(any_contains(negative.messages, "outside 0-0.95"));
    auto two = parse(kHead +
                     "      - {gpu: t4, on_demand_per_hour: 2, commitments: [{term_months: 12, "
                     "price_per_month: 8, discount: 0.1}]}\n");
    CHECK(any_contains(two.messages, "exactly one of"));
}

TEST_CASE("lint: a commitment dearer than on-demand at full use is flagged", "[io]") {
    auto p = parse(
        kHead +
        "      - {gpu: t4, on_demand_per_hour: 1, commitments: [{term_months: 12, price_per_month: 800}]}\n");
    REQUIRE(p.messages.empty());
    Diagnostics d = lint_catalog(p.catalog, "");
    std::vector<std::string> w;
    for (const auto& x : d.all()) w.push_back(format_diagnostic(x));
    CHECK(any_contains(w, "12-month commitment 800/month costs more than 730 h of on-demand"));
}

TEST_CASE("the GCP price file: GPU machine types per region, 1-year and 3-year prices, the date", "[io]") {
    Diagnostics d;
    const io::GcpPriceList list = io::read_gcp_pricing(kGcp, "pricing.yml", d);
    CHECK(d.all().empty());
    CHECK(list.as_of == "2026-07-30");
    CHECK(list.url == "https://github.com/Cyclenerd/google-cloud-pricing-cost-calculator");
    REQUIRE(list.machines.size() == 3);  // e2-standard-4 has no GPU
    const auto& a2 = list.machines[0];
    CHECK(a2.machine_type == "a2-highgpu-1g");
    CHECK(a2.gpu_key == "a100");
    CHECK(a2.gpu_count == 1);
    CHECK(a2.region == "us-central1");
    CHECK(*a2.hour == Approx(3.673385));
    CHECK(*a2.month_1y == Approx(1689.3711392));
    CHECK(*a2.month_3y == Approx(938.56707798));
    CHECK(*a2.vcpus == 12);
    CHECK(list.machines[2].gpu_count == Approx(0.125));
    CHECK_FALSE(list.machines[2].month_3y);
    Diagnostics bad;
    io::read_gcp_pricing("compute: [1, 2]\n", "x.yml", bad);
    CHECK(bad.has_errors());
}

TEST_CASE("GCP commitments attach to the offer of the same machine type and region; others become offers",
          "[io]") {
    Catalog c;
    c.gpus.push_back(Gpu{});
    c.gpus.back().id = "a100-40gb-sxm";
    c.gpus.push_back(Gpu{});
    c.gpus.back().id = "l4";
    Offer existing;
    existing.provider = "gcp";
    existing.gpu = "a100-40gb-sxm";
    existing.instance_type = "a2-highgpu-1g";
    existing.region = "us-central1";
    existing.on_demand_per_hour = 3.67339;
    c.offers.push_back(existing);
    io::TableRef ref{"gcp", "gcp-pricing", "pricing.yml", "pricing.yml", false, {}};
    Diagnostics d;
    io::load_commitment_table(ref, kGcp, c, d);
    REQUIRE(c.offers.size() == 3);  // a2 donor, g2 donor; g4 (1/8 GPU) skipped
    io::attach_commitments(c, {{"gcp-pricing", "pricing.yml", 1, 3}});
    REQUIRE(c.offers.size() == 2);
    const Offer& a2 = c.offers[0];
    CHECK(*a2.on_demand_per_hour == 3.67339);  // the table's own price is kept
    REQUIRE(a2.commitments.size() == 2);
    CHECK(a2.commitments[0].term_months == 12);
    CHECK(a2.commitments[0].price_per_month == Approx(1689.3711392));
    CHECK(a2.commitments[0].as_of == "2026-07-30");
    CHECK(a2.commitments[0].scope == "machine type + region");
    const Offer& g2 = c.offers[1];
    CHECK(g2.instance_type == "g2-standard-4");
    CHECK(g2.gpu == "l4");
    CHECK(*g2.on_demand_per_hour == Approx(0.70683228));
    CHECK(g2.as_of == "2026-07-30");
    CHECK(g2.commitments.size() == 2);
    CHECK(std::any_of(c.skipped.begin(), c.skipped.end(), [](const SkipSummary& s) {
        return s.rows_by_reason.count("fractional GPU count (a share of one GPU)");
    }));
}

TEST_CASE(
    "the built-in catalog: GCP a2 1-year prices, g2 machines, Hyperstack reserved (term not stated), A/B/C "
    "monthly",
    "[io]") {
    io::CatalogOptions opt;
    const Catalog c = io::load_catalog(opt);
    auto find = [&](const std::string& provider, const std::string& instance,
                    const std::string& region) -> const Offer* {
        for (const auto& o : c.offers)
            if (o.provider == provider && o.instance_type == instance && o.region == region) return &o;
        return nullptr;
    };
    const Offer* a2 = find("gcp", "a2-highgpu-1g", "us-central1");
    REQUIRE(a2);
    REQUIRE(a2->commitments.size() == 2);
    CHECK(a2->commitments[0].price_per_month == Approx(1689.3711392));
    CHECK(a2->commitments[1].price_per_month == Approx(938.56707798));
    const Offer* g2 = find("gcp", "g2-standard-8", "us-central1");
    REQUIRE(g2);
    CHECK(g2->gpu == "l4");
    CHECK(g2->commitments.size() == 2);
    const Offer* h = find("hyperstack", "n3-A100x1", "CANADA-1");
    REQUIRE(h);
    REQUIRE(h->commitments.size() == 1);
    CHECK(h->commitments[0].term_months == 1);
    CHECK(h->commitments[0].price_per_month == Approx(0.95 * 730));
    CHECK(h->commitments[0].note.find("term not stated") != std::string::npos);
    const Offer* nv = find("hyperstack", "n3-A100x8-NVLink", "CANADA-1");
    REQUIRE(nv);
    CHECK(nv->commitments.at(0).price_per_month == Approx(0.98 * 730 * 8));
    for (const auto& o : c.offers)
        if (o.provider == "provider-b") {
            REQUIRE(o.commitments.size() == 1);
            CHECK(o.commitments[0].term_months == 1);
            CHECK(o.commitments[0].price_per_month == *o.reserved_per_month);
        }
}

}  // namespace io_test_commitments
