// recommend --emit (issue #30): SkyPilot's accelerator names round-trip through the importer's mapping
// over every row of the shipped SkyPilot tables, and the emitters' YAML (quoting, sections).
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "builtin_fixture.hpp"
#include "gpuadvise/base/diagnostics.hpp"
#include "io/embedded_data.hpp"
#include "io/launcher_yaml.hpp"
#include "io/skypilot_gpu_names.hpp"
#include "io/skypilot_records.hpp"

using namespace gpuadvise;

namespace {

struct TableRow {
    std::string instance_type, accelerator, gpu_id;
};

// Every GPU row of one provider's shipped tables, mapped as the importer maps it.
std::vector<TableRow> mapped_rows(const Catalog& catalog, const std::string& provider) {
    std::vector<TableRow> rows;
    io::SkypilotGpuMapper mapper(catalog);
    for (const std::string& path : io::skypilot_tables_of(provider)) {
        auto bytes = io::find_embedded(path);
        REQUIRE(bytes);
        std::map<std::string, int> col;
        Diagnostics diags;
        io::read_csv_records(
            *bytes, path,
            [&](const io::CsvRecord& r) {
                if (col.empty()) {
                    for (int i = 0; i < static_cast<int>(r.fields.size()); ++i)
                        col[std::string(r.fields[i])] = i;
                    return true;
                }
                auto at = [&](const char* name) {
                    auto it = col.find(name);
                    return it == col.end() || it->second >= static_cast<int>(r.fields.size())
                               ? std::string_view()
                               : r.fields[it->second];
                };
                if (at("AcceleratorName").empty()) return true;
                const auto& m = mapper.map(provider, at("AcceleratorName"), at("InstanceType"),
                                           io::scan_gpu_info(at("GpuInfo")),
                                           io::parse_decimal(at("AcceleratorCount")).value_or(1));
                if (!m.gpu_id.empty())
                    rows.push_back(
                        {std::string(at("InstanceType")), std::string(at("AcceleratorName")), m.gpu_id});
                return true;
            },
            diags);
        REQUIRE(diags.error_count() == 0);
    }
    return rows;
}

}  // namespace

TEST_CASE("every GPU of the shipped SkyPilot tables maps back to SkyPilot's name", "[io]") {
    const Catalog& catalog = testing::builtin();
    const auto clouds = io::skypilot_clouds();
    REQUIRE(clouds.size() >= 19);  // data/market.yaml: one provider per shipped table
    std::size_t checked = 0;
    for (const std::string& provider : clouds) {
        INFO("provider " << provider);
        const io::SkypilotAcceleratorNames names(catalog, provider);
        std::map<std::string, std::set<std::string>> used;  // gpu id -> the names its rows use
        const auto rows = mapped_rows(catalog, provider);
        for (const auto& r : rows) used[r.gpu_id].insert(r.accelerator);
        for (const auto& r : rows) {
            INFO(r.instance_type << " " << r.accelerator << " -> " << r.gpu_id);
            // With the row's instance type: exactly its name (the instance types of a table name one GPU each).
            if (!r.instance_type.empty()) CHECK(names.name(r.gpu_id, r.instance_type) == r.accelerator);
            // Without one: a name this cloud's table uses for the GPU, which the importer maps back to it.
            const auto any = names.name(r.gpu_id, "");
            REQUIRE(any);
            CHECK(used[r.gpu_id].count(*any) == 1);
            ++checked;
        }
    }
    CHECK(checked > 1000);
}

TEST_CASE("every built-in offer of a SkyPilot cloud has a SkyPilot accelerator name", "[io]") {
    const Catalog& catalog = testing::builtin();
    std::map<std::string, io::SkypilotAcceleratorNames> by_provider;
    std::size_t checked = 0;
    for (const Offer& o : catalog.offers) {
        const std::string provider = o.provider.str();
        // Offers read from a SkyPilot table (not, e.g., GCP's G4 rows of commitments/gcp-pricing.yml).
        const std::string_view file = o.where.file;
        if (io::skypilot_tables_of(provider).empty() || !file.ends_with(".csv") ||
            file.find("skypilot") == std::string_view::npos)
            continue;
        auto it = by_provider.try_emplace(provider, catalog, provider).first;
        INFO(provider << " " << o.instance_type << " " << o.gpu);
        CHECK(it->second.name(o.gpu, o.instance_type));
        ++checked;
    }
    CHECK(checked > 100);
}

TEST_CASE("AWS's names: A100-80GB for p4de, H100 for p5, T4 for g4dn", "[io]") {
    const io::SkypilotAcceleratorNames aws(testing::builtin(), "aws");
    CHECK(aws.name("a100-80gb-sxm", "p4de.24xlarge") == "A100-80GB");
    CHECK(aws.name("h100-sxm", "p5.48xlarge") == "H100");
    CHECK(aws.name("t4", "") == "T4");
    // GCP's accelerator rows have no instance type: the host decides the variant, as in the importer.
    const io::SkypilotAcceleratorNames gcp(testing::builtin(), "gcp");
    CHECK(gcp.name("a100-40gb-sxm", "a2-highgpu-8g") == "A100");
    CHECK(gcp.name("a100-80gb-sxm", "a2-ultragpu-8g") == "A100-80GB");
    CHECK(gcp.name("t4", "n1-highmem-8") == "T4");
    CHECK_FALSE(aws.name("no-such-gpu", ""));
    CHECK(io::skypilot_tables_of("aws") ==
          std::vector<std::string>{"skypilot/aws-g-family.csv", "skypilot/aws.csv"});
    CHECK(io::skypilot_tables_of("alpha-cloud").empty());
}

TEST_CASE("dstack backends: provider ids that differ (vast, do) and one dstack lacks", "[io]") {
    CHECK(io::dstack_backend("aws") == "aws");
    CHECK(io::dstack_backend("vast") == "vastai");
    CHECK(io::dstack_backend("do") == "digitalocean");
    CHECK_FALSE(io::dstack_backend("alpha-cloud"));
    CHECK(io::dstack_gpu_name(testing::builtin_gpu("rtx-4090")) == "RTX4090");
    CHECK(io::dstack_gpu_name(testing::builtin_gpu("h100-sxm")) == "H100");
}

TEST_CASE("launcher YAML quotes what needs quoting and parses back", "[io]") {
    io::LaunchSpec s;
    s.name = "gpuadvise-test";
    s.cloud = "aws";
    s.region = "us-east-1";
    s.instance_type = "p5.48xlarge";
    s.accelerator = "RTX PRO 6000: WK";  // a space, a colon: must be quoted
    s.gpu_memory_gb = 96;
    s.gpus_per_node = 8;
    s.nodes = 2;
    s.spot = true;
    s.disk_gb = 300;
    s.envs = {{"TP", "8"}, {"NOTE", "a: b # c"}};
    s.header = {"Command: gpuadvise recommend --model 'x: y'", "a newline\nname: injected"};
    const YAML::Node sky = YAML::Load(io::skypilot_task_yaml(s));
    CHECK(sky["resources"]["accelerators"].as<std::string>() == "RTX PRO 6000: WK:8");
    CHECK(sky["resources"]["use_spot"].as<bool>());
    CHECK(sky["num_nodes"].as<int>() == 2);
    CHECK(sky["envs"]["NOTE"].as<std::string>() == "a: b # c");
    CHECK_FALSE(sky["service"]);
    CHECK(sky["name"].as<std::string>() == "gpuadvise-test");  // the header's newline stayed in the comment
    CHECK(sky["run"].as<std::string>().find("FILL IN") != std::string::npos);
    s.replicas = 3;
    const YAML::Node svc = YAML::Load(io::skypilot_task_yaml(s));
    CHECK(svc["service"]["replicas"].as<int>() == 3);
    CHECK(svc["service"]["readiness_probe"]["path"]);
    const YAML::Node ds = YAML::Load(io::dstack_config_yaml(s));
    CHECK(ds["type"].as<std::string>() == "service");
    CHECK(ds["replicas"].as<int>() == 3);
    CHECK(ds["resources"]["gpu"].as<std::string>() == "RTX PRO 6000: WK:96GB:8");
    CHECK(ds["env"][1].as<std::string>() == "NOTE=a: b # c");
    s.replicas.reset();
    const YAML::Node task = YAML::Load(io::dstack_config_yaml(s));
    CHECK(task["type"].as<std::string>() == "task");
    CHECK(task["nodes"].as<int>() == 2);
    CHECK(task["spot_policy"].as<std::string>() == "spot");
    CHECK(task["backends"][0].as<std::string>() == "aws");
}
