// The built-in catalog snapshot (compiled from data/ at build time) must load exactly what parsing
// data/ loads, alone and under every kind of --catalog layer; a damaged snapshot is a DataError.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "gpuadvise/base/errors.hpp"
#include "io/builtin_catalog.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_catalog_snapshot {

using namespace gpuadvise;
namespace fs = std::filesystem;

namespace {

// Field by field first, so that a failure names what differs.
void check_same(const Catalog& snapshot, const Catalog& yaml) {
    CHECK(snapshot.gpus == yaml.gpus);
    CHECK(snapshot.providers == yaml.providers);
    CHECK(snapshot.offers.size() == yaml.offers.size());
    CHECK(snapshot.offers == yaml.offers);
    CHECK(snapshot.rates == yaml.rates);
    CHECK(snapshot.policy == yaml.policy);
    CHECK(snapshot.models == yaml.models);
    CHECK(snapshot.calibration == yaml.calibration);
    CHECK(snapshot.compat == yaml.compat);
    CHECK(snapshot.files == yaml.files);
    CHECK(snapshot.skipped == yaml.skipped);
    CHECK(snapshot.warnings.all() == yaml.warnings.all());
    CHECK(snapshot == yaml);
}

// Loads `options` both ways: from the compiled-in snapshot and by parsing data/. Both must agree,
// also when they fail (the same located problems). nullopt when they failed.
std::optional<Catalog> compare_both_ways(const io::CatalogOptions& options) {
    std::optional<Catalog> snapshot, yaml;
    std::vector<Diagnostic> snapshot_errors, yaml_errors;
    try {
        snapshot = io::load_catalog(options);
    } catch (const DataError& e) {
        snapshot_errors = e.details();
    }
    try {
        yaml = io::load_catalog(options, std::nullopt);
    } catch (const DataError& e) {
        yaml_errors = e.details();
    }
    CHECK(snapshot_errors == yaml_errors);
    REQUIRE(snapshot.has_value() == yaml.has_value());
    if (snapshot) check_same(*snapshot, *yaml);
    return snapshot;
}

Catalog load_both_ways(const io::CatalogOptions& options) {
    auto c = compare_both_ways(options);
    REQUIRE(c);
    return *c;
}

struct TempDir {
    fs::path path = fs::temp_directory_path() / ("gpuadvise-snapshot-" + std::to_string(::getpid()));
    TempDir() { fs::create_directories(path); }
    ~TempDir() { fs::remove_all(path); }
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(path / name, std::ios::binary) << text;
        return (path / name).string();
    }
};

std::size_t offers_of(const Catalog& c, std::string_view provider, std::string_view gpu = {}) {
    std::size_t n = 0;
    for (const auto& o : c.offers) n += o.provider == provider && (gpu.empty() || o.gpu == gpu);
    return n;
}

// Every member set to something other than its default, so that a member a serialize function
// forgets comes back different. (catalog_snapshot.cpp also counts each struct's members.)
io::BuiltinCatalog every_field_set() {
    const SourceLocation at{"f.yaml", 3, 4};
    Gpu g{"id",  "fam",   "name",        "vendor", "arch", "8.0", 80,   2039,      {19.5, 156, 312, 312, 624},
          400,   "sxm",   "nvlink",      8,        4,      200,   2020, {"alias"}, {"fp8"},
          "src", "notes", "most rented", 2,        "dsrc"};
    Provider p{"prov",
               "Prov",
               "EUR",
               ProviderKind::other,
               100,
               true,
               400,
               true,
               "single node src",
               {"pytorch"},
               {"free egress"},
               "535.104.05",
               "2025-01-01",
               "src",
               at,
               "private",
               PriceOrigin::update_cache,
               {60, 120, true, "billing src"},
               1.1,
               "pue src"};
    Offer o{.provider = "prov",
            .gpu = "id",
            .region = "eu",
            .instance_type = "p4d",
            .currency = "EUR",
            .on_demand_per_hour = 1.5,
            .reserved_per_month = 900,
            .spot_per_hour = 0.5,
            .vcpus = 96,
            .ram_gb = 1152,
            .local_disk_gb = 8000,
            .as_of = "2025-01-02",
            .source = "src",
            .notes = {"note"},
            .where = at,
            .commitments = {{12, 1000.0, 0.3, 0.5, "machine type + region", "csrc", "2025-01-03", "cnote"}},
            .gpu_count = 8,
            .variant_assumed = true};
    ModelPreset m{"bert",
                  {"bert-large"},
                  "BERT",
                  ModelKind::cnn,
                  "images",
                  3.4e8,
                  1e9,
                  2e9,
                  224,
                  512,
                  1024,
                  12.5,
                  "basis",
                  {24,   1024, 16, 8,   30522, 16,  true, 64, 4096, true, 128, 2,  4,  true, true, true,
                   true, 8,    2,  512, 1,     256, true, 1,  true, true, 64,  32, 16, 48,   64},
                  50,
                  {"finetune", 1000, 3, 32, 128, 224, true, "desc"},
                  {"params"},
                  WeightFormat::fp8,
                  QuantScope::experts,
                  1.2e8,
                  "src",
                  "notes",
                  at};
    CalibrationPoint cp{"bert", "id", "fp32", 100, 120, "sequences", 8, 32, 128, 224, "src", at};
    CompatTables compat{{{"2.1", {"cu118"}, "n", "s"}},
                        {{"12.2", "535.54.03", "s"}},
                        {{12, "525.60.13", "s"}},
                        {{"cu128", "2.8", "2.9", {"sm_90"}, "n", "s"}},
                        {{Precision::fp8, "8.9", Precision::bf16, "s"}},
                        "compat source",
                        {{"9.0", "520.61.05", "H100", "s"}}};
    Catalog base;
    base.gpus = {g};
    base.providers = {p};
    base.offers = {o};
    base.rates = {{"EUR", 1.07, "2024-06-28", "ecb"}};
    REQUIRE(base.policy.set(policy_keys().front().name, 42));
    base.models = {m};
    base.calibration = {cp};
    base.compat = compat;
    base.files = {"<built-in>/providers.yaml"};
    base.grid_carbon = {{"prov", "eu", 15.83, "grid src"}};
    base.skipped = {{"t.csv", {{"reason", 7}}, {{SkipKind::other, 7}}, {{"reason", SkipKind::other}}}};
    base.warnings.warning(at, "warned");
    io::BuiltinTable t{{"prov", "skypilot", "p.csv", "skypilot/p.csv", true, at},
                       "2025-01-01",
                       "src",
                       {o},
                       {{"p.csv", {{"merged", 2}}, {{SkipKind::merged, 2}}, {{"merged", SkipKind::merged}}}},
                       {{Severity::warning, at, "table warning"}}};
    io::JoinedTables joined{{{t.ref, "2025-01-01", "src", {}, {}, {}}},
                            {o, o},
                            base.skipped,
                            {{Severity::warning, at, "joined"}},
                            {{Severity::warning, at, "undated lint", DiagnosticKind::duplicate_offer}}};
    return {base, {{Severity::error, at, "yaml"}}, {t}, joined, {}};
}

}  // namespace

TEST_CASE("snapshot: the built-in catalog from the snapshot equals the one parsed from data/", "[io]") {
    io::CatalogOptions options;
    options.today = "2031-01-01";  // old enough that every as_of gets its staleness warning, located
    const Catalog c = load_both_ways(options);
    CHECK(c.offers.size() > 500);
    CHECK(c.warnings.warning_count() > 0);
    options.today.clear();
    load_both_ways(options);
}

TEST_CASE("snapshot: every field survives the round trip", "[io]") {
    const io::BuiltinCatalog original = every_field_set();
    const io::BuiltinCatalog back = io::read_builtin_snapshot(io::write_builtin_snapshot(original));
    CHECK(back.base.gpus == original.base.gpus);
    CHECK(back.base.providers == original.base.providers);
    CHECK(back.base.offers == original.base.offers);
    CHECK(back.base.models == original.base.models);
    CHECK(back.base.calibration == original.base.calibration);
    CHECK(back.base.compat == original.base.compat);
    CHECK(back.base == original.base);
    CHECK(back.tables == original.tables);
    CHECK(back.joined == original.joined);
    CHECK(back == original);
    // Read lazily, the tables wait in their bytes and decode to the same.
    const std::string bytes = io::write_builtin_snapshot(original);
    io::BuiltinCatalog lazy = io::read_builtin_snapshot(bytes, false);
    CHECK(lazy.tables.empty());
    CHECK(lazy.joined == original.joined);
    CHECK(io::read_snapshot_tables(lazy.tables_bytes) == original.tables);
    // The default-constructed value differs in every field checked above (the test can fail).
    CHECK_FALSE(io::BuiltinCatalog{} == original);
}

TEST_CASE("snapshot: the tables are indexed by ref and decode one by one to the same", "[io]") {
    const io::BuiltinCatalog original = io::read_builtin_catalog();
    REQUIRE(original.tables.size() > 10);
    const std::string bytes = io::write_builtin_snapshot(original);
    const io::BuiltinCatalog lazy = io::read_builtin_snapshot(bytes, false);
    const std::vector<io::SnapshotTablePart> parts = io::index_snapshot_tables(lazy.tables_bytes);
    REQUIRE(parts.size() == original.tables.size());
    // In any order: each part's ref is its table's, and it decodes alone to that table.
    for (std::size_t i = parts.size(); i-- > 0;) {
        CHECK(parts[i].ref == original.tables[i].ref);
        CHECK(io::read_snapshot_table(parts[i]) == original.tables[i]);
    }
    // A part's bytes cut short or a table count past the end are DataErrors.
    io::SnapshotTablePart cut = parts.front();
    cut.bytes = cut.bytes.substr(0, cut.bytes.size() / 2);
    CHECK_THROWS_AS(io::read_snapshot_table(cut), DataError);
    std::string more(lazy.tables_bytes);
    more[0] = static_cast<char>(more[0] + 1);
    CHECK_THROWS_AS(io::index_snapshot_tables(more), DataError);
}

TEST_CASE("table store: read back only with the key it was written with, damage detected", "[io]") {
    const io::BuiltinCatalog builtin = io::read_builtin_catalog();
    REQUIRE_FALSE(builtin.tables.empty());
    const io::BuiltinTable& table = builtin.tables.front();
    REQUIRE_FALSE(table.offers.empty());
    const io::TableStoreKey key{11, 22, 33};
    const std::string bytes = io::write_table_store(table, key);
    std::string why;
    const auto back = io::read_table_store(bytes, key, why);
    REQUIRE(back);
    CHECK(*back == table);
    CHECK(why.empty());
    auto reason = [&](std::string_view b, io::TableStoreKey k) {
        std::string w;
        CHECK_FALSE(io::read_table_store(b, k, w));
        return w;
    };
    CHECK(reason(bytes, {12, 22, 33}) == "stale: written by another gpuadvise build");
    CHECK(reason(bytes, {11, 23, 33}) == "stale: vms.csv changed after it was written");
    CHECK(reason(bytes, {11, 22, 34}) == "stale: vms.csv changed after it was written");
    CHECK(reason("", key) == "corrupt: not a gpuadvise table store");
    CHECK(reason("gpuadvise-table-store-9\n" + bytes.substr(24), key) ==
          "stale: written in another store format");
    for (std::size_t at : {bytes.size() - 1, bytes.size() / 2, std::size_t{64}}) {
        std::string flipped = bytes;
        flipped[at] = static_cast<char>(flipped[at] ^ 0x20);
        CHECK(reason(flipped, key) == "corrupt: its size or checksum does not match its contents");
    }
    CHECK(reason(bytes.substr(0, bytes.size() - 1), key) ==
          "corrupt: its size or checksum does not match its contents");
    CHECK(reason(bytes + "x", key) == "corrupt: its size or checksum does not match its contents");
}

TEST_CASE("snapshot: what is compiled in is what data/ reads now", "[io]") {
    CHECK(io::read_builtin_snapshot(io::builtin_snapshot_bytes()) == io::read_builtin_catalog());
}

namespace {
// The DataError reading these bytes as a snapshot gives, or "no error".
std::string message_of(std::string_view b) {
    try {
        io::read_builtin_snapshot(b);
    } catch (const DataError& e) {
        return e.what();
    }
    return "no error";
}
}  // namespace

TEST_CASE("snapshot: a damaged snapshot is a DataError, not a crash", "[io]") {
    const std::string bytes(io::builtin_snapshot_bytes());
    CHECK(message_of("") == "the built-in catalog snapshot is not in the format this gpuadvise reads");
    CHECK(message_of("gpuadvise-snapshot-0\n" + bytes.substr(21)) ==
          "the built-in catalog snapshot is not in the format this gpuadvise reads");
    CHECK(message_of(bytes + "x") == "the built-in catalog snapshot is corrupt: 1 bytes after its end");
    for (std::size_t cut : {std::size_t{21}, std::size_t{22}, std::size_t{29}, std::size_t{1000},
                            bytes.size() / 3, bytes.size() / 2, bytes.size() - 1})
        CHECK(message_of(std::string_view(bytes).substr(0, cut))
                  .starts_with("the built-in catalog snapshot is corrupt: "));
}

TEST_CASE("snapshot: an offer's count past the end of the snapshot is a DataError, not an allocation",
          "[io]") {
    io::BuiltinCatalog b;
    Offer o;
    o.provider = "p";
    o.gpu = "h100";
    o.commitments.resize(3);
    o.commitments[0].term_months = 0x0D0C0B0A;  // marks where the count is: just before it
    b.joined.emplace().offers.push_back(o);
    std::string bytes = io::write_builtin_snapshot(b);
    CHECK(io::read_builtin_snapshot(bytes).joined->offers == b.joined->offers);
    const std::string marker("\x03\0\0\0\0\0\0\0\x0A\x0B\x0C\x0D", 12);
    const auto at = bytes.find(marker);
    REQUIRE(at != std::string::npos);
    bytes[at + 4] = 1;  // 2^32 + 3 commitments
    CHECK(message_of(bytes) ==
          "the built-in catalog snapshot is corrupt: a count of 4294967299 is past the end");
}

// Layers given with --catalog are merged before the built-in SkyPilot tables are read, so some of
// them change what those tables add; the snapshot's rows are then not used (catalog_loader.cpp).
TEST_CASE("snapshot: user layers give the same catalog as parsing data/", "[io]") {
    TempDir tmp;
    io::CatalogOptions options;
    options.today = "2031-01-01";
    io::CatalogOptions builtin_only = options;
    const Catalog plain = io::load_catalog(builtin_only);

    SECTION("a GPU that built-in rows now map to: the tables are read again") {
        // vast lists an 8 GB RTX 3060, which the built-in GPU catalog (12 GB only) skips.
        options.files = {tmp.write("gpus.yaml", R"(gpus:
  - id: rtx-3060-8gb
    family: RTX3060
    name: NVIDIA GeForce RTX 3060 8GB
    memory_gb: 8
    tflops: {fp32: 12.7}
    source: test
)")};
        const Catalog c = load_both_ways(options);
        CHECK(offers_of(plain, "vast", "rtx-3060-8gb") == 0);
        CHECK(offers_of(c, "vast", "rtx-3060-8gb") > 0);  // rows that the snapshot has as skipped
        CHECK(c.skipped != plain.skipped);
    }
    SECTION("a built-in GPU repeated unchanged") {
        options.files = {tmp.write("same.yaml",
                                   "gpus:\n  - id: rtx-4090\n    family: RTX4090\n"
                                   "    name: NVIDIA GeForce RTX 4090\n    memory_gb: 24\n"
                                   "    tflops: {fp32: 82.6}\n    source: test\n")};
        load_both_ways(options);
    }
    SECTION("a redefined provider loses its built-in table") {
        options.files = {tmp.write("aws.yaml", R"(providers:
  - id: aws
    name: AWS (mine)
    currency: USD
    as_of: 2030-06-01
    source: my quote
    offers:
      - {gpu: a100-80gb-sxm, count: 8, region: us-east-1, on_demand_per_hour: 20.0}
)")};
        const Catalog c = load_both_ways(options);
        CHECK(offers_of(plain, "aws") > 10);
        CHECK(offers_of(c, "aws") == 1);
    }
    SECTION("a SkyPilot table named after a built-in provider replaces its built-in table") {
        options.files = {
            tmp.write("aws.csv",
                      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Region,Price\n"
                      "p5.test,H100,8,192,2048,us-east-1,50.0\n")};
        const Catalog c = load_both_ways(options);
        auto from_builtin_table = [](const Catalog& cat) {
            return std::count_if(cat.offers.begin(), cat.offers.end(), [](const Offer& o) {
                return o.where.file == "<built-in>/skypilot/aws.csv";
            });
        };
        CHECK(from_builtin_table(plain) > 10);
        CHECK(from_builtin_table(c) == 0);
        CHECK(offers_of(c, "aws") == 1);
        CHECK(std::count_if(c.offers.begin(), c.offers.end(), [](const Offer& o) {
                  return o.instance_type == "p5.test" && o.gpu == "h100-sxm";
              }) == 1);
    }
    SECTION("policy, rates, models and a provider with an offer by alias") {
        options.files = {tmp.write("more.yaml", R"(policy:
  max_price_age_days: 5000
rates:
  - {currency: GBP, usd_per_unit: 1.27, as_of: 2024-06-28, source: test}
providers:
  - id: mine
    name: Mine
    currency: GBP
    as_of: 2030-01-01
    source: test
    offers:
      - {gpu: RTX4090, count: 1, region: uk, on_demand_per_hour: 0.5}
)")};
        const Catalog c = load_both_ways(options);
        CHECK(offers_of(c, "mine", "rtx-4090") == 1);
        CHECK(c.warnings.warning_count() < plain.warnings.warning_count());  // the staleness policy changed
    }
    SECTION("errors in a layer are reported alike") {
        options.files = {
            tmp.write("bad.yaml", "providers:\n  - id: x\n    offers: [{gpu: NOPE, count: 1}]\n")};
        CHECK_FALSE(compare_both_ways(options));
    }
}

}  // namespace io_test_catalog_snapshot
