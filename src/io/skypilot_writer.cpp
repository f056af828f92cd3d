#include "io/skypilot_writer.hpp"

#include <yaml-cpp/yaml.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "gpuadvise/base/errors.hpp"

namespace gpuadvise::io {
namespace {

namespace fs = std::filesystem;

std::string vms_csv_field(const std::string& text) {
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
    std::string out =
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
        "Notes\n";
    for (const Offer* o : offers) {
        std::string notes;
        for (const auto& n : o->notes) notes += (notes.empty() ? "" : "; ") + n;
        out += vms_csv_field(o->instance_type) + ',' + vms_csv_field(o->gpu) + ',' +
               std::to_string(o->gpu_count) + ',' + number(o->vcpus) + ',' + number(o->ram_gb) + ",," +
               number(o->on_demand_per_hour) + ',' + number(o->spot_per_hour) + ',' +
               vms_csv_field(o->region) + ',' + vms_csv_field(notes) + '\n';
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
        e << YAML::Key << "as_of" << YAML::Value << (p.as_of.empty() ? std::string("unknown") : p.as_of);
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

namespace {

constexpr const char* kMarker = ".gpuadvise-import";
constexpr const char* kMarkerText =
    "This directory was written by 'gpuadvise catalog import'; 'catalog import --force' may replace it.\n";

[[noreturn]] void fail(const std::string& what, int error) {
    throw DataError(what + ": " + std::strerror(error) + "; the previous catalog (if any) is unchanged");
}

void fsync_path(const fs::path& path, int flags) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd < 0) fail(path.string() + ": cannot open for fsync", errno);
    const int r = ::fsync(fd);
    const int error = errno;
    ::close(fd);
    if (r != 0) fail(path.string() + ": fsync failed", error);
}

void fsync_dir(const fs::path& dir) { fsync_path(dir, O_RDONLY | O_DIRECTORY); }

void write_file_synced(const fs::path& path, const std::string& bytes) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) fail(path.string() + ": cannot create the file", errno);
    const char* data = bytes.data();
    std::size_t left = bytes.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, data, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int error = errno;
            ::close(fd);
            fail(path.string() + ": cannot write the file", error);
        }
        data += n;
        left -= static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) {
        const int error = errno;
        ::close(fd);
        fail(path.string() + ": fsync failed", error);
    }
    if (::close(fd) != 0) fail(path.string() + ": cannot write the file", errno);
}

bool has_marker(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(fs::symlink_status(dir / kMarker, ec));
}

// Tests only: GPUADVISE_TEST_KILL_IMPORT_AT=N kills the process (SIGKILL) at step N of the
// replacement, to check that every interruption leaves the old or the new catalog readable.
void step(int n) {
    static const int kill_at = [] {
        const char* env = std::getenv("GPUADVISE_TEST_KILL_IMPORT_AT");
        return env ? std::atoi(env) : 0;
    }();
    if (kill_at == n) ::raise(SIGKILL);
}

}  // namespace

std::vector<std::string> write_directory_atomically(
    const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files, bool force) {
    if (dir.empty()) throw UsageError("--output: an empty directory name");
    std::error_code ec;
    fs::path target = fs::absolute(dir, ec).lexically_normal();
    if (target.filename().empty()) target = target.parent_path();  // "out/" -> "out"
    const fs::path parent = target.parent_path();
    const std::string name = target.filename().string();
    if (name.empty() || name == "." || name == "..")
        throw UsageError("--output: '" + dir + "' does not name a directory to create",
                         "name a new directory, e.g. --output my-catalog");
    if (!fs::is_directory(parent, ec))
        throw DataError(parent.string() + ": no such directory; nothing was written", "create it first");

    // One import at a time per parent directory (a second one waits), so that the leftovers removed
    // below are never another import's work in progress.
    const int lock = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lock < 0) fail(parent.string() + ": cannot open the directory", errno);
    struct Unlock {
        int fd;
        ~Unlock() { ::close(fd); }
    } unlock{lock};
    while (::flock(lock, LOCK_EX) != 0)
        if (errno != EINTR) fail(parent.string() + ": cannot lock the directory", errno);

    // What is there now. The target of an import is a symbolic link NAME -> .NAME.v-XXXXXXXX (a
    // directory holding the marker file): replacing the link by rename() is atomic for readers.
    const std::string version_prefix = "." + name + ".v-";
    const fs::file_status st = fs::symlink_status(target, ec);
    fs::path current;  // the version the link points to now
    if (fs::exists(st)) {
        if (!force)
            throw DataError(dir + ": already exists; nothing was written",
                            "add --force to replace a catalog that 'gpuadvise catalog import' wrote");
        std::string link;
        if (fs::is_symlink(st)) {
            link = fs::read_symlink(target, ec).string();
            if (!ec && link.rfind(version_prefix, 0) == 0 && link.find('/') == std::string::npos &&
                has_marker(parent / link))
                current = parent / link;
        }
        if (current.empty()) {
            std::string why;
            if (fs::is_symlink(st))
                why = "is a symbolic link that 'gpuadvise catalog import' did not make";
            else if (fs::is_directory(st))
                why = has_marker(target)
                          ? "is a plain directory, not the link to a versioned directory that 'catalog "
                            "import' makes"
                          : std::string(
                                "is a directory that 'gpuadvise catalog import' did not write (it has no ") +
                                kMarker + " file)";
            else
                why = "exists and is not a directory";
            throw DataError(
                dir + ": " + why + "; --force replaces only an earlier import, nothing was written",
                "choose another --output, or move the directory away yourself");
        }
    }

    // Leftovers of an interrupted import into the same target: temporary directories and links,
    // and versions the link no longer points to. Only entries with the marker (or empty) are removed.
    std::vector<std::string> removed;
    for (const auto& entry : fs::directory_iterator(parent, ec)) {
        const std::string n = entry.path().filename().string();
        if (n.rfind("." + name + ".", 0) != 0) continue;
        const std::string rest = n.substr(name.size() + 2);
        const fs::file_status es = entry.symlink_status(ec);
        bool ours = false;
        if (rest.rfind("link-", 0) == 0)
            ours = fs::is_symlink(es);
        else if ((rest.rfind("tmp-", 0) == 0 || rest.rfind("v-", 0) == 0) && fs::is_directory(es))
            ours = entry.path() != current && (has_marker(entry.path()) || fs::is_empty(entry.path(), ec));
        if (!ours) continue;
        fs::remove_all(entry.path(), ec);
        if (!ec) removed.push_back(n);
    }

    std::string suffix = random_suffix();
    while (fs::exists(fs::symlink_status(parent / (version_prefix + suffix), ec))) suffix = random_suffix();
    const fs::path tmp = parent / ("." + name + ".tmp-" + suffix);
    const fs::path version = parent / (version_prefix + suffix);
    const fs::path link = parent / ("." + name + ".link-" + suffix);
    try {
        if (::mkdir(tmp.c_str(), 0755) != 0) fail(tmp.string() + ": cannot create the directory", errno);
        step(1);
        write_file_synced(tmp / kMarker, kMarkerText);
        step(2);
        std::vector<fs::path> dirs{tmp};
        for (const auto& [rel, bytes] : files) {
            const fs::path path = tmp / rel;
            for (fs::path d = path.parent_path(); d != tmp; d = d.parent_path())
                if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
            fs::create_directories(path.parent_path());
            write_file_synced(path, bytes);
        }
        for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) fsync_dir(*it);
        step(3);
        if (::rename(tmp.c_str(), version.c_str()) != 0)
            fail(version.string() + ": cannot rename the directory", errno);
        fsync_dir(parent);
        step(4);
        if (::symlink(version.filename().c_str(), link.c_str()) != 0)
            fail(link.string() + ": cannot create the link", errno);
        step(5);
        if (::rename(link.c_str(), target.c_str()) != 0) fail(target.string() + ": cannot replace", errno);
        fsync_dir(parent);
        step(6);
    } catch (const fs::filesystem_error& e) {
        fs::remove_all(tmp, ec);
        fs::remove_all(version, ec);
        fs::remove(link, ec);
        throw DataError(dir + ": cannot write the catalog: " + e.code().message() + "; nothing was written");
    } catch (...) {
        fs::remove_all(tmp, ec);
        fs::remove_all(version, ec);
        fs::remove(link, ec);
        throw;
    }
    if (!current.empty()) {
        fs::remove_all(current, ec);
        if (!ec) fsync_dir(parent);
    }
    step(7);
    return removed;
}

}  // namespace gpuadvise::io
