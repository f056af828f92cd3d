// Readers for the models and calibration sections (data/models.yaml).
#include "io/catalog_sections.hpp"

namespace gpuadvise::io {

void read_models_section(const YAML::Node& node, YamlContext& ctx, Catalog& out) {
    if (!ctx.expect_sequence(node, "models")) return;
    for (std::size_t i = 0; i < node.size(); ++i) {
        const std::string path = index_path("models", i);
        if (!ctx.expect_map(node[i], path)) continue;
        ModelPreset m;
        m.id = ctx.text(node[i], path, "id", true).value_or("");
        m.aliases = ctx.text_list(node[i], path, "aliases");
        m.source = ctx.text(node[i], path, "source", true).value_or("");
        out.models.push_back(m);
    }
}

void read_calibration_section(const YAML::Node& node, YamlContext& ctx, Catalog&) {
    ctx.expect_sequence(node, "calibration");
}

}  // namespace gpuadvise::io
