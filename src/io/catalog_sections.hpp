// Section readers of a catalog YAML document. Each reads one top-level key into `out`,
// reporting every problem through the context. The loader (catalog_loader.cpp) dispatches.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "gpuadvise/catalog/catalog.hpp"
#include "io/table_ref.hpp"
#include "io/yaml_context.hpp"

namespace gpuadvise::io {

void read_gpus_section(const YAML::Node& node, YamlContext& ctx, Catalog& out);
void read_providers_section(const YAML::Node& node, YamlContext& ctx, Catalog& out,
                            std::vector<TableRef>& tables);
void read_rates_section(const YAML::Node& node, YamlContext& ctx, Catalog& out);
void read_policy_section(const YAML::Node& node, YamlContext& ctx, Catalog& out);
void read_instance_networks_section(const YAML::Node& node, YamlContext& ctx, Catalog& out);
void read_grid_carbon_section(const YAML::Node& node, YamlContext& ctx, Catalog& out);
void read_models_section(const YAML::Node& node, YamlContext& ctx, Catalog& out);       // models_yaml.cpp
void read_calibration_section(const YAML::Node& node, YamlContext& ctx, Catalog& out);  // models_yaml.cpp
void read_compat_section(const YAML::Node& node, YamlContext& ctx, Catalog& out);       // compat_yaml.cpp

}  // namespace gpuadvise::io
