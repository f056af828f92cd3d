// Issue 14: prices that are complete (the shipped tables' accelerators all in the GPU catalog, bare
// variant names kept as the conservative variant), read from SkyPilot trees, dated honestly, and
// carried exactly into JSON.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "../cli/run_cli.hpp"
#include "gpuadvise/base/errors.hpp"
#include "io/catalog_loader.hpp"
#include "io/skypilot_gpu_names.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_prices_current {

namespace fs = std::filesystem;

namespace {

gpuadvise::testing::CliResult run(const std::vector<std::string>& args) {
    return gpuadvise::testing::run_args(args);
}

struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name) {
        path = fs::temp_directory_path() / ("gpuadvise-i14-" + name + "-" + std::to_string(::getpid()));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

const std::string kHeader =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
    "AvailabilityZone\n";

std::string row(const std::string& instance, const std::string& gpu, int count, const std::string& price,
                const std::string& region) {
    return instance + "," + gpu + "," + std::to_string(count) + ",8,64,," + price + ",," + region + "," +
           region + "a\n";
}

// Sets an environment variable for the scope of a test.
struct Env {
    std::string name;
    Env(const std::string& n, const std::string& v) : name(n) { setenv(n.c_str(), v.c_str(), 1); }
    ~Env() { unsetenv(name.c_str()); }
};

// Rows of the tables whose name contains `file` with a reason starting with `prefix`.
long reasons_starting(const gpuadvise::Catalog& c, const std::string& prefix, const std::string& file = "") {
    long n = 0;
    for (const auto& s : c.skipped)
        for (const auto& [reason, rows] : s.rows_by_reason)
            if (reason.rfind(prefix, 0) == 0 && s.file.find(file) != std::string::npos) n += rows;
    return n;
}

}  // namespace

TEST_CASE("the shipped tables skip no GPU as not in the GPU catalog: only TPUs are not GPUs", "[io]") {
    Env sky("GPUADVISE_SKY_DIR", "");
    gpuadvise::io::CatalogOptions o;
    o.cache = false;
    const auto c = gpuadvise::io::load_catalog(o);
    std::map<std::string, long> not_gpu;
    for (const auto& s : c.skipped)
        for (const auto& [reason, rows] : s.rows_by_reason) {
            INFO(s.file << ": " << reason);
            CHECK(reason.rfind("accelerator not in the GPU catalog", 0) != 0);
            if (reason.rfind("not a GPU", 0) == 0) not_gpu[reason] += rows;
        }
    REQUIRE(not_gpu.count("not a GPU (TPU)"));
    CHECK(not_gpu.size() == 1);  // the shipped tables carry no Inferentia/Trainium/FPGA rows
    // The new data: AWS g-family and OCI.
    auto count = [&](const std::string& provider, const std::string& gpu) {
        long n = 0;
        for (const auto& off : c.offers) n += off.provider == provider && off.gpu == gpu;
        return n;
    };
    CHECK(count("aws", "a10g") > 0);
    CHECK(count("aws", "l40s") > 0);
    CHECK(count("aws", "rtx-pro-6000") > 0);
    CHECK(count("oci", "a10") > 0);
    CHECK(count("cudo", "a800-80gb-pcie") > 0);  // cudo's bare "A800": variant assumed
    CHECK(count("daytona", "mi355x") > 0);
    CHECK(count("gcp", "p4") > 0);
}

TEST_CASE("a bare A100 or H100 is kept as the family's most conservative variant, marked and counted",
          "[io]") {
    TempDir dir("bare");
    const fs::path csv = dir.path / "bare.csv";
    write(csv, kHeader + row("box-1", "A100", 1, "1.5", "r1") + row("box-2", "H100", 8, "20.25", "r1") +
                   row("box-3", "A100-80GB", 1, "1.9", "r1"));
    gpuadvise::io::CatalogOptions o;
    o.cache = false;
    o.files = {csv.string()};
    o.sky_catalogs = false;
    const auto c = gpuadvise::io::load_catalog(o);
    std::map<std::string, const gpuadvise::Offer*> by_instance;
    for (const auto& off : c.offers)
        if (off.provider == "bare") by_instance[off.instance_type] = &off;
    REQUIRE(by_instance.size() == 3);
    CHECK(by_instance["box-1"]->gpu == "a100-40gb-pcie");  // least memory, PCIe
    CHECK(by_instance["box-2"]->gpu == "h100-pcie");       // 80 GB, slowest link
    REQUIRE(by_instance["box-1"]->notes.size() == 1);
    CHECK(by_instance["box-1"]->notes[0].str().rfind("variant assumed: A100 could be", 0) == 0);
    CHECK(by_instance["box-3"]->gpu == "a100-80gb-pcie");  // memory known, form factor not: still assumed
    CHECK(reasons_starting(c, "variant assumed", "bare.csv") == 3);
    CHECK(gpuadvise::io::variant_assumed_rows(c) > 3);  // the shipped tables have some too

    o.strict_variants = true;
    const auto strict = gpuadvise::io::load_catalog(o);
    long kept = 0;
    for (const auto& off : strict.offers) kept += off.provider == "bare";
    CHECK(kept == 0);
    CHECK(gpuadvise::io::variant_assumed_rows(strict) == 0);
    CHECK(reasons_starting(strict, "ambiguous variant: A100 could be", "bare.csv") == 1);
    CHECK(reasons_starting(strict, "ambiguous variant: H100 could be", "bare.csv") == 1);
}

TEST_CASE("the most conservative variant: least memory, then slowest link", "[io]") {
    gpuadvise::Gpu sxm, pcie, big;
    sxm.id = "x-sxm", sxm.memory_gb = 80, sxm.form_factor = "sxm", sxm.intra_node_busbw_gb_per_s = 200;
    pcie.id = "x-pcie", pcie.memory_gb = 80, pcie.form_factor = "pcie", pcie.intra_node_busbw_gb_per_s = 25;
    big.id = "x-big", big.memory_gb = 94, big.form_factor = "pcie";
    CHECK(gpuadvise::io::most_conservative_variant({&sxm, &big, &pcie})->id == "x-pcie");
    CHECK(gpuadvise::io::most_conservative_variant({&big, &sxm})->id == "x-sxm");
}

TEST_CASE("a 100k-row table of bare A100/H100 names keeps every row", "[io]") {
    // gen_catalog.py-style rows (every row a distinct instance type, count and region), but with the bare
    // names and no memory in GpuInfo, as marketplaces write them.
    TempDir dir("100k");
    const fs::path csv = dir.path / "market.csv";
    {
        std::ofstream out(csv, std::ios::binary);
        out << kHeader;
        const int counts[] = {1, 2, 4, 8};
        for (int n = 0; n < 100000; ++n) {
            const bool a100 = n % 2 == 0;
            const int count = counts[(n / 2) % 4];
            out << (a100 ? "a100-" : "h100-") << count << "x-" << n << "," << (a100 ? "A100" : "H100") << ","
                << count << ",16,128,\"{'Gpus': [{'Name': '" << (a100 ? "A100" : "H100")
                << "', 'Count': " << count << "}]}\"," << (1.1 + (n % 97) * 0.01) * count << ",,region-"
                << (n % 48) << ",\n";
        }
    }
    gpuadvise::io::CatalogOptions o;
    o.cache = false;
    o.files = {csv.string()};
    o.sky_catalogs = false;
    const auto c = gpuadvise::io::load_catalog(o);
    long kept = 0;
    for (const auto& off : c.offers) kept += off.provider == "market";
    CHECK(kept == 100000);
    CHECK(reasons_starting(c, "variant assumed", "market.csv") == 100000);
    CHECK(reasons_starting(c, "ambiguous") == 0);
    CHECK(reasons_starting(c, "accelerator not in") == 0);
}

TEST_CASE(
    "a catalog directory (--catalog DIR) reads a SkyPilot tree: providers named after their directories and "
    "the newest schema version",
    "[io]") {
    TempDir dir("tree");
    write(dir.path / "catalogs" / "v8" / "lambda" / "vms.csv",
          kHeader + row("gpu_1x_a10", "A10", 1, "0.5", "us-east-1"));
    write(dir.path / "catalogs" / "v9" / "lambda" / "vms.csv",
          kHeader + row("gpu_1x_a10", "A10", 1, "0.75", "us-east-1"));
    write(dir.path / "catalogs" / "v9" / "runpod" / "vms.csv", kHeader + row("1x_L4", "L4", 1, "0.44", "CA"));
    write(dir.path / "catalogs" / "v99" / "future" / "vms.csv", kHeader + row("x", "L4", 1, "0.1", "CA"));
    gpuadvise::io::CatalogOptions o;
    o.cache = false;
    o.sky_catalogs = false;
    o.today = "2026-11-29";
    o.files = {(dir.path / "catalogs").string()};
    auto c = gpuadvise::io::load_catalog(o);
    const auto* lambda = c.find_provider("lambda");
    REQUIRE(lambda);
    REQUIRE(c.find_provider("runpod"));
    CHECK(!c.find_provider("future"));  // v99 is newer than this gpuadvise reads
    CHECK(lambda->as_of.empty());       // only a file time: as-of unknown
    CHECK(lambda->source.find("as-of unknown") != std::string::npos);
    bool lambda_price = false, unknown_warning = false;
    for (const auto& off : c.offers)
        if (off.provider == "lambda") lambda_price = off.on_demand_per_hour == 0.75;  // v9, not v8
    for (const auto& d : c.warnings.all())
        unknown_warning = unknown_warning || (d.kind == gpuadvise::DiagnosticKind::undated_prices &&
                                              d.message.find("provider 'lambda'") != std::string::npos);
    CHECK(lambda_price);
    CHECK(unknown_warning);

    SECTION("a <cloud>/vms.csv file is named after its directory; --as-of dates it") {
        o.files = {(dir.path / "catalogs" / "v9" / "lambda" / "vms.csv").string()};
        o.as_of = "2026-11-20";
        c = gpuadvise::io::load_catalog(o);
        REQUIRE(c.find_provider("lambda"));
        CHECK(!c.find_provider("vms"));
        CHECK(c.find_provider("lambda")->as_of == "2026-11-20");
    }
    SECTION("the catalogs/ parent and a version directory work too") {
        for (const fs::path& p : {dir.path, dir.path / "catalogs" / "v9"}) {
            o.files = {p.string()};
            c = gpuadvise::io::load_catalog(o);
            CHECK(c.find_provider("lambda"));
            CHECK(c.find_provider("runpod"));
        }
    }
    SECTION("a directory without tables is an error naming the layouts") {
        TempDir empty("empty");
        o.files = {empty.path.string()};
        try {
            (void)gpuadvise::io::load_catalog(o);
            FAIL("expected an error");
        } catch (const gpuadvise::DataError& e) {
            CHECK(std::string(e.what()).find("error") != std::string::npos);
        }
    }
}

TEST_CASE(
    "SkyPilot local copy (~/.sky/catalogs) is read when present and marked local copy and only newer tables "
    "replace built-in ones",
    "[io]") {
    TempDir dir("sky");
    write(dir.path / "v9" / "lambda" / "vms.csv", kHeader + row("gpu_1x_a10", "A10", 1, "0.75", "us-east-1"));
    write(dir.path / "v9" / "aws" / "vms.csv", kHeader + row("g5.xlarge", "A10G", 1, "1.006", "us-east-1"));
    // aws's copy is older than the built-in table (2026-07-09): the built-in one stays.
    fs::last_write_time(dir.path / "v9" / "aws" / "vms.csv",
                        fs::file_time_type::clock::now() - std::chrono::hours(24 * 365 * 3));
    Env sky("GPUADVISE_SKY_DIR", dir.path.string());
    gpuadvise::io::CatalogOptions o;
    o.cache = false;
    const auto c = gpuadvise::io::load_catalog(o);
    const auto* lambda = c.find_provider("lambda");
    REQUIRE(lambda);
    CHECK(lambda->source.find("local copy") != std::string::npos);
    CHECK(!lambda->as_of.empty());
    CHECK(c.find_provider("aws")->source.find("local copy") == std::string::npos);
}

TEST_CASE("JSON carries every catalog price exactly as the table writes it (a whole table)", "[cli]") {
    // cudo's table has float noise such as 0.36979999999999996; JSON must not round it.
    Env sky("GPUADVISE_SKY_DIR", "");
    Env cache("GPUADVISE_CACHE_DIR", "/nonexistent/gpuadvise-cache");
    std::ifstream in(fs::path(GPUADVISE_SOURCE_DIR) / "data" / "skypilot" / "cudo.csv");
    auto split = [](const std::string& line) {
        std::vector<std::string> f;
        std::string cur;
        bool q = false;
        for (char ch : line) {
            if (ch == '"')
                q = !q;
            else if (ch == ',' && !q)
                f.push_back(cur), cur.clear();
            else if (ch != '\r')
                cur += ch;
        }
        f.push_back(cur);
        return f;
    };
    std::string line;
    std::getline(in, line);
    std::map<std::string, std::size_t> col;  // columns by header name (their order differs per cloud)
    for (const auto& name : split(line)) col.emplace(name, col.size());
    REQUIRE(col.count("Price"));
    std::map<std::pair<std::string, std::string>, double> lowest;  // (instance, region) -> lowest on-demand
    std::map<std::pair<std::string, std::string>, std::string> text;
    while (std::getline(in, line)) {
        const auto f = split(line);
        if (f.size() != col.size() || f[col["Price"]].empty()) continue;
        const auto key = std::pair(f[col["InstanceType"]], f[col["Region"]]);
        const double v = std::stod(f[col["Price"]]);
        if (!lowest.count(key) || v < lowest[key]) lowest[key] = v, text[key] = f[col["Price"]];
    }
    REQUIRE(lowest.size() > 50);
    auto r = run({"offers", "--provider", "cudo", "--limit", "100000", "--json"});
    REQUIRE(r.exit == 0);
    const auto j = nlohmann::json::parse(r.out);
    long compared = 0, noisy = 0;
    for (const auto& o : j["offers"]) {
        const auto key = std::pair(o["instance_type"].get<std::string>(), o["region"].get<std::string>());
        REQUIRE(lowest.count(key));
        INFO(key.first << " " << key.second << " " << text[key]);
        CHECK(o["on_demand_per_hour"].get<double>() == std::stod(text[key]));
        noisy += text[key].size() > 10;
        ++compared;
    }
    CHECK(compared == static_cast<long>(lowest.size()));
    CHECK(noisy > 0);  // the table has values a 6-digit rounding would change
}

TEST_CASE("catalog import skypilot reads a SkyPilot tree: one provider per cloud directory", "[cli]") {
    TempDir dir("import-tree");
    write(dir.path / "catalogs" / "v9" / "lambda" / "vms.csv",
          kHeader + row("gpu_1x_a10", "A10", 1, "0.75", "us-east-1"));
    write(dir.path / "catalogs" / "v9" / "runpod" / "vms.csv", kHeader + row("1x_L4", "L4", 1, "0.44", "CA"));
    Env sky("GPUADVISE_SKY_DIR", "");
    Env cache("GPUADVISE_CACHE_DIR", "/nonexistent/gpuadvise-cache");
    const fs::path out = dir.path / "out";
    auto r = run({"catalog", "import", "skypilot", (dir.path / "catalogs" / "v9").string(), "--output",
                  out.string(), "--as-of", "2026-11-20"});
    INFO(r.err);
    REQUIRE(r.exit == 0);
    auto info = run({"--catalog", (out / "catalog.yaml").string(), "catalog", "info", "--json"});
    INFO(info.err);
    REQUIRE(info.exit == 0);
    const auto j = nlohmann::json::parse(info.out);  // kept alive for the loop
    std::map<std::string, long> offers;
    for (const auto& p : j["providers"]) offers[p["id"].get<std::string>()] = p["offers"].get<long>();
    CHECK(offers["lambda"] == 1);
    CHECK(offers["runpod"] == 1);
    CHECK(!offers.count("vms"));
}

}  // namespace io_test_prices_current
