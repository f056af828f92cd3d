#include "io/launcher_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "gpuadvise/base/diagnostics.hpp"
#include "io/embedded_data.hpp"

namespace gpuadvise::io {
namespace {

// dstack's backend types (dstack's src/dstack/_internal/core/models/backends/base.py, BackendType,
// 0.20) for the provider ids gpuadvise's data uses; the ids differ for vast (vastai) and do (digitalocean).
constexpr std::pair<std::string_view, std::string_view> kDstackBackends[] = {{"aws", "aws"},
                                                                             {"azure", "azure"},
                                                                             {"cudo", "cudo"},
                                                                             {"do", "digitalocean"},
                                                                             {"gcp", "gcp"},
                                                                             {"hotaisle", "hotaisle"},
                                                                             {"lambda", "lambda"},
                                                                             {"nebius", "nebius"},
                                                                             {"oci", "oci"},
                                                                             {"runpod", "runpod"},
                                                                             {"tensordock", "tensordock"},
                                                                             {"vast", "vastai"},
                                                                             {"verda", "verda"},
                                                                             {"vultr", "vultr"},
                                                                             {"cloudrift", "cloudrift"}};

void launcher_header(YAML::Emitter& out, const LaunchSpec& spec) {
    for (std::string line : spec.header) {
        // A comment is one line: a newline or other control character in it (from the command line) is a space.
        for (char& c : line)
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
        out << YAML::Comment(line) << YAML::Newline;
    }
}

// A shell script that only says what to write there: comments, never a command.
std::string launcher_placeholder(std::string_view what) {
    return "# FILL IN: " + std::string(what) +
           "\n# (gpuadvise writes no command here; this placeholder runs nothing)";
}

std::string launcher_gpu_text(const LaunchSpec& s, bool with_memory) {
    std::string t = s.accelerator;
    if (with_memory) t += ":" + std::to_string(static_cast<long>(s.gpu_memory_gb + 0.5)) + "GB";
    return t + ":" + std::to_string(s.gpus_per_node);
}

std::string launcher_text(const YAML::Emitter& out) {
    if (!out.good()) throw std::logic_error("launcher YAML: " + out.GetLastError());
    return std::string(out.c_str()) + "\n";
}

}  // namespace

std::string skypilot_task_yaml(const LaunchSpec& s) {
    YAML::Emitter out;
    launcher_header(out, s);
    out << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << s.name;
    if (s.nodes > 1) out << YAML::Key << "num_nodes" << YAML::Value << s.nodes;
    out << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "cloud" << YAML::Value << s.cloud;
    if (!s.region.empty()) out << YAML::Key << "region" << YAML::Value << s.region;
    if (!s.instance_type.empty()) out << YAML::Key << "instance_type" << YAML::Value << s.instance_type;
    out << YAML::Key << "accelerators" << YAML::Value << launcher_gpu_text(s, false);
    out << YAML::Key << "use_spot" << YAML::Value << s.spot;
    if (s.disk_gb) out << YAML::Key << "disk_size" << YAML::Value << *s.disk_gb;
    if (s.replicas)
        out << YAML::Key << "ports" << YAML::Value << 8000
            << YAML::Comment("FILL IN: the port your server listens on");
    out << YAML::EndMap;
    if (!s.envs.empty()) {
        out << YAML::Key << "envs" << YAML::Value << YAML::BeginMap;
        for (const auto& [k, v] : s.envs) out << YAML::Key << k << YAML::Value << YAML::DoubleQuoted << v;
        out << YAML::EndMap;
    }
    if (s.replicas) {
        out << YAML::Key << "service" << YAML::Value << YAML::BeginMap;
        out << YAML::Key << "readiness_probe" << YAML::Value << YAML::BeginMap;
        out << YAML::Key << "path" << YAML::Value << "/FILL-IN-your-health-path"
            << YAML::Comment("FILL IN: a path that answers 200 when a replica is ready, e.g. /health");
        out << YAML::EndMap;
        out << YAML::Key << "replicas" << YAML::Value << *s.replicas;
        out << YAML::EndMap;
    }
    out << YAML::Key << "setup" << YAML::Value << YAML::Literal
        << launcher_placeholder("install your job's environment (e.g. pip install -r requirements.txt)");
    out << YAML::Key << "run" << YAML::Value << YAML::Literal
        << launcher_placeholder(s.replicas
                                    ? "the command that starts your server on the port above"
                                    : "the command that starts your job (the envs above give its layout)");
    out << YAML::EndMap;
    return launcher_text(out);
}

std::string dstack_config_yaml(const LaunchSpec& s) {
    YAML::Emitter out;
    launcher_header(out, s);
    out << YAML::BeginMap;
    out << YAML::Key << "type" << YAML::Value << (s.replicas ? "service" : "task");
    out << YAML::Key << "name" << YAML::Value << s.name;
    if (s.replicas) {
        out << YAML::Key << "port" << YAML::Value << 8000
            << YAML::Comment("FILL IN: the port your server listens on");
        out << YAML::Key << "replicas" << YAML::Value << *s.replicas;
    } else if (s.nodes > 1) {
        out << YAML::Key << "nodes" << YAML::Value << s.nodes;
    }
    if (!s.envs.empty()) {
        out << YAML::Key << "env" << YAML::Value << YAML::BeginSeq;
        for (const auto& [k, v] : s.envs) out << (k + "=" + v);
        out << YAML::EndSeq;
    }
    out << YAML::Key << "commands" << YAML::Value << YAML::BeginSeq
        << ("# FILL IN: " + std::string(s.replicas
                                            ? "the command that starts your server on the port above"
                                            : "the commands that start your job (env gives its layout)"))
        << YAML::EndSeq;
    out << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "gpu" << YAML::Value << launcher_gpu_text(s, true);
    if (s.disk_gb) out << YAML::Key << "disk" << YAML::Value << (std::to_string(*s.disk_gb) + "GB");
    out << YAML::EndMap;
    out << YAML::Key << "spot_policy" << YAML::Value << (s.spot ? "spot" : "on-demand");
    out << YAML::Key << "backends" << YAML::Value << YAML::Flow << YAML::BeginSeq << s.cloud << YAML::EndSeq;
    if (!s.region.empty())
        out << YAML::Key << "regions" << YAML::Value << YAML::Flow << YAML::BeginSeq << s.region
            << YAML::EndSeq;
    if (!s.instance_type.empty())
        out << YAML::Key << "instance_types" << YAML::Value << YAML::Flow << YAML::BeginSeq << s.instance_type
            << YAML::EndSeq;
    out << YAML::EndMap;
    return launcher_text(out);
}

std::vector<std::string> skypilot_tables_of(std::string_view provider) {
    std::vector<std::string> paths;
    const std::string exact = "skypilot/" + std::string(provider) + ".csv";
    const std::string family = "skypilot/" + std::string(provider) + "-";
    for (const EmbeddedFile& f : embedded_files())
        if (f.path == exact || (f.path.starts_with(family) && f.path.ends_with(".csv")))
            paths.emplace_back(f.path);
    std::sort(paths.begin(), paths.end());
    return paths;
}

std::vector<std::string> skypilot_clouds() {
    std::vector<std::string> ids;
    for (const EmbeddedFile& f : embedded_files()) {
        if (!f.path.starts_with("skypilot/") || !f.path.ends_with(".csv")) continue;
        std::string stem(f.path.substr(9, f.path.size() - 13));
        if (stem.find('-') != std::string::npos) continue;  // aws-g-family.csv: aws's second table
        ids.push_back(stem);
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

namespace {
void add_vote(std::vector<std::pair<std::string, int>>& votes, std::string_view name) {
    auto v = std::find_if(votes.begin(), votes.end(), [&](const auto& p) { return p.first == name; });
    if (v == votes.end())
        votes.emplace_back(std::string(name), 1);
    else
        ++v->second;
}
}  // namespace

SkypilotAcceleratorNames::SkypilotAcceleratorNames(const Catalog& catalog, std::string_view provider)
    : provider_(provider), mapper_(catalog) {
    std::map<std::tuple<std::string, double, double, double, double>, bool> seen;  // unpaired rows, once each
    for (const std::string& path : skypilot_tables_of(provider)) {
        const auto bytes = find_embedded(path);
        if (!bytes) continue;
        int col_type = -1, col_name = -1, col_count = -1, col_info = -1;
        Diagnostics diags;
        read_csv_records(
            *bytes, path,
            [&](const CsvRecord& r) {
                const int n = static_cast<int>(r.fields.size());
                auto field = [&](int i) { return i >= 0 && i < n ? r.fields[i] : std::string_view(); };
                if (col_name < 0) {  // the header: gcp.csv orders its columns differently
                    for (int i = 0; i < n; ++i) {
                        if (r.fields[i] == "InstanceType") col_type = i;
                        if (r.fields[i] == "AcceleratorName") col_name = i;
                        if (r.fields[i] == "AcceleratorCount") col_count = i;
                        if (r.fields[i] == "GpuInfo") col_info = i;
                    }
                    return col_name >= 0;
                }
                const std::string_view name = field(col_name);
                if (name.empty()) return true;
                const double count = parse_decimal(field(col_count)).value_or(1);
                const GpuInfoFacts info = scan_gpu_info(field(col_info));
                const std::string_view type = field(col_type);
                if (type.empty()) {
                    auto key = std::tuple(std::string(name), count, info.size_mib.value_or(-1),
                                          info.count.value_or(-1), info.total_mib.value_or(-1));
                    if (seen.emplace(std::move(key), true).second)
                        unpaired_.push_back({std::string(name), info, count});
                    return true;
                }
                const GpuMapping& m = mapper_.map(provider, name, type, info, count);
                if (m.gpu_id.empty()) return true;
                Names& names = by_gpu_[m.gpu_id];
                names.by_instance.emplace(std::string(type), std::string(name));
                add_vote(names.votes, name);
                return true;
            },
            diags);
    }
}

std::optional<std::string> SkypilotAcceleratorNames::name(std::string_view gpu_id,
                                                          std::string_view instance_type) const {
    std::vector<std::pair<std::string, int>> votes;
    if (auto g = by_gpu_.find(gpu_id); g != by_gpu_.end()) {
        if (auto i = g->second.by_instance.find(instance_type); i != g->second.by_instance.end())
            return i->second;
        votes = g->second.votes;
    }
    for (const Unpaired& u : unpaired_)
        if (mapper_.map(provider_, u.name, instance_type, u.info, u.count).gpu_id == gpu_id)
            add_vote(votes, u.name);
    if (votes.empty()) return std::nullopt;
    auto best = votes.begin();
    for (auto v = votes.begin(); v != votes.end(); ++v)
        if (v->second > best->second) best = v;
    return best->first;
}

std::optional<std::string> dstack_backend(std::string_view provider) {
    for (const auto& [id, backend] : kDstackBackends)
        if (id == provider) return std::string(backend);
    return std::nullopt;
}

std::vector<std::string> dstack_providers() {
    std::vector<std::string> ids;
    for (const auto& [id, backend] : kDstackBackends) ids.emplace_back(id);
    std::sort(ids.begin(), ids.end());
    return ids;
}

std::string dstack_gpu_name(const Gpu& gpu) {
    std::string name;
    for (char c : gpu.family.empty() ? gpu.id : gpu.family)
        if (c != ' ' && c != '-' && c != '_') name += c;
    return name;
}

}  // namespace gpuadvise::io
