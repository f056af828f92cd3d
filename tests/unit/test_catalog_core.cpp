// Core behaviour of GPU names, offer queries, comparison and lint, on catalogs built in code.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "gpuadvise/advice/compare.hpp"
#include "gpuadvise/base/dates.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/policy.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"
#include "gpuadvise/market/catalog_lint.hpp"
#include "gpuadvise/market/offer_query.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_catalog_core {

using namespace gpuadvise;

namespace {

Gpu gpu(std::string id, std::string family, double memory, double fp16,
        std::vector<std::string> aliases = {}) {
    Gpu g;
    g.id = std::move(id);
    g.family = std::move(family);
    g.memory_gb = memory;
    g.tflops.fp16 = fp16;
    g.aliases = std::move(aliases);
    return g;
}

Offer offer(std::string provider, std::string gpu_id, int count, double on_demand,
            std::optional<double> spot = {}, std::optional<double> reserved = {},
            std::string currency = "USD") {
    Offer o;
    o.provider = std::move(provider);
    o.gpu = std::move(gpu_id);
    o.gpu_count = count;
    o.on_demand_per_hour = on_demand;
    o.spot_per_hour = spot;
    o.reserved_per_month = reserved;
    o.currency = std::move(currency);
    o.as_of = "2026-11-01";
    return o;
}

Catalog sample() {
    Catalog c;
    c.gpus = {gpu("t4", "T4", 16, 65), gpu("a100-40gb-pcie", "A100", 40, 312, {"A100-40GB-PCIe"}),
              gpu("a100-80gb-sxm", "A100", 80, 312, {"A100-80GB-SXM"}),
              gpu("v100-16gb-sxm", "V100", 16, 125)};
    Provider usd;
    usd.id = "cheapco";
    usd.currency = "USD";
    Provider cny;
    cny.id = "yuan";
    cny.currency = "CNY";
    c.providers = {usd, cny};
    c.rates = {{"CNY", 0.14, "2024-06-28", "test"}};
    c.offers = {offer("cheapco", "t4", 1, 0.35, 0.12), offer("cheapco", "a100-80gb-sxm", 8, 16.0, 6.0),
                offer("yuan", "a100-40gb-pcie", 1, 9.2, {}, 5800, "CNY"),
                offer("cheapco", "a100-40gb-pcie", 4, 8.0)};
    return c;
}

}  // namespace

TEST_CASE("policy lookups by a reused key buffer read each key's own value, and see a set()", "[core]") {
    // Policy::get caches by the key's address: a buffer that held one key and now holds another of the
    // same length (same address) must read the second key's value, not the first's.
    const PolicyKey* a = nullptr;
    const PolicyKey* b = nullptr;
    for (const auto& k : policy_keys())
        for (const auto& other : policy_keys())
            if (!a && &k != &other && k.name.size() == other.name.size() &&
                k.default_value != other.default_value) {
                a = &k;
                b = &other;
            }
    REQUIRE(a);
    Policy p;
    std::string key(a->name);
    const char* address = key.data();
    CHECK(p.get(key) == a->default_value);
    key.assign(b->name);
    REQUIRE(key.data() == address);
    CHECK(p.get(key) == b->default_value);
    CHECK(p.get(key) == b->default_value);  // a hit
    REQUIRE(p.set(key, b->default_value + 1));
    CHECK(p.get(key) == b->default_value + 1);
    CHECK(p.get(a->name) == a->default_value);
    Policy q;
    CHECK_FALSE(p == q);
    REQUIRE(q.set(b->name, b->default_value + 1));
    (void)q.get(a->name);  // the cache is not part of the value
    CHECK(p == q);
}

TEST_CASE("ProviderIndex finds what find_provider finds: an exact id, else ignoring case", "[core]") {
    Catalog c;
    for (const char* id : {"aws", "gcp", "lambda"}) {
        Provider p;
        p.id = id;
        c.providers.push_back(p);
    }
    const ProviderIndex index(c);
    for (const char* id : {"aws", "gcp", "lambda", "GCP", "Lambda", "azure", ""})
        CHECK(index.find(id) == c.find_provider(id));
    CHECK(index.find("gcp") == &c.providers[1]);
}

TEST_CASE("a family name covers every variant; an id or alias exactly one", "[core]") {
    Catalog c = sample();
    auto family = resolve_gpu_name(c, "a100");
    CHECK(family.matched_by == "family");
    REQUIRE(family.gpus.size() == 2);
    auto alias = resolve_gpu_name(c, "A100-80GB-SXM");
    REQUIRE(alias.gpus.size() == 1);
    CHECK(alias.gpus[0]->id == "a100-80gb-sxm");
    CHECK(resolve_gpu_name(c, "A100 80GB SXM").gpus[0]->id == "a100-80gb-sxm");
}

TEST_CASE("an unknown GPU name is a usage error with a suggestion", "[core]") {
    Catalog c = sample();
    try {
        resolve_gpu_name(c, "A1000");
        FAIL("expected UsageError");
    } catch (const UsageError& e) {
        CHECK(std::string(e.what()) == "unknown GPU 'A1000'");
        CHECK(e.hint().find("did you mean 'A100'") != std::string::npos);
    }
}

TEST_CASE("GPU specs parse names, memory and count in any order", "[core]") {
    auto s = parse_gpu_spec("A100:80GB:8");
    CHECK(s.names == std::vector<std::string>{"A100"});
    CHECK(s.memory_gb == Approx(80));
    CHECK(s.count == 8);
    auto m = parse_gpu_spec("80gb");
    CHECK(m.names.empty());
    CHECK(m.memory_gb == Approx(80));
    CHECK(parse_gpu_spec("H100,H200").names.size() == 2);
    CHECK_THROWS_AS(parse_gpu_spec("A100::8"), UsageError);
    CHECK_THROWS_AS(parse_gpu_spec("A100:0"), UsageError);
    CHECK_THROWS_AS(parse_gpu_spec("A100:8:4"), UsageError);
    CHECK_THROWS_AS(parse_gpu_spec(""), UsageError);
}

TEST_CASE("a GPU count given as a signed or decimal number is named as a count", "[core]") {
    for (const char* spec : {"A100:-1", "A100:+2", "A100:1.5", "A100:80GB:-8", "A100:2e3"}) {
        INFO(spec);
        try {
            parse_gpu_spec(spec);
            FAIL("accepted");
        } catch (const UsageError& e) {
            CHECK(std::string(e.what()).find("must be a positive whole number (1 to 4096)") !=
                  std::string::npos);
        }
    }
    CHECK(parse_gpu_spec("4090:2").names ==
          std::vector<std::string>{"4090"});  // a bare first number is a name
}

TEST_CASE("offers filter by spec and sort by per-GPU price across currencies", "[core]") {
    Catalog c = sample();
    OfferQuery q;
    q.gpu = parse_gpu_spec("A100");
    q.sort = OfferSort::price_per_gpu;
    OfferList list = query_offers(c, q);
    REQUIRE(list.rows.size() == 3);
    // 8x A100 at 16 USD/h = 2.0/GPU; 4x at 8.0 = 2.0/GPU (tie broken by count); 9.2 CNY = 1.288 USD.
    CHECK(list.rows[0].offer->provider == "yuan");
    CHECK(*list.rows[0].hourly_price_per_gpu == Approx(9.2 * 0.14));
    CHECK(list.rows[1].offer->gpu_count == 4);

    q.gpu = parse_gpu_spec("A100:80GB:8");
    CHECK(query_offers(c, q).rows.size() == 1);
    q.gpu = parse_gpu_spec("A100:40GB");
    q.plan = Plan::reserved;
    auto reserved = query_offers(c, q);
    REQUIRE(reserved.rows.size() == 1);
    CHECK(*reserved.rows[0].hourly_price == Approx(5800 * 0.14 / 730));
}

TEST_CASE("offers in another currency convert with the catalog's rate", "[core]") {
    Catalog c = sample();
    OfferQuery q;
    q.gpu = parse_gpu_spec("t4");
    q.currency = "CNY";
    auto list = query_offers(c, q);
    REQUIRE(list.rows.size() == 1);
    CHECK(*list.rows[0].on_demand_per_hour == Approx(0.35 / 0.14));
}

TEST_CASE("a limit keeps the rows a stable sort puts first, over many ties and several batches", "[core]") {
    // More matching rows than the query's batch (4,096): the rows kept while scanning are cut back
    // to the limit several times; ties (one price, one region) must keep catalog order.
    Catalog c = sample();
    c.offers.clear();
    for (int i = 0; i < 20000; ++i) {
        Offer o = offer("cheapco", "t4", 1 + i % 3, 0.30 + 0.01 * (i % 7));
        o.instance_type = "vm-" + std::to_string(i % 11);
        o.region = "r" + std::to_string(i % 5);
        c.offers.push_back(o);
    }
    OfferQuery q;
    q.gpu = parse_gpu_spec("t4");
    q.sort = OfferSort::price_per_gpu;
    const OfferList all = query_offers(c, q);
    REQUIRE(all.rows.size() == 20000);
    for (std::size_t limit : {std::size_t{1}, std::size_t{7}, std::size_t{3000}, std::size_t{19999}}) {
        q.limit = limit;
        const OfferList first = query_offers(c, q);
        CHECK(first.matched == 20000);
        REQUIRE(first.rows.size() == limit);
        for (std::size_t i = 0; i < limit; ++i) CHECK(first.rows[i].offer == all.rows[i].offer);
    }
}

TEST_CASE("max price and an unknown provider", "[core]") {
    Catalog c = sample();
    OfferQuery q;
    q.max_price = 1.0;
    auto list = query_offers(c, q);
    for (const auto& r : list.rows) CHECK(*r.hourly_price <= 1.0);
    q.providers = {"cheapc0"};
    CHECK_THROWS_AS(query_offers(c, q), UsageError);
}

TEST_CASE("compare finds the cheapest price per GPU and plan, relative to the first GPU", "[core]") {
    Catalog c = sample();
    Comparison cmp = compare_gpus(c, {"T4", "A100"}, "USD");
    REQUIRE(cmp.gpus.size() == 3);
    const auto& t4 = cmp.gpus[0];
    REQUIRE(t4.on_demand);
    CHECK(t4.on_demand->price == Approx(0.35));
    REQUIRE(t4.spot);
    CHECK(t4.spot->price == Approx(0.12));
    CHECK_FALSE(t4.reserved);
    CHECK(*t4.usd_per_tflops_hour == Approx(0.35 / 65));
    const auto& a100_40 = cmp.gpus[1];
    CHECK(a100_40.gpu->id == "a100-40gb-pcie");
    CHECK(a100_40.on_demand->provider == "yuan");
    // reserved: the cheapest commitment per GPU-hour at full use (the monthly price over 730 h), with its term
    CHECK(a100_40.reserved->price == Approx(5800 * 0.14 / 730));
    CHECK(a100_40.reserved->unit == "per_gpu_hour_at_full_use");
    CHECK(a100_40.reserved->term_months == 1);
    CHECK(*a100_40.relative_fp16 == Approx(312.0 / 65));
}

TEST_CASE("lint flags spot above on-demand, costly reserved, zero prices, duplicates and staleness",
          "[core]") {
    Catalog c = sample();
    c.offers.push_back(offer("cheapco", "v100-16gb-sxm", 1, 1.0, 1.5));
    c.offers.push_back(offer("cheapco", "v100-16gb-sxm", 2, 2.0, {}, 2000));
    c.offers.push_back(offer("cheapco", "t4", 1, 0.0));
    c.offers.back().region = "us";
    c.offers.push_back(offer("cheapco", "t4", 1, 0.5));
    c.offers.back().region = "us";
    c.offers.back().as_of = "2020-01-01";
    Diagnostics d = lint_catalog(c, "2026-11-29");
    std::string all;
    for (const auto& x : d.all()) all += format_diagnostic(x) + "\n";
    CHECK(all.find("spot price 1.5 is not below on-demand 1") != std::string::npos);
    CHECK(all.find("reserved 2000/month costs more than 730 h of on-demand") != std::string::npos);
    CHECK(all.find("on_demand_per_hour is 0") != std::string::npos);
    CHECK(all.find("duplicate offer") != std::string::npos);
    CHECK(all.find("provider 'cheapco': 1 price(s) older than 365 days") != std::string::npos);
    CHECK_FALSE(d.has_errors());
}

// One of each lint warning (on 2026-11-29), of every kind.
Catalog with_every_lint_warning() {
    Catalog c = sample();
    c.offers.push_back(offer("cheapco", "v100-16gb-sxm", 1, 1.0, 1.5));  // spot not below on-demand
    c.offers.push_back(offer("cheapco", "t4", 2, 0.0));                  // zero price
    c.offers.push_back(offer("cheapco", "t4", 4, 1.0));
    c.offers.back().as_of = "2020-01-01";  // stale
    c.offers.push_back(offer("cheapco", "t4", 8, 2.0));
    c.offers.back().as_of = "2027-06-01";  // future
    c.offers.push_back(offer("cheapco", "t4", 3, 2.0));
    c.offers.back().as_of = "";  // undated
    c.offers.push_back(offer("cheapco", "t4", 5, 2.0));
    c.offers.back().as_of = "June";        // not a date
    c.offers.push_back(c.offers.front());  // duplicate
    c.calibration.push_back({});
    c.calibration.back().model = "no-such-model";  // unused calibration point
    return c;
}

TEST_CASE("each lint warning carries its kind, which code matches instead of the text", "[core]") {
    const Catalog c = with_every_lint_warning();
    std::map<DiagnosticKind, int> kinds;
    const Diagnostics d = lint_catalog(c, "2026-11-29");
    for (const auto& x : d.all()) ++kinds[x.kind];
    CHECK(kinds[DiagnosticKind::price_inconsistency] == 1);
    CHECK(kinds[DiagnosticKind::zero_price] == 1);
    CHECK(kinds[DiagnosticKind::stale_prices] == 1);
    CHECK(kinds[DiagnosticKind::future_prices] == 1);
    CHECK(kinds[DiagnosticKind::undated_prices] == 1);
    CHECK(kinds[DiagnosticKind::bad_date] == 1);
    CHECK(kinds[DiagnosticKind::duplicate_offer] == 1);
    CHECK(kinds[DiagnosticKind::unused_calibration] == 1);
    CHECK(kinds[DiagnosticKind::general] == 0);
    CHECK(kDiagnosticKindNames.parse("stale_prices") == DiagnosticKind::stale_prices);
    CHECK(to_string(DiagnosticKind::unused_calibration) == "unused_calibration");
}

TEST_CASE("lint's undated and dated checks split its findings in two, nothing lost or repeated", "[core]") {
    // io makes the undated checks once for the built-in tables, with the snapshot, and only the dated
    // ones at run time: together they must find what one pass finds.
    Catalog c = with_every_lint_warning();
    c.offers.push_back(offer("cheapco", "v100-16gb-sxm", 2, 2.0, {}, 2000));  // reserved too dear
    c.providers.push_back(c.providers.front());
    c.providers.back().id = "eurco";
    c.providers.back().currency = "EUR";  // no rate: an error
    c.rates.erase(std::remove_if(c.rates.begin(), c.rates.end(),
                                 [](const ExchangeRate& r) { return r.currency == "EUR"; }),
                  c.rates.end());
    auto texts = [](const Diagnostics& d) {
        std::multiset<std::string> out;
        for (const auto& x : d.all()) out.insert(format_diagnostic(x));
        return out;
    };
    const auto all = texts(lint_catalog(c, "2026-11-29"));
    const auto undated = texts(lint_catalog(c, "2026-11-29", {}, LintChecks::undated));
    const auto dated = texts(lint_catalog(c, "2026-11-29", {}, LintChecks::dated));
    CHECK(all.size() >= 10);
    CHECK(undated.size() >= 5);
    CHECK(dated.size() >= 5);
    std::multiset<std::string> both = undated;
    both.insert(dated.begin(), dated.end());
    CHECK(both == all);
    for (const auto& text : dated)
        CHECK((text.find("price(s)") != std::string::npos || text.find("as_of") != std::string::npos ||
               text.find("exchange rate") != std::string::npos));
}

TEST_CASE("a provider currency without a rate is an error", "[core]") {
    Catalog c = sample();
    c.rates.clear();
    CHECK(lint_catalog(c).has_errors());
}

TEST_CASE("ISO dates", "[core]") {
    CHECK(parse_iso_date("1970-01-01") == 0L);
    CHECK(*parse_iso_date("2026-11-29") - *parse_iso_date("2025-11-29") == 365);
    CHECK_FALSE(parse_iso_date("2026-02-30"));
    CHECK_FALSE(parse_iso_date("26-11-29"));
}

TEST_CASE("why a text is not an ISO date", "[core]") {
    CHECK(iso_date_problem("2026-02-28").empty());
    CHECK(iso_date_problem("2024-02-29").empty());
    CHECK(iso_date_problem("2026-02-30") == "February 2026 has 28 days");
    CHECK(iso_date_problem("2100-02-29") == "February 2100 has 28 days");
    CHECK(iso_date_problem("2026-04-31") == "April 2026 has 30 days");
    CHECK(iso_date_problem("2026-13-01") == "there is no month 13");
    CHECK(iso_date_problem("2026-00-10") == "there is no month 0");
    CHECK(iso_date_problem("2026-01-00") == "there is no day 0");
    CHECK(iso_date_problem("2026-1-1") == "expected YYYY-MM-DD");
    CHECK(iso_date_problem("yesterday") == "expected YYYY-MM-DD");
}

}  // namespace unit_test_catalog_core
