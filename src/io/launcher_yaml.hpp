// Launcher files for a recommended option (issue #30): a SkyPilot task YAML or a dstack run
// configuration, written with yaml-cpp's emitter. The formats, their versions and sources are in
// docs/usage.md ("Launching the pick"); the schema the tests hold them to is tests/launch/schema.yaml.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuadvise/catalog/catalog.hpp"
#include "io/skypilot_gpu_names.hpp"
#include "io/skypilot_records.hpp"

namespace gpuadvise::io {

// Everything a launcher file says, already decided by the caller (cli/emit.cpp).
struct LaunchSpec {
    std::string name;           // task name
    std::string cloud;          // SkyPilot cloud, or dstack backend; empty: none
    std::string region;         // empty: not known
    std::string instance_type;  // empty: not known
    std::string accelerator;    // the launcher's GPU name
    double gpu_memory_gb = 0;   // per GPU (dstack's NAME:MEMORY:COUNT)
    int gpus_per_node = 1;
    int nodes = 1;
    bool spot = false;
    std::optional<int> disk_gb;
    std::vector<std::pair<std::string, std::string>> envs;  // the layout, as plain variables
    std::vector<std::string> header;                        // comment lines above the document
    std::optional<int> replicas;                            // an online service: its replicas
};

// SkyPilot's defaults and dstack's (their task references, docs/usage.md).
inline constexpr int kSkypilotDefaultDiskGb = 256;
inline constexpr int kDstackDefaultDiskGb = 100;

std::string skypilot_task_yaml(const LaunchSpec& spec);
std::string dstack_config_yaml(const LaunchSpec& spec);

// The SkyPilot tables shipped for a provider (data/skypilot/<id>.csv and <id>-*.csv, as
// data/market.yaml names them): their embedded paths, empty when SkyPilot's catalog has none for it.
std::vector<std::string> skypilot_tables_of(std::string_view provider);
// Every provider with a shipped SkyPilot table (their ids are SkyPilot's cloud names).
std::vector<std::string> skypilot_clouds();

// The names SkyPilot's catalog gives GPUs on one provider: the reverse of the importer's mapping
// (SkypilotGpuMapper), read off the provider's shipped tables once.
class SkypilotAcceleratorNames {
public:
    SkypilotAcceleratorNames(const Catalog& catalog, std::string_view provider);
    // The name of GPU `gpu_id`: that of the row of `instance_type` when there is one, else the name
    // most rows mapping to `gpu_id` use (the first of a tie). Rows without an instance type (GCP's
    // accelerator rows, which the importer pairs with a host) are mapped with `instance_type` as the
    // machine, as the importer maps them with their host. nullopt: no row maps to it.
    std::optional<std::string> name(std::string_view gpu_id, std::string_view instance_type) const;

private:
    struct Names {
        std::map<std::string, std::string, std::less<>> by_instance;  // instance type -> name
        std::vector<std::pair<std::string, int>> votes;               // name, rows; first seen first
    };
    struct Unpaired {
        std::string name;
        GpuInfoFacts info;
        double count = 1;
    };
    std::string provider_;
    std::map<std::string, Names, std::less<>> by_gpu_;
    std::vector<Unpaired> unpaired_;
    mutable SkypilotGpuMapper mapper_;
};

// dstack's backend type for a provider id, nullopt where dstack has no backend for it.
std::optional<std::string> dstack_backend(std::string_view provider);
// Every provider id dstack_backend knows (for the message of an unsupported one).
std::vector<std::string> dstack_providers();
// dstack's GPU name: the model, without memory or form factor ("H100", "A100", "RTX4090").
std::string dstack_gpu_name(const Gpu& gpu);

}  // namespace gpuadvise::io
