// Reader for the compat section (data/compat.yaml): PyTorch releases and their wheels, driver
// minimums, wheel architecture lists and precision rules. Every row needs a source; versions,
// wheel names and sm_ names are checked here so the core can trust them.
#include <algorithm>

#include "gpuadvise/compat/compat.hpp"
#include "io/catalog_sections.hpp"

namespace gpuadvise::io {
namespace {

std::optional<std::string> version_field(const YAML::Node& node, YamlContext& ctx, const std::string& path,
                                         std::string_view key, bool pytorch) {
    auto text = ctx.text(node, path, key, true);
    if (!text) return std::nullopt;
    bool ok = pytorch ? parse_pytorch_version(*text).has_value() : parse_version(*text).has_value();
    if (!ok) {
        ctx.error(node[std::string(key)], key_path(path, key),
                  "'" + *text + "' is not a version; expected digits and dots such as " +
                      (pytorch ? "2.1" : "535.104.05"));
        return std::nullopt;
    }
    return text;
}

void read_wheel_list(const YAML::Node& node, YamlContext& ctx, const std::string& path,
                     std::vector<std::string>& out) {
    out = ctx.text_list(node, path, "wheels");
    for (std::size_t i = 0; i < out.size(); ++i)
        if (!cuda_of_wheel(out[i]))
            ctx.error(node["wheels"][i], index_path(key_path(path, "wheels"), i),
                      "'" + out[i] + "' is not a CUDA wheel variant; expected cuXYZ such as cu118");
}

void read_releases(const YAML::Node& node, YamlContext& ctx, CompatTables& t) {
    const std::string base = "compat.pytorch_releases";
    if (!ctx.expect_sequence(node, base)) return;
    for (std::size_t i = 0; i < node.size(); ++i) {
        const std::string path = index_path(base, i);
        if (!ctx.expect_map(node[i], path)) continue;
        ctx.check_keys(node[i], path, {"series", "wheels", "notes", "source"});
        PytorchRelease r;
        r.series = version_field(node[i], ctx, path, "series", true).value_or("");
        read_wheel_list(node[i], ctx, path, r.wheels);
        if (r.wheels.empty())
            ctx.error(node[i], path, "missing 'wheels': the CUDA wheel variants of this release");
        r.notes = ctx.text(node[i], path, "notes").value_or("");
        r.source = ctx.text(node[i], path, "source", true).value_or("");
        t.releases.push_back(std::move(r));
    }
}

void read_minor_compat(const YAML::Node& node, YamlContext& ctx, CompatTables& t) {
    const std::string base = "compat.minor_version_compat";
    if (!ctx.expect_sequence(node, base)) return;
    for (std::size_t i = 0; i < node.size(); ++i) {
        const std::string path = index_path(base, i);
        if (!ctx.expect_map(node[i], path)) continue;
        ctx.check_keys(node[i], path, {"cuda_major", "min_driver", "source"});
        MinorCompatFloor f;
        f.cuda_major = static_cast<int>(ctx.integer(node[i], path, "cuda_major", true, 7, 99).value_or(0));
        f.min_driver = version_field(node[i], ctx, path, "min_driver", false).value_or("");
        f.source = ctx.text(node[i], path, "source", true).value_or("");
        t.minor_compat.push_back(std::move(f));
    }
}

void read_toolkit_drivers(const YAML::Node& node, YamlContext& ctx, CompatTables& t) {
    const std::string base = "compat.toolkit_drivers";
    if (!ctx.expect_sequence(node, base)) return;
    for (std::size_t i = 0; i < node.size(); ++i) {
        const std::string path = index_path(base, i);
        if (!ctx.expect_map(node[i], path)) continue;
        ctx.check_keys(node[i], path, {"cuda", "min_driver", "source"});
        ToolkitDriver d;
        d.cuda = version_field(node[i], ctx, path, "cuda", false).value_or("");
        d.min_driver = version_field(node[i], ctx, path, "min_driver", false).value_or("");
        d.source = ctx.text(node[i], path, "source", true).value_or("");
        t.toolkit_drivers.push_back(std::move(d));
    }
}

void read_wheel_archs(const YAML::Node& node, YamlContext& ctx, CompatTables& t) {
    const std::string base = "compat.wheel_archs";
    if (!ctx.expect_sequence(node, base)) return;
    for (std::size_t i = 0; i < node.size(); ++i) {
        const std::string path = index_path(base, i);
        if (!ctx.expect_map(node[i], path)) continue;
        ctx.check_keys(node[i], path, {"wheel", "pytorch_from", "pytorch_to", "archs", "notes", "source"});
        WheelArchs w;
        w.wheel = ctx.text(node[i], path, "wheel", true).value_or("");
        if (!w.wheel.empty() && !cuda_of_wheel(w.wheel))
            ctx.error(node[i]["wheel"], key_path(path, "wheel"),
                      "'" + w.wheel + "' is not a CUDA wheel variant; expected cuXYZ");
        w.pytorch_from = version_field(node[i], ctx, path, "pytorch_from", true).value_or("");
        if (node[i]["pytorch_to"].IsDefined())
            w.pytorch_to = version_field(node[i], ctx, path, "pytorch_to", true).value_or("");
        w.archs = ctx.text_list(node[i], path, "archs");
        if (w.archs.empty()) ctx.error(node[i], path, "missing 'archs': the sm_XX list of this wheel");
        for (std::size_t k = 0; k < w.archs.size(); ++k)
            if (w.archs[k].rfind("sm_", 0) != 0 || !parse_compute_capability(w.archs[k]))
                ctx.error(node[i]["archs"][k], index_path(key_path(path, "archs"), k),
                          "'" + w.archs[k] + "' is not an architecture; expected sm_XX such as sm_80");
        w.notes = ctx.text(node[i], path, "notes").value_or("");
        w.source = ctx.text(node[i], path, "source", true).value_or("");
        t.wheel_archs.push_back(std::move(w));
    }
}

void read_precision(const YAML::Node& node, YamlContext& ctx, CompatTables& t) {
    const std::string base = "compat.precision";
    if (!ctx.expect_sequence(node, base)) return;
    for (std::size_t i = 0; i < node.size(); ++i) {
        const std::string path = index_path(base, i);
        if (!ctx.expect_map(node[i], path)) continue;
        ctx.check_keys(node[i], path, {"precision", "min_compute_capability", "fallback", "source"});
        PrecisionRule r;
        for (auto [key, into] : {std::pair{"precision", &r.precision}, std::pair{"fallback", &r.fallback}}) {
            auto text = ctx.text(node[i], path, key, true);
            if (!text) continue;
            if (auto p = parse_precision(*text))
                *into = *p;
            else
                ctx.error(node[i][key], key_path(path, key),
                          "unknown precision '" + *text + "'; expected fp32, tf32, fp16, bf16 or fp8");
        }
        r.min_compute_capability = ctx.text(node[i], path, "min_compute_capability", true).value_or("");
        if (!r.min_compute_capability.empty() && !parse_compute_capability(r.min_compute_capability))
            ctx.error(node[i]["min_compute_capability"], key_path(path, "min_compute_capability"),
                      "'" + r.min_compute_capability + "' is not a compute capability such as 8.0");
        r.source = ctx.text(node[i], path, "source", true).value_or("");
        t.precision_rules.push_back(std::move(r));
    }
}

void read_gpu_drivers(const YAML::Node& node, YamlContext& ctx, CompatTables& t) {
    const std::string base = "compat.gpu_drivers";
    if (!ctx.expect_sequence(node, base)) return;
    for (std::size_t i = 0; i < node.size(); ++i) {
        const std::string path = index_path(base, i);
        if (!ctx.expect_map(node[i], path)) continue;
        ctx.check_keys(node[i], path, {"compute_capability", "min_driver", "gpus", "source"});
        GpuDriverFloor g;
        g.compute_capability = ctx.text(node[i], path, "compute_capability", true).value_or("");
        if (!g.compute_capability.empty() && !parse_compute_capability(g.compute_capability))
            ctx.error(node[i]["compute_capability"], key_path(path, "compute_capability"),
                      "'" + g.compute_capability + "' is not a compute capability such as 9.0");
        g.min_driver = version_field(node[i], ctx, path, "min_driver", false).value_or("");
        g.gpus = ctx.text(node[i], path, "gpus", true).value_or("");
        g.source = ctx.text(node[i], path, "source", true).value_or("");
        t.gpu_drivers.push_back(std::move(g));
    }
}

// Every published wheel needs an architecture row, or the checks could not judge it.
void cross_check(const YAML::Node& node, YamlContext& ctx, const CompatTables& t) {
    for (std::size_t i = 0; i < t.releases.size(); ++i) {
        auto v = parse_pytorch_version(t.releases[i].series);
        if (!v) continue;
        for (const auto& w : t.releases[i].wheels)
            if (!t.archs_for(w, *v))
                ctx.error(node["pytorch_releases"][i], index_path("compat.pytorch_releases", i),
                          "wheel " + w + " of PyTorch " + t.releases[i].series +
                              " has no wheel_archs row covering that release");
    }
}

}  // namespace

void read_compat_section(const YAML::Node& node, YamlContext& ctx, Catalog& out) {
    if (!ctx.expect_map(node, "compat")) return;
    ctx.check_keys(node, "compat",
                   {"source", "pytorch_releases", "minor_version_compat", "toolkit_drivers", "wheel_archs",
                    "precision", "gpu_drivers"});
    CompatTables t;
    t.source = ctx.text(node, "compat", "source", true).value_or("");
    const std::size_t errors_before = ctx.diagnostics().error_count();
    if (node["pytorch_releases"]) read_releases(node["pytorch_releases"], ctx, t);
    if (node["minor_version_compat"]) read_minor_compat(node["minor_version_compat"], ctx, t);
    if (node["toolkit_drivers"]) read_toolkit_drivers(node["toolkit_drivers"], ctx, t);
    if (node["wheel_archs"]) read_wheel_archs(node["wheel_archs"], ctx, t);
    if (node["precision"]) read_precision(node["precision"], ctx, t);
    if (node["gpu_drivers"]) read_gpu_drivers(node["gpu_drivers"], ctx, t);
    if (ctx.diagnostics().error_count() == errors_before) cross_check(node, ctx, t);
    out.compat = std::move(t);
}

}  // namespace gpuadvise::io
