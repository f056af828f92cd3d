// Issue 32: a SkyPilot table given with --catalog is read in pieces (LineChunks) and with the command's
// filters pushed down (io::OfferFilter): a filtered load keeps exactly the offers an unfiltered load
// followed by the same filter keeps, in the same order and field by field, with the same warnings,
// skip counts and errors; a streamed read reports what a whole read reports.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"
#include "gpuadvise/market/offer_query.hpp"
#include "io/catalog_loader.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_pushdown {

using namespace gpuadvise;
namespace fs = std::filesystem;

namespace {

// A table with mixed GPUs (known, variant-ambiguous, unknown), counts, regions, zone duplicates,
// CPU-only rows, empty and zero prices, a quoted GpuInfo that spans lines, and GCP's shape (host VM
// rows, some priced 0, and accelerator rows without an instance type, with or without their host).
std::string generated_table(unsigned seed, int rows) {
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    const char* gpus[][3] = {
        {"A100", "40960", "p4d"}, {"A100-80GB", "81920", "p4de"}, {"V100", "16384", "p3"},
        {"T4", "15360", "g4dn"},  {"L4", "23034", "g6"},          {"H100", "81920", "p5"},
        {"A100", "", "a2"},       {"FooGPU", "1024", "foo"},      {"MI250X", "131072", "mi"}};
    const char* regions[] = {"us-east-1",    "us-west-2",  "eu-west-1",
                             "eu-central-1", "ap-south-1", " us-east-2"};
    std::string out =
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
        "AvailabilityZone\n";
    for (int i = 0; i < rows; ++i) {
        if (pick(15) == 0) {  // a CPU-only row
            out += "m5.large,,,2,8,,0.096,0.03," + std::string(regions[pick(5)]) + ",z\n";
            continue;
        }
        if (pick(8) == 0) {  // GCP's shape: a host VM row, or an accelerator row priced with its zone's host
            const std::string region = regions[pick(5)];
            const std::string zone = region + "-" + static_cast<char>('a' + pick(3));  // hosts: not in -c
            if (pick(3) == 0 && zone.back() != 'c') {
                const char* hosts[] = {"a2-highgpu-1g", "a2-highgpu-2g", "a3-highgpu-8g", "n1-highmem-8",
                                       "n1-highmem-16"};
                const std::string od = pick(6) == 0 ? "0" : std::to_string(0.3 + pick(300) / 100.0);
                out += std::string(hosts[pick(5)]) + ",,,12,85,," + od + "," + (pick(2) ? "0.1" : "") + "," +
                       region + "," + zone + "\n";
                continue;
            }
            const char* accelerators[][2] = {{"A100", "40960"}, {"A100", ""},    {"A100-80GB", "81920"},
                                             {"H100", "81920"}, {"T4", "15360"}, {"V100", "16384"},
                                             {"L4", "23034"}};
            const auto& a = accelerators[pick(7)];
            const int count = 1 << pick(2);
            const std::string info = a[1][0] ? "\"{'Gpus': [{'Name': '" + std::string(a[0]) +
                                                   "', 'Count': " + std::to_string(count) +
                                                   ", 'MemoryInfo': {'SizeInMiB': " + a[1] + "}}]}\""
                                             : "";
            const double price = 0.3 + pick(900) / 100.0;
            out += "," + std::string(a[0]) + "," + std::to_string(count) + ",,," + info + "," +
                   std::to_string(price) + "," + (pick(2) ? std::to_string(price * 0.4) : "") + "," + region +
                   "," + zone + "\n";
            continue;
        }
        const auto& g = gpus[pick(9)];
        const int count = 1 << pick(4);
        const std::string instance =
            std::string(g[2]) + "." + std::to_string(count) + "x" + std::to_string(pick(3));
        const std::string region = regions[pick(6)];
        const double price = 0.5 + pick(4000) / 100.0;
        std::string spot = pick(3) == 0 ? "" : std::to_string(price * (0.2 + pick(90) / 100.0));
        std::string od = std::to_string(price);
        if (pick(40) == 0) od = "";
        if (pick(50) == 0) od = "0";
        std::string info = g[1][0] ? "\"{'Gpus': [{'Name': '" + std::string(g[0]) +
                                         "', 'Count': " + std::to_string(count) +
                                         ", 'MemoryInfo': {'SizeInMiB': " + g[1] + "}}]}\""
                                   : "";
        if (pick(20) == 0) info = "\"{'Gpus': [{'Name': '" + std::string(g[0]) + "',\n 'Count': 1}]}\"";
        const int zones = 1 + (pick(4) == 0 ? pick(3) : 0);  // zone duplicates with other prices
        for (int z = 0; z < zones; ++z)
            out += instance + "," + g[0] + "," + std::to_string(count) + "," + std::to_string(8 * count) +
                   "," + std::to_string(32 * count) + "," + info + "," + od + "," + spot + "," + region +
                   "," + region + static_cast<char>('a' + z) + "\n";
        if (pick(30) == 0) out += "\n";  // a blank line
    }
    return out;
}

std::string write_file(const std::string& name, const std::string& text) {
    const fs::path dir = fs::temp_directory_path() / "gpuadvise-test-pushdown";
    fs::create_directories(dir);
    const std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

io::CatalogOptions options_for(const std::string& path, std::size_t chunk,
                               std::optional<io::OfferFilter> filter,
                               io::StreamKeying keying = io::StreamKeying::balance) {
    io::CatalogOptions o;
    o.files = {path};
    o.provider_name = "tbl";
    o.sky_catalogs = false;
    o.cache = false;
    o.today = "2026-12-01";
    o.stream_chunk_bytes = chunk;
    o.stream_keying = keying;
    o.filter = std::move(filter);
    return o;
}

// What query_offers would keep of an offer for these filters (written out again here, not io's code).
bool matches(const Catalog& c, const io::OfferFilter& f, const Offer& o) {
    if (!f.gpu.names.empty() || f.gpu.memory_gb) {
        const auto wanted = select_gpus(c, f.gpu);
        if (std::none_of(wanted.begin(), wanted.end(), [&](const Gpu* g) { return g->id == o.gpu; }))
            return false;
    }
    if (f.gpu.count && o.gpu_count != *f.gpu.count) return false;
    if (!f.providers.empty() && std::none_of(f.providers.begin(), f.providers.end(),
                                             [&](const std::string& p) { return iequals(p, o.provider); }))
        return false;
    if (!f.regions.empty() && std::none_of(f.regions.begin(), f.regions.end(), [&](const std::string& r) {
            return to_lower(o.region).find(to_lower(r)) != std::string::npos;
        }))
        return false;
    return true;
}

// The offers a query with these filters can see: every other provider's, and the table's that match.
std::vector<Offer> kept(const Catalog& c, const io::OfferFilter& f) {
    std::vector<Offer> out;
    for (const auto& o : c.offers)
        if (o.provider != "tbl" || matches(c, f, o)) out.push_back(o);
    return out;
}

// A filtered load also holds, for the lint's sake, offers that cannot match whose merged zone prices
// warned at some point of the read (spot not below on-demand): each is one of the unfiltered load's,
// with its key, prices and place.
void check_stand_ins(const Catalog& all, const Catalog& some, const io::OfferFilter& f) {
    std::size_t i = 0;
    for (const auto& o : some.offers) {
        if (o.provider != "tbl" || matches(some, f, o)) continue;
        while (i < all.offers.size() &&
               !(all.offers[i].gpu == o.gpu && all.offers[i].gpu_count == o.gpu_count &&
                 all.offers[i].region == o.region && all.offers[i].instance_type == o.instance_type))
            ++i;
        REQUIRE(i < all.offers.size());  // in the same order
        CHECK(all.offers[i].on_demand_per_hour == o.on_demand_per_hour);
        CHECK(all.offers[i].spot_per_hour == o.spot_per_hour);
        CHECK(all.offers[i].where == o.where);
    }
}

io::OfferFilter filter(const std::string& gpu, std::vector<std::string> providers = {},
                       std::vector<std::string> regions = {}) {
    return io::OfferFilter{gpu.empty() ? GpuSpec{} : parse_gpu_spec(gpu), std::move(providers),
                           std::move(regions)};
}

std::vector<std::string> messages(const Diagnostics& d) {
    std::vector<std::string> out;
    for (const auto& x : d.all()) out.push_back(format_diagnostic(x));
    return out;
}

// The load's error text and every diagnostic, or "" when it loads.
std::string load_errors(const io::CatalogOptions& o) {
    try {
        (void)io::load_catalog(o);
    } catch (const DataError& e) {
        std::string out = e.what();
        for (const auto& d : e.details()) out += "\n" + format_diagnostic(d);
        return out;
    }
    return "";
}

// `head`, a T4 row whose price is not a number, `middle`, a row of 5 fields, then `tail`'s rows.
std::string with_broken_rows(std::string head, const std::string& middle, const std::string& tail) {
    head += "g4dn.xlarge,T4,1,4,16,,abc,,us-east-1,us-east-1a\n" + middle + "g4dn.xlarge,T4,1,4,16\n";
    return head + tail.substr(tail.find('\n') + 1);
}

// The same offers, field by field and in order: a dropped, added, altered or moved offer fails here.
void require_same(const std::vector<Offer>& expected, const std::vector<Offer>& got) {
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) REQUIRE(got[i] == expected[i]);
}

}  // namespace

TEST_CASE("pushdown: a filtered load keeps exactly the offers an unfiltered load and the same filter keep",
          "[io]") {
    const std::string path = write_file("mixed.csv", generated_table(32, 3000));
    const Catalog all = io::load_catalog(options_for(path, 0, std::nullopt));
    const Catalog all_streamed = io::load_catalog(options_for(path, 700, std::nullopt));
    REQUIRE(all_streamed.offers == all.offers);
    CHECK(all_streamed.skipped == all.skipped);
    CHECK(messages(all_streamed.warnings) == messages(all.warnings));
    const auto table_offers = std::count_if(all.offers.begin(), all.offers.end(),
                                            [](const Offer& o) { return o.provider == "tbl"; });
    REQUIRE(table_offers > 500);
    // GCP's accelerator rows: priced with their zone's host, an n1 host, or alone (each kind present).
    auto gcp = [&](const char* instance, bool complete) {
        return std::count_if(all.offers.begin(), all.offers.end(), [&](const Offer& o) {
            return o.instance_type.rfind(instance, 0) == 0 && o.price_complete == complete;
        });
    };
    CHECK(gcp("a2-highgpu-", true) > 5);
    CHECK(gcp("a2-highgpu-", false) > 5);
    CHECK(gcp("n1-highmem-", true) > 5);
    CHECK(gcp("n1-*", false) > 5);
    CHECK(gcp("g2-standard-*", false) > 5);

    for (const io::OfferFilter& f :
         {filter("A100"), filter("A100:8"), filter("80GB"), filter("H100,T4"), filter("MI250X:8"),
          filter("", {"TBL"}), filter("", {"aws"}), filter("", {}, {"EAST"}),
          filter("T4", {"tbl"}, {"eu", "ap-"}), filter("l4:2"), filter("", {}, {"nowhere"})}) {
        // Whole, and streamed in small pieces (a row across pieces everywhere); 64 KiB pieces once, below.
        for (std::size_t chunk : {std::size_t{0}, std::size_t{700}}) {
            INFO("chunk " << chunk << ", gpu " << (f.gpu.names.empty() ? "" : f.gpu.names.front()));
            const Catalog some = io::load_catalog(options_for(path, chunk, f));
            require_same(kept(all, f), kept(some, f));
            check_stand_ins(all, some, f);
            CHECK(some.skipped == all.skipped);
            CHECK(messages(some.warnings) == messages(all.warnings));
            CHECK(some.gpus == all.gpus);
            CHECK(some.providers == all.providers);
            // And what `offers` shows from them.
            OfferQuery q;
            q.gpu = f.gpu;
            q.providers = f.providers;
            q.regions = f.regions;
            q.sort = OfferSort::price_per_gpu;
            q.plan = Plan::on_demand;
            if (std::find(f.providers.begin(), f.providers.end(), "aws") == f.providers.end()) {
                const OfferList a = query_offers(all, q), b = query_offers(some, q);
                REQUIRE(a.rows.size() == b.rows.size());
                CHECK(a.matched == b.matched);
                for (std::size_t i = 0; i < a.rows.size(); ++i) CHECK(*a.rows[i].offer == *b.rows[i].offer);
                // --limit N: the first N of the whole order (a partial sort, ties in catalog order).
                for (std::size_t limit : {std::size_t{1}, std::size_t{10}, std::size_t{97}}) {
                    q.limit = limit;
                    const OfferList top = query_offers(some, q);
                    CHECK(top.matched == b.matched);
                    REQUIRE(top.rows.size() == std::min(limit, b.rows.size()));
                    for (std::size_t i = 0; i < top.rows.size(); ++i)
                        CHECK(top.rows[i].offer == b.rows[i].offer);
                }
                q.limit.reset();
            }
        }
    }
    // 64 KiB pieces (many rows each), for two filters.
    for (const io::OfferFilter& f : {filter("A100:8"), filter("", {"TBL"})}) {
        const Catalog some = io::load_catalog(options_for(path, std::size_t{1} << 16, f));
        require_same(kept(all, f), kept(some, f));
        CHECK(some.skipped == all.skipped);
        CHECK(messages(some.warnings) == messages(all.warnings));
    }
}

TEST_CASE("pushdown: a streamed table read in two stages gives a whole read's offers, over full batches",
          "[io]") {
    // More rows than one hand-over batch holds (2,048), more text than one batch's 512 KiB, one row
    // longer than a batch (a 3 MiB instance name) and errors on both sides of it: the read stage
    // (its own thread for a streamed table) and the offer stage see the same rows as a whole read,
    // whichever of them works out the rows' keys (balanced, or pinned to either).
    const std::string table = with_broken_rows(
        generated_table(41, 12000), std::string(3u << 20, 'x') + ",T4,1,4,16,,0.5,,us-east-1,us-east-1a\n",
        generated_table(42, 12000));
    const std::string path = write_file("batches.csv", table);
    const std::string whole = load_errors(options_for(path, 0, std::nullopt));
    REQUIRE(whole.find("Price: 'abc' is not a number") != std::string::npos);
    REQUIRE(whole.find("row has 5 fields") != std::string::npos);
    const io::StreamKeying keyings[] = {io::StreamKeying::balance, io::StreamKeying::read_stage,
                                        io::StreamKeying::offer_stage};
    for (std::size_t chunk : {std::size_t{1} << 16, std::size_t{5} << 20})
        for (io::StreamKeying keying : keyings) {
            INFO("chunk " << chunk << ", keying " << static_cast<int>(keying));
            CHECK(load_errors(options_for(path, chunk, std::nullopt, keying)) == whole);
            CHECK(load_errors(options_for(path, chunk, filter("A100"), keying)) == whole);
        }
    // Without the two broken rows the table loads; offers field by field, in order.
    std::string clean = table;
    for (const char* bad : {"g4dn.xlarge,T4,1,4,16,,abc,,us-east-1,us-east-1a\n", "g4dn.xlarge,T4,1,4,16\n"})
        clean.erase(clean.find(bad), std::string(bad).size());
    const std::string clean_path = write_file("batches-clean.csv", clean);
    const Catalog base = io::load_catalog(options_for(clean_path, 0, std::nullopt));
    const auto longest = std::max_element(
        base.offers.begin(), base.offers.end(),
        [](const Offer& a, const Offer& b) { return a.instance_type.size() < b.instance_type.size(); });
    REQUIRE(longest != base.offers.end());
    REQUIRE(longest->instance_type.size() == (3u << 20));
    for (std::size_t chunk : {std::size_t{1} << 16, std::size_t{5} << 20})
        for (io::StreamKeying keying : keyings)
            for (const std::optional<io::OfferFilter>& f :
                 {std::optional<io::OfferFilter>(), std::optional<io::OfferFilter>(filter("T4"))}) {
                INFO("chunk " << chunk << ", keying " << static_cast<int>(keying) << (f ? " filtered" : ""));
                const Catalog some = io::load_catalog(options_for(clean_path, chunk, f, keying));
                const io::OfferFilter none;
                require_same(kept(base, f ? *f : none), kept(some, f ? *f : none));
                CHECK(some.skipped == base.skipped);
                CHECK(messages(some.warnings) == messages(base.warnings));
            }
}

TEST_CASE("pushdown: --strict-variants and a dated table give the same offers and warnings filtered",
          "[io]") {
    const std::string path = write_file("strict.csv", generated_table(7, 1500));
    for (bool strict : {false, true})
        for (const std::string as_of : {"", "2026-11-30", "2020-01-01", "2027-06-01"}) {
            INFO("strict " << strict << " as_of '" << as_of << "'");
            io::CatalogOptions base = options_for(path, 0, std::nullopt);
            base.strict_variants = strict;
            base.as_of = as_of;
            const Catalog all = io::load_catalog(base);
            for (const io::OfferFilter& f : {filter("A100"), filter("MI250X"), filter("", {"nobody-else"})}) {
                io::CatalogOptions o = base;
                o.filter = f;
                o.stream_chunk_bytes = 4096;
                const Catalog some = io::load_catalog(o);
                CHECK(kept(some, f) == kept(all, f));
                check_stand_ins(all, some, f);
                CHECK(messages(some.warnings) == messages(all.warnings));
                CHECK(some.skipped == all.skipped);
            }
        }
}

TEST_CASE("pushdown: a broken row that the filter would drop is still a located error", "[io]") {
    // A T4 row with a price that is not a number, near the end (in a late piece), and a short row.
    const std::string table = with_broken_rows(generated_table(11, 400), "", generated_table(12, 50));
    const std::string path = write_file("broken.csv", table);
    const std::string whole = load_errors(options_for(path, 0, std::nullopt));
    REQUIRE(whole.find("Price: 'abc' is not a number") != std::string::npos);
    REQUIRE(whole.find("row has 5 fields") != std::string::npos);
    CHECK(load_errors(options_for(path, 0, filter("A100"))) == whole);
    CHECK(load_errors(options_for(path, 512, filter("A100"))) == whole);
    CHECK(load_errors(options_for(path, 512, filter("", {"nobody"}))) == whole);
    CHECK(load_errors(options_for(path, 512, std::nullopt)) == whole);
}

TEST_CASE(
    "pushdown: a streamed table reports a NUL byte, invalid UTF-8 and an open quote as a whole read does",
    "[io]") {
    const std::string body = generated_table(5, 300);
    const std::size_t late = body.size() - 200;  // well past the first pieces
    auto late_line = [&](std::string insert) {
        std::string t = body;
        t.insert(t.find('\n', late) + 1, insert);
        return t;
    };
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"nul.csv", late_line(std::string("p3.2xlarge,V100,1,8,61,,3.06,,us-east-1,a\0b\n", 44))},
        {"utf8.csv", late_line("p3.2xlarge,V100,1,8,61,,3.06,,us-\xC3\x28-east-1,a\n")},
        {"utf8-then-nul.csv",
         late_line("p3.2xlarge,V100,1,8,61,,3.06,,us-\xC3\x28-east-1,a\n") + std::string("x\0\n", 3)},
        {"row-error-then-utf8.csv",
         "InstanceType,AcceleratorName,AcceleratorCount,Price,Region\nx,T4,1,abc,r\n" +
             body.substr(body.find('\n') + 1) + "p3,V100,1,3.06,\xFF\n"},
        {"open-quote.csv", body + "p3.2xlarge,V100,1,8,61,\"{'Gpus': [\n,3.06,,us-east-1,a\n"},
        {"bad-quote.csv", late_line("p3.2xlarge,V100,1,8,61,\"x\"y,3.06,,us-east-1,a\n")},
    };
    for (const auto& [name, text] : cases) {
        INFO(name);
        const std::string path = write_file(name, text);
        const std::string whole = load_errors(options_for(path, 0, std::nullopt));
        REQUIRE(!whole.empty());
        for (std::size_t chunk : {std::size_t{64}, std::size_t{1000}, std::size_t{4096}}) {
            INFO("chunk " << chunk);
            CHECK(load_errors(options_for(path, chunk, std::nullopt)) == whole);
            CHECK(load_errors(options_for(path, chunk, filter("A100"))) == whole);
        }
    }
}

TEST_CASE("pushdown: LineChunks returns whole lines, a long line whole, and refuses what read_file refuses",
          "[io]") {
    std::string text;
    for (int i = 0; i < 200; ++i)
        text += std::string(static_cast<std::size_t>(i % 37), 'x') + std::to_string(i) + "\n";
    text += std::string(5000, 'y') + "\nlast line without newline";
    const std::string path = write_file("lines.txt", text);
    io::LineChunks chunks(path, 100);
    CHECK(chunks.size() == text.size());
    std::string seen;
    std::size_t pieces = 0;
    for (std::string_view piece = chunks.next(); !piece.empty(); piece = chunks.next()) {
        ++pieces;
        seen.append(piece);
        if (seen.size() < text.size()) CHECK(piece.back() == '\n');
    }
    CHECK(seen == text);
    CHECK(pieces > 20);
    io::LineChunks again(path, 100);
    const std::string head(again.peek());
    CHECK(head == again.next());
    CHECK(again.read_all().size() + again.peek().size() <= text.size());
    CHECK_THROWS_AS(io::LineChunks(fs::temp_directory_path().string(), 100), DataError);
    CHECK_THROWS_AS(io::LineChunks("/nonexistent/x.csv", 100), DataError);
}

}  // namespace io_test_pushdown
