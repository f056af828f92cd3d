#include "io/skypilot_writer.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "gpuadvise/errors.hpp"

namespace gpuadvise::io {
namespace {

namespace fs = std::filesystem;

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

// Ten significant digits: enough for any price, and no float noise (0.36979999999999996 -> 0.3698).
std::string number(const std::optional<double>& v) {
    if (!v) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", *v);
    return buf;
}

std::string random_suffix() {
    std::random_device rd;
    char buf[16];
    std::snprintf(buf, sizeof buf, "%08x", rd());
    return buf;
}

}  // namespace

std::string write_skypilot_csv(const std::vector<const Offer*>& offers) {
    std::string out = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,Notes\n";
    for (const Offer* o : offers) {
        std::string notes;
        for (const auto& n : o->notes) notes += (notes.empty() ? "" : "; ") + n;
        out += csv_field(o->instance_type) + ',' + csv_field(o->gpu) + ',' + std::to_string(o->gpu_count) + ',' +
               number(o->vcpus) + ',' + number(o->ram_gb) + ",," + number(o->on_demand_per_hour) + ',' +
               number(o->spot_per_hour) + ',' + csv_field(o->region) + ',' + csv_field(notes) + '\n';
    }
    return out;
}

std::string write_import_yaml(const std::vector<ImportedProvider>& providers, const std::string& comment) {
    YAML::Emitter e;
    e.SetIndent(2);
    e << YAML::Comment(comment);
    e << YAML::BeginMap << YAML::Key << "schema_version" << YAML::Value << 1;
    e << YAML::Key << "providers" << YAML::Value << YAML::BeginSeq;
    for (const auto& ip : providers) {
        const Provider& p = ip.provider;
        e << YAML::BeginMap;
        e << YAML::Key << "id" << YAML::Value << p.id;
        e << YAML::Key << "name" << YAML::Value << p.name;
        e << YAML::Key << "currency" << YAML::Value << p.currency;
        e << YAML::Key << "kind" << YAML::Value << kind_name(p);
        e << YAML::Key << "as_of" << YAML::Value << p.as_of;
        e << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted << p.source;
        e << YAML::Key << "tables" << YAML::Value << YAML::Flow << YAML::BeginSeq << YAML::BeginMap;
        e << YAML::Key << "format" << YAML::Value << "skypilot";
        e << YAML::Key << "path" << YAML::Value << ip.table_path;
        e << YAML::EndMap << YAML::EndSeq;
        e << YAML::EndMap;
    }
    e << YAML::EndSeq << YAML::EndMap;
    return std::string(e.c_str()) + "\n";
}

void write_directory_atomically(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files,
                                bool force) {
    std::error_code ec;
    const fs::path target = fs::absolute(dir, ec);
    const bool exists = fs::exists(target, ec);
    if (exists && !force)
        throw DataError(dir + ": already exists; nothing was written", "add --force to replace it");
    if (exists && !fs::is_directory(target, ec))
        throw DataError(dir + ": exists and is not a directory; nothing was written", "choose another --output");
    const fs::path parent = target.parent_path();
    if (!fs::is_directory(parent, ec))
        throw DataError(parent.string() + ": no such directory; nothing was written", "create it first");
    const std::string name = target.filename().string();
    const fs::path tmp = parent / ("." + name + ".tmp-" + random_suffix());
    try {
        fs::create_directories(tmp);
        for (const auto& [rel, bytes] : files) {
            fs::path path = tmp / rel;
            fs::create_directories(path.parent_path());
            std::ofstream out(path, std::ios::binary);
            out << bytes;
            out.close();
            if (!out) throw DataError(path.string() + ": cannot write the file");
        }
        if (exists) {
            const fs::path old = parent / ("." + name + ".old-" + random_suffix());
            fs::rename(target, old);
            fs::rename(tmp, target);
            fs::remove_all(old, ec);
        } else {
            fs::rename(tmp, target);
        }
    } catch (const fs::filesystem_error& e) {
        fs::remove_all(tmp, ec);
        throw DataError(dir + ": cannot write the catalog: " + e.code().message() + "; nothing was written");
    } catch (...) {
        fs::remove_all(tmp, ec);
        throw;
    }
}

}  // namespace gpuadvise::io
