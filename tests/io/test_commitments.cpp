// Commitment plans in the catalog: the YAML format, the GCP price file (Cyclenerd pricing.yml),
// Hyperstack's reserved prices, and how they attach to offers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/market/catalog_lint.hpp"
#include "gpuadvise/market/cost_model.hpp"
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
    CHECK(h->commitments[0].note.str().find("term not stated") != std::string::npos);
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

// The instance-hour layout of commitments-more.csv (rows as in data/commitments/aws-commitments.csv).
const std::string kAwsCsv =
    "provider,instance_type,region,gpu,gpu_count,plan,term_months,payment,price_per_hour,on_demand_per_hour,"
    "currency,as_of,source,price_unit,discount_pct,notes\n"
    "aws,p5.48xlarge,us-east-1,H100,8,reserved,36,all_upfront,20.0,55.04,USD,2025-11-30,src "
    "RI,instance-hour,,"
    "\"Standard RI, Linux/UNIX\"\n"
    "aws,p5.48xlarge,us-east-1,H100,8,reserved,36,partial_upfront,21.0,55.04,USD,2025-11-30,src RI,"
    "instance-hour,,Standard RI\n"
    "aws,p5.48xlarge,us-east-1,H100,8,savings_plan,12,no_upfront,30.0,55.04,USD,2026-09-27,src SP,"
    "instance-hour,,EC2 Instance Savings Plan\n"
    "aws,p5.48xlarge,us-east-1,H100,8,committed,,all_upfront,5.0,,USD,2026-07-22,src CB,instance-hour,,"
    "\"Capacity Block, 1-182 days\"\n"
    "aws,p5.48xlarge,eu-west-9,H100,8,reserved,12,no_upfront,40.0,55.04,USD,2025-11-30,src RI,instance-hour,,"
    "RI\n"
    "aws,g5.xlarge,us-east-1,A10G,1,reserved,12,no_upfront,0.6,2.00,USD,2025-11-30,src RI,instance-hour,,RI\n"
    "verda,H100 SXM5,,H100,1,committed,12,unknown,,3.555,USD,2026-09-27,src,GPU-hour,8,percent only\n";

Catalog aws_offers() {
    Catalog c;
    Offer p5;
    p5.provider = "aws";
    p5.gpu = "h100-sxm";
    p5.gpu_count = 8;
    p5.instance_type = "p5.48xlarge";
    p5.region = "us-east-1";
    p5.on_demand_per_hour = 55.04;
    c.offers.push_back(p5);
    Offer g5 = p5;
    g5.gpu = "a10g";
    g5.gpu_count = 1;
    g5.instance_type = "g5.xlarge";
    g5.on_demand_per_hour = 1.006;  // another price basis than the row's 2.00: not attached
    c.offers.push_back(g5);
    return c;
}

TEST_CASE(
    "instance-hour commitment rows: reservation with payment and upfront sum, savings plan, capacity block",
    "[io]") {
    Catalog c = aws_offers();
    io::TableRef ref{"aws", "commitments-csv", "aws-commitments.csv", "aws-commitments.csv", false, {}};
    Diagnostics d;
    io::load_commitment_table(ref, kAwsCsv, c, d);
    CHECK(d.all().empty());
    REQUIRE(c.offers.size() == 2 + 6);  // the verda row is skipped (another provider)
    io::attach_commitments(c, {{"commitments-csv", "aws-commitments.csv", 2, c.offers.size()}});
    REQUIRE(c.offers.size() == 2);
    const Offer& p5 = c.offers[0];
    REQUIRE(p5.commitments.size() == 4);  // eu-west-9 is another region
    const Commitment& all = p5.commitments[0];
    CHECK(all.kind == CommitmentKind::reservation);
    CHECK(all.payment == Payment::all_upfront);
    CHECK(all.term_months == 36);
    CHECK(all.price_per_month == Approx(20.0 * 730));
    CHECK(*all.upfront_total == Approx(20.0 * 730 * 36));  // the term's total, paid at the start
    CHECK(all.as_of == "2025-11-30");
    CHECK(commitment_label(all) == "3-year reservation, all upfront");
    CHECK(p5.commitments[1].payment == Payment::partial_upfront);
    CHECK_FALSE(p5.commitments[1].upfront_total);  // the split is not in the source
    CHECK(p5.commitments[2].kind == CommitmentKind::savings_plan);
    CHECK(*p5.commitments[2].upfront_total == 0);
    CHECK(p5.commitments[3].kind == CommitmentKind::capacity_block);
    CHECK(p5.commitments[3].term_months == 0);
    CHECK(c.offers[1].commitments.empty());  // on-demand differs by more than 5 %
    auto skipped = [&](const std::string& reason) {
        return std::any_of(c.skipped.begin(), c.skipped.end(), [&](const SkipSummary& s) {
            return std::any_of(s.rows_by_reason.begin(), s.rows_by_reason.end(),
                               [&](const auto& r) { return r.first.find(reason) != std::string::npos; });
        });
    };
    CHECK(skipped("row of another provider"));
    CHECK(skipped("no offer of this instance type in this region"));
    CHECK(skipped("on-demand differs"));
}

TEST_CASE("a capacity block is never priced as an always-on commitment, however cheap its rate", "[io]") {
    Catalog c = aws_offers();
    io::TableRef ref{"aws", "commitments-csv", "aws-commitments.csv", "aws-commitments.csv", false, {}};
    Diagnostics d;
    io::load_commitment_table(ref, kAwsCsv, c, d);
    io::attach_commitments(c, {{"commitments-csv", "aws-commitments.csv", 2, c.offers.size()}});
    const Offer& p5 = c.offers[0];
    // The block's rate (5/h) is far below every term commitment; the cheapest commitment is still the
    // 3-year all-upfront reservation (20/h), and the reserved plan never takes the block.
    const Commitment* k = cheapest_commitment(p5);
    REQUIRE(k);
    CHECK(k->kind == CommitmentKind::reservation);
    CHECK(k->price_per_month == Approx(20.0 * 730));
    auto cost = cost_plan(c, p5, 1, Plan::reserved, 8, 20, {}, "USD");
    REQUIRE(cost);
    CHECK(cost->commitment->kind != CommitmentKind::capacity_block);
    CHECK(*cost->upfront_total == Approx(20.0 * 730 * 36));
    CHECK(has_commitment(p5));
    Offer only_block = p5;
    only_block.commitments = {p5.commitments[3]};
    CHECK_FALSE(has_commitment(only_block));
    CHECK_FALSE(cost_plan(c, only_block, 1, Plan::reserved, 8, 20, {}, "USD"));
}

TEST_CASE("the built-in catalog: AWS reservations and savings plans with their payment option", "[io]") {
    io::CatalogOptions opt;
    const Catalog c = io::load_catalog(opt);
    std::map<std::string, int> families;  // instance family -> offers with a payment-option reservation
    for (const auto& o : c.offers) {
        if (o.provider != "aws") continue;
        for (const auto& k : o.commitments)
            if (k.kind == CommitmentKind::reservation && k.payment != Payment::unknown) {
                ++families[o.instance_type.substr(0, o.instance_type.find('.'))];
                break;
            }
    }
    for (const char* f : {"p4d", "p5", "g5", "g6", "g4dn", "g6e"}) CHECK(families[f] > 0);
    const Offer* p4d = nullptr;
    for (const auto& o : c.offers)
        if (o.provider == "aws" && o.instance_type == "p4d.24xlarge" && o.region == "us-east-1") p4d = &o;
    REQUIRE(p4d);
    int all_upfront = 0;
    for (const auto& k : p4d->commitments)
        if (k.kind == CommitmentKind::reservation && k.payment == Payment::all_upfront) {
            ++all_upfront;
            CHECK(*k.upfront_total == Approx(k.price_per_month * k.term_months));
            CHECK(k.as_of == "2025-11-30");
            CHECK(k.source.str().find("tsaol/aws-gpu") != std::string::npos);
        }
    CHECK(all_upfront == 2);  // 1 year and 3 years
}

}  // namespace io_test_commitments
