// The YAML catalog reader: located, collected errors and override rules, from strings.
#include <catch2/catch.hpp>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/model/layout_planner.hpp"
#include "io/catalog_loader.hpp"
#include "io/catalog_sections.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_catalog_yaml {

using namespace gpuadvise;

namespace {

std::vector<std::string> errors_of(const std::string& yaml) {
    Catalog c;
    std::vector<io::TableRef> tables;
    Diagnostics d;
    io::parse_catalog_yaml(yaml, "t.yaml", false, ".", c, tables, d);
    std::vector<std::string> out;
    for (const auto& x : d.all()) out.push_back(format_diagnostic(x));
    return out;
}

}  // namespace

TEST_CASE("a price that is not a number is located", "[io]") {
    auto e = errors_of(
        "providers:\n  - id: p\n    as_of: 2026-01-01\n    source: s\n    offers:\n"
        "      - {gpu: t4, on_demand_per_hour: abc}\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0] ==
          "t.yaml:6:39: error: providers[0].offers[0].on_demand_per_hour: expected a number, found 'abc'");
}

TEST_CASE("unknown keys get a did-you-mean", "[io]") {
    auto e = errors_of(
        "gpus:\n  - {id: t4, family: T4, name: T4, memory_gb: 16, tflops: {fp16: 65}, source: s, memroy_gb: "
        "3}\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0].find("unknown key 'memroy_gb'; did you mean 'memory_gb'?") != std::string::npos);
}

TEST_CASE("NaN, infinity and huge numbers are refused", "[io]") {
    for (const char* v : {".nan", ".inf", "1e309", "-3"}) {
        auto e =
            errors_of(std::string("providers:\n  - id: p\n    as_of: 2026-01-01\n    source: s\n    offers:\n"
                                  "      - {gpu: t4, on_demand_per_hour: ") +
                      v + "}\n");
        REQUIRE(e.size() == 1);
        CHECK(e[0].find("on_demand_per_hour") != std::string::npos);
    }
}

TEST_CASE("an empty document, a list at the top and bad YAML are errors, not crashes", "[io]") {
    CHECK(errors_of("").size() == 1);
    CHECK(errors_of("- a\n- b\n").size() == 1);
    CHECK(errors_of("gpus: [\n").size() == 1);
    CHECK(errors_of(std::string(200, '[')).size() == 1);
    CHECK(errors_of(std::string("gpus:\0x", 8)).size() == 1);
}

TEST_CASE("missing required keys are each reported", "[io]") {
    auto e = errors_of("gpus:\n  - {id: x}\n");
    CHECK(e.size() == 5);  // family, name, memory_gb, tflops, source
}

TEST_CASE("the built-in catalog loads without errors", "[io]") {
    io::CatalogOptions options;
    Catalog c = io::load_catalog(options);
    CHECK_FALSE(c.gpus.empty());
}

TEST_CASE("a later catalog file overrides a provider and its offers", "[io]") {
    const std::string dir = std::string(GPUADVISE_SOURCE_DIR) + "/tests/fixtures/";
    io::CatalogOptions options;
    options.builtin = false;
    options.files = {dir + "mini.yaml", dir + "override.yaml"};
    Catalog c = io::load_catalog(options);
    const Provider* p = c.find_provider("cheapco");
    REQUIRE(p);
    CHECK(p->name == "CheapCo (overridden)");
    std::size_t cheapco_offers = 0;
    for (const auto& o : c.offers)
        if (o.provider == "cheapco") {
            ++cheapco_offers;
            CHECK(o.gpu == "t4");
            CHECK(*o.on_demand_per_hour == Approx(0.30));
        }
    CHECK(cheapco_offers == 1);
    CHECK(c.find_provider("yuan"));  // untouched
    CHECK(c.find_gpu("a100-80gb-sxm")->memory_gb == Approx(80));
}

TEST_CASE("a missing catalog file is a data error naming the file", "[io]") {
    io::CatalogOptions options;
    options.builtin = false;
    options.files = {"/nonexistent/catalog.yaml"};
    try {
        io::load_catalog(options);
        FAIL("expected DataError");
    } catch (const DataError& e) {
        CHECK(std::string(e.what()) ==
              "/nonexistent/catalog.yaml: cannot open the file: No such file or directory");
    }
}

TEST_CASE("instance networks are built in and a later file overrides one by provider and instance type",
          "[io]") {
    io::CatalogOptions options;
    const Catalog builtin = io::load_catalog(options);
    const InstanceNetwork* p5 = instance_network(builtin, "aws", "p5.48xlarge");
    REQUIRE(p5);
    CHECK(p5->gbps == Approx(3200));
    CHECK(p5->kind == NetworkKind::efa);
    const InstanceNetwork* p5en = instance_network(builtin, "aws", "p5en.48xlarge");
    REQUIRE(p5en);
    CHECK(p5en->instance_type == "p5en");  // the longest prefix, not p5e
    CHECK_FALSE(instance_network(builtin, "aws", "g5.xlarge"));
    // Nebius groups only its 8-GPU H100/H200/B200 VMs into an InfiniBand GPU cluster.
    for (const char* vm : {"gpu-h100-sxm_8gpu-128vcpu-1600gb", "gpu-h200-sxm_8gpu-128vcpu-1600gb",
                           "gpu-b200-sxm_8gpu-160vcpu-1792gb"}) {
        const InstanceNetwork* n = instance_network(builtin, "nebius", vm);
        REQUIRE(n);
        CHECK(n->kind == NetworkKind::infiniband);
        CHECK(n->gbps == Approx(3200));
    }
    CHECK_FALSE(instance_network(builtin, "nebius", "gpu-h100-sxm_1gpu-16vcpu-200gb"));
    // Hyperstack's network-optimized flavors (H100, A100 with NVLink): up to 350 Gbps over SR-IOV
    // Ethernet; its plain A100, L40 and RTX A6000 flavors state no figure.
    for (const char* vm : {"n3-H100x8", "n3-H100-SXM5x8", "n3-H100x8-NVLink", "n3-A100x8-NVLink"}) {
        const InstanceNetwork* n = instance_network(builtin, "hyperstack", vm);
        REQUIRE(n);
        CHECK(n->kind == NetworkKind::ethernet);
        CHECK(n->gbps == Approx(350));
    }
    for (const char* vm : {"n3-A100x8", "n3-L40x8", "n3-RTX-A6000x8"})
        CHECK_FALSE(instance_network(builtin, "hyperstack", vm));
    // Azure's ND sizes on InfiniBand, its NC sizes on Ethernet; Lambda's on-demand instances and RunPod's
    // pods on Ethernet at their published figures (for offers that catalog update or a table brings).
    struct Row {
        const char *provider, *vm;
        double gbps;
        NetworkKind kind;
    };
    for (const Row& row : {Row{"azure", "Standard_ND96isr_H100_v5", 3200, NetworkKind::infiniband},
                           Row{"azure", "Standard_ND96amsr_A100_v4", 1600, NetworkKind::infiniband},
                           Row{"azure", "Standard_ND96asr_v4", 1600, NetworkKind::infiniband},
                           Row{"azure", "Standard_NC96ads_A100_v4", 80, NetworkKind::ethernet},
                           Row{"lambda", "gpu_8x_h100_sxm5", 3.7, NetworkKind::ethernet},
                           Row{"runpod", "8x_H100-80GB_SECURE", 0.1, NetworkKind::ethernet},
                           Row{"ibm", "gx2-8x64x1v100", 16, NetworkKind::ethernet}}) {
        CAPTURE(row.provider, row.vm);
        const InstanceNetwork* n = instance_network(builtin, row.provider, row.vm);
        REQUIRE(n);
        CHECK(n->gbps == Approx(row.gbps));
        CHECK(n->kind == row.kind);
        CHECK_FALSE(n->source.empty());
    }
    CHECK_FALSE(instance_network(builtin, "azure", "Standard_NC24ads_A100_v4"));

    options.files = {std::string(GPUADVISE_SOURCE_DIR) + "/tests/fixtures/instance_network_override.yaml"};
    const Catalog c = io::load_catalog(options);
    CHECK(c.networks.size() == builtin.networks.size());  // replaced, not added
    const InstanceNetwork* slow = instance_network(c, "aws", "p5.48xlarge");
    REQUIRE(slow);
    CHECK(slow->gbps == Approx(100));
    CHECK(slow->kind == NetworkKind::ethernet);
    CHECK(slow->source == "test: a slower p5 network");
    CHECK(instance_network(c, "aws", "p5en.48xlarge")->gbps == Approx(3200));  // untouched
}

TEST_CASE("a bad instance network is a located error", "[io]") {
    auto e = errors_of(
        "instance_networks:\n  - {provider: aws, instance_type: p5, gbps: 0, kind: EFA, source: s}\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0].rfind("t.yaml:2:", 0) == 0);
    CHECK(e[0].find("error: instance_networks[0].gbps: gbps must be above 0") != std::string::npos);
    e = errors_of(
        "instance_networks:\n  - {provider: aws, instance_type: p5, gbps: 100, kind: IB, source: s}\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0].find("instance_networks[0].kind: unknown network kind 'IB'; expected one of EFA, InfiniBand, "
                    "RoCE, RDMA, "
                    "Ethernet") != std::string::npos);
    CHECK(errors_of("instance_networks:\n  - {provider: aws, instance_type: p5, gbps: 100, kind: EFA}\n")
              .size() == 1);
}

}  // namespace io_test_catalog_yaml

namespace io_test_catalog_yaml {

// The interconnect is typed when the catalog is read (issue 24): the planner reads nvlink_domain and
// pcie_generation, never the free text.
TEST_CASE("the GPU reader types the interconnect: NVLink domain and PCIe generation", "[io]") {
    auto gpu_of = [](const std::string& fields) {
        Catalog c;
        std::vector<io::TableRef> tables;
        Diagnostics d;
        io::parse_catalog_yaml(
            "gpus:\n  - {id: g, family: G, name: G, memory_gb: 80, tflops: {bf16: 300}, source: s, " +
                fields + "}\n",
            "t.yaml", false, ".", c, tables, d);
        REQUIRE(d.all().empty());
        REQUIRE(c.gpus.size() == 1);
        return c.gpus[0];
    };
    const Gpu sxm = gpu_of("form_factor: sxm, interconnect: 'NVLink4 900 GB/s bidir, NVSwitch; PCIe5'");
    CHECK(sxm.nvlink_domain == 8);
    CHECK(sxm.pcie_generation == 5);
    const Gpu pair =
        gpu_of("form_factor: pcie, interconnect: 'NVLink bridge 112.5 GB/s (2 GPUs); PCIe4 x16'");
    CHECK(pair.nvlink_domain == 2);
    CHECK(pair.pcie_generation == 4);
    const Gpu old = gpu_of("form_factor: pcie, interconnect: 'PCIe3 x16'");
    CHECK(old.nvlink_domain == 1);
    CHECK(old.pcie_generation == 3);
    // An explicit key wins over the text.
    const Gpu stated =
        gpu_of("form_factor: sxm, interconnect: 'NVLink', nvlink_domain: 72, pcie_generation: 6");
    CHECK(stated.nvlink_domain == 72);
    CHECK(stated.pcie_generation == 6);
}

}  // namespace io_test_catalog_yaml
