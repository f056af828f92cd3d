// Reader for the compat section (data/compat.yaml).
#include "io/catalog_sections.hpp"

namespace gpuadvise::io {

void read_compat_section(const YAML::Node& node, YamlContext& ctx, Catalog& out) {
    if (!ctx.expect_map(node, "compat")) return;
    out.compat.source = ctx.text(node, "compat", "source", true).value_or("");
}

}  // namespace gpuadvise::io
