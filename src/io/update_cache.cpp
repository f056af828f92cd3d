#include "io/update_cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/skypilot_records.hpp"

namespace gpuadvise::io {

namespace fs = std::filesystem;

std::string cache_dir() {
    if (const char* d = std::getenv("GPUADVISE_CACHE_DIR"); d && *d) return d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "gpuadvise").string();
    if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "gpuadvise").string();
    return "";
}

std::optional<CacheMeta> read_cache_meta(const std::string& meta_path) {
    std::ifstream in(meta_path);
    if (!in) return std::nullopt;
    std::stringstream ss;
    ss << in.rdbuf();
    try {
        const auto j = nlohmann::json::parse(ss.str());
        CacheMeta m;
        m.url = j.value("url", "");
        m.etag = j.value("etag", "");
        m.last_modified = j.value("last_modified", "");
        m.fetched_at = j.value("fetched_at", "");
        m.schema_version = j.value("schema_version", 0);
        m.rows_read = j.value("rows_read", 0L);
        m.rows_kept = j.value("rows_kept", 0L);
        m.as_of = j.value("as_of", "");
        return m;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

std::string cache_meta_json(const CacheMeta& m) {
    nlohmann::ordered_json j;
    j["url"] = m.url;
    j["schema_version"] = m.schema_version;
    j["etag"] = m.etag;
    j["last_modified"] = m.last_modified;
    j["fetched_at"] = m.fetched_at;
    j["as_of"] = m.as_of;
    j["rows_read"] = m.rows_read;
    j["rows_kept"] = m.rows_kept;
    return j.dump(2) + "\n";
}

std::string write_file_atomically(const std::string& path, std::string_view bytes) {
    const fs::path target(path);
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    if (ec) return "cannot create " + target.parent_path().string() + ": " + ec.message();
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return "cannot write " + tmp + ": " + std::strerror(errno);
    auto fail = [&](const std::string& what) {
        const std::string why = what + ": " + std::strerror(errno);
        ::close(fd);
        ::unlink(tmp.c_str());
        return why;
    };
    for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return fail("cannot write " + tmp);
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) return fail("cannot sync " + tmp);
    if (::close(fd) != 0) {
        const std::string why = "cannot close " + tmp + ": " + std::strerror(errno);
        ::unlink(tmp.c_str());
        return why;
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = "cannot replace " + path + ": " + std::strerror(errno);
        ::unlink(tmp.c_str());
        return why;
    }
    if (const int dfd = ::open(target.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
        (void)::fsync(dfd);
        ::close(dfd);
    }
    return "";
}

CacheLock::CacheLock(const std::string& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    const std::string path = (fs::path(dir) / ".lock").string();
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // a read-only cache: still lockable
    if (fd_ < 0) {
        error_ = "cannot open the lock file " + path + ": " + std::strerror(errno);
        return;
    }
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        error_ = errno == EWOULDBLOCK
                     ? "another 'gpuadvise catalog update' is running (lock " + path + " is held)"
                     : "cannot lock " + path + ": " + std::strerror(errno);
        ::close(fd_);
        fd_ = -1;
    }
}

CacheLock::~CacheLock() {
    if (fd_ >= 0) {
        ::flock(fd_, LOCK_UN);
        ::close(fd_);
    }
}

namespace {

// Splits a CSV record (one line, quotes respected) into fields.
std::vector<std::string_view> split_record(std::string_view line) {
    std::vector<std::string_view> out;
    bool quoted = false;
    std::size_t start = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '"')
            quoted = !quoted;
        else if (line[i] == ',' && !quoted) {
            out.push_back(line.substr(start, i - start));
            start = i + 1;
        }
    }
    out.push_back(line.substr(start));
    return out;
}

}  // namespace

FilteredTable filter_skypilot_rows(std::string_view bytes) {
    FilteredTable t;
    int instance = -1, accelerator = -1;
    bool header = true, quoted = false;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= bytes.size(); ++i) {
        if (i < bytes.size()) {
            if (bytes[i] == '"') quoted = !quoted;
            if (bytes[i] != '\n' || quoted) continue;
        }
        std::string_view record = bytes.substr(start, i - start);
        const bool had_newline = i < bytes.size();
        start = i + 1;
        std::string_view content = record;
        if (!content.empty() && content.back() == '\r') content.remove_suffix(1);
        if (content.empty()) continue;
        auto fields = split_record(content);
        if (header) {
            header = false;
            for (std::size_t k = 0; k < fields.size(); ++k) {
                std::string_view f = fields[k];
                if (k == 0 && f.substr(0, 3) == "\xEF\xBB\xBF") f.remove_prefix(3);
                if (f == "InstanceType") instance = static_cast<int>(k);
                if (f == "AcceleratorName") accelerator = static_cast<int>(k);
            }
            t.bytes.append(record);
            t.bytes.append("\n");
            continue;
        }
        ++t.rows_read;
        auto field = [&](int k) {
            return k >= 0 && static_cast<std::size_t>(k) < fields.size() ? fields[static_cast<std::size_t>(k)]
                                                                         : std::string_view();
        };
        const std::string_view acc = field(accelerator), type = field(instance);
        bool keep = !acc.empty();
        if (!keep)  // GCP host VM rows of the GPU machine families price the accelerator rows
            for (std::string_view p :
                 {"a2-", "a3-", "a4-", "g2-", "g4-", "n1-highmem-"})  // n1-highmem: the default N1 GPU host
                if (type.substr(0, p.size()) == p) keep = true;
        if (!keep) continue;
        ++t.rows_kept;
        t.bytes.append(record);
        if (had_newline) t.bytes.append("\n");
    }
    return t;
}

std::string ecb_rates_yaml(std::string_view xml, const std::string& url, std::string& as_of, long& currencies,
                           std::string& error) {
    // <Cube time='2026-11-30'> ... <Cube currency='USD' rate='1.0512'/> ...
    auto attr = [](std::string_view tag, std::string_view name) -> std::string {
        for (char q : {'\'', '"'}) {
            const std::string key = std::string(name) + "=" + q;
            const std::size_t p = tag.find(key);
            if (p == std::string_view::npos) continue;
            const std::size_t e = tag.find(q, p + key.size());
            if (e == std::string_view::npos) return "";
            return std::string(tag.substr(p + key.size(), e - p - key.size()));
        }
        return "";
    };
    std::map<std::string, double> per_eur;
    as_of.clear();
    for (std::size_t p = xml.find("<Cube"); p != std::string_view::npos; p = xml.find("<Cube", p + 5)) {
        const std::size_t e = xml.find('>', p);
        if (e == std::string_view::npos) break;
        const std::string_view tag = xml.substr(p, e - p);
        if (std::string t = attr(tag, "time"); !t.empty() && as_of.empty()) as_of = t;
        const std::string cur = attr(tag, "currency"), rate = attr(tag, "rate");
        if (!cur.empty() && !rate.empty())
            if (auto v = parse_decimal(rate); v && *v > 0) per_eur[cur] = *v;
    }
    if (as_of.size() != 10 || as_of[4] != '-' || as_of[7] != '-') {
        error = "no reference date (<Cube time='YYYY-MM-DD'>) in the ECB file; not the eurofxref-daily XML";
        return "";
    }
    if (!per_eur.count("USD")) {
        error = "no USD rate in the ECB file";
        return "";
    }
    const double usd_per_eur = per_eur["USD"];
    std::ostringstream y;
    y.precision(10);
    y << "# Written by `gpuadvise catalog update` from the ECB euro foreign exchange reference rates (" << url
      << "), reference date " << as_of << ". usd_per_unit = (USD per EUR) / (currency per EUR).\n";
    y << "schema_version: 1\nrates:\n";
    y << "  - {currency: EUR, usd_per_unit: " << usd_per_eur << ", as_of: " << as_of
      << ", source: \"ECB euro foreign exchange reference rate of " << as_of << " (1 EUR = " << usd_per_eur
      << " USD), fetched by catalog update\"}\n";
    currencies = 1;
    for (const auto& [cur, v] : per_eur) {
        if (cur == "USD" || cur.size() != 3) continue;
        bool alpha = true;
        for (char c : cur) alpha = alpha && c >= 'A' && c <= 'Z';
        if (!alpha) continue;
        y << "  - {currency: " << cur << ", usd_per_unit: " << usd_per_eur / v << ", as_of: " << as_of
          << ", source: \"ECB euro foreign exchange reference rates of " << as_of << " (1 EUR = " << v << " "
          << cur << " = " << usd_per_eur << " USD), fetched by catalog update\"}\n";
        ++currencies;
    }
    return y.str();
}

}  // namespace gpuadvise::io
