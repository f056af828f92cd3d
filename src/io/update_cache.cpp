#include "io/update_cache.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gpuadvise/base/dates.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "io/catalog_loader.hpp"
#include "io/skypilot_records.hpp"
#include "io/terminal.hpp"

namespace gpuadvise::io {

namespace fs = std::filesystem;

std::string cache_dir() {
    if (const char* d = std::getenv("GPUADVISE_CACHE_DIR"); d && *d) return d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "gpuadvise").string();
    if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "gpuadvise").string();
    return "";
}

namespace {

std::string hex_bytes(std::string_view bytes) {
    std::string out;
    for (unsigned char c : bytes) append_hex(out, c);
    return out;
}

std::string unhex(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i + 1 < text.size(); i += 2) {
        unsigned v = 0;
        if (std::sscanf(text.c_str() + i, "%2x", &v) != 1) return "";
        out += static_cast<char>(v);
    }
    return out;
}

}  // namespace

std::optional<CacheMeta> read_cache_meta(const std::string& meta_path) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(meta_path, ec))) return std::nullopt;
    std::string text;
    try {
        text = read_file(meta_path);  // regular files only: a FIFO or /dev/zero here cannot hang a command
    } catch (const DataError&) {
        return std::nullopt;
    }
    try {
        const auto j = nlohmann::json::parse(text);
        CacheMeta m;
        m.url = j.value("url", "");
        m.etag = j.contains("etag_hex") ? unhex(j.value("etag_hex", "")) : j.value("etag", "");
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
    if (first_invalid_utf8(m.etag))  // an ETag is bytes; JSON strings are UTF-8: kept exactly as hex
        j["etag_hex"] = hex_bytes(m.etag);
    else
        j["etag"] = m.etag;
    j["last_modified"] = m.last_modified;
    j["fetched_at"] = m.fetched_at;
    j["as_of"] = m.as_of;
    j["rows_read"] = m.rows_read;
    j["rows_kept"] = m.rows_kept;
    return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
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

namespace {

// Tests only: GPUADVISE_TEST_KILL_UPDATE_AT=N kills the process (SIGKILL) at step N of replace_folder,
// so that tests/update can show a killed update leaves the old files or the new ones.
void kill_step(int n) {
    static const int at = [] {
        const char* env = std::getenv("GPUADVISE_TEST_KILL_UPDATE_AT");
        return env ? std::atoi(env) : 0;
    }();
    if (at == n) ::kill(::getpid(), SIGKILL);
}

void sync_dir_best_effort(const fs::path& dir) {
    if (const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); fd >= 0) {
        (void)::fsync(fd);
        ::close(fd);
    }
}

// The version FOLDER's link points to (parent/.NAME.v-…), or "" when FOLDER is not such a link.
fs::path current_version(const fs::path& folder) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(folder, ec))) return {};
    const std::string link = fs::read_symlink(folder, ec).string();
    const std::string prefix = "." + folder.filename().string() + ".v-";
    if (ec || link.rfind(prefix, 0) != 0 || link.find('/') != std::string::npos) return {};
    return folder.parent_path() / link;
}

}  // namespace

void remove_folder_leftovers(const std::string& folder_path) {
    const fs::path folder(folder_path);
    const fs::path current = current_version(folder);
    const std::string prefix = "." + folder.filename().string() + ".";
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(folder.parent_path(), ec)) {
        const std::string n = e.path().filename().string();
        if (n.rfind(prefix, 0) != 0 || e.path() == current) continue;
        const std::string rest = n.substr(prefix.size());
        if (rest.rfind("tmp-", 0) == 0 || rest.rfind("link-", 0) == 0 || rest.rfind("v-", 0) == 0) {
            std::error_code ec2;
            fs::remove_all(e.path(), ec2);
        }
    }
}

std::string replace_folder(const std::string& folder_path,
                           const std::vector<std::pair<std::string, std::string>>& files) {
    const fs::path folder(folder_path), parent = folder.parent_path();
    const std::string name = folder.filename().string();
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec) return "cannot create " + parent.string() + ": " + ec.message();
    remove_folder_leftovers(folder_path);
    const fs::path old_version = current_version(folder);
    const fs::file_status st = fs::symlink_status(folder, ec);
    const bool plain_dir = fs::is_directory(st) && !fs::is_symlink(st);
    if (fs::exists(st) && !plain_dir && old_version.empty())
        return "cannot replace " + folder.string() +
               ": it is neither a directory nor a link to one that catalog update wrote";
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    const std::string suffix = std::to_string(::getpid()) + "-" + std::to_string(now);
    const fs::path tmp = parent / ("." + name + ".tmp-" + suffix);
    const fs::path version = parent / ("." + name + ".v-" + suffix);
    const fs::path link = parent / ("." + name + ".link-" + suffix);
    auto fail = [&](const std::string& why) {
        std::error_code e2;
        fs::remove_all(tmp, e2);
        fs::remove_all(version, e2);
        fs::remove(link, e2);
        return why;
    };
    if (::mkdir(tmp.c_str(), 0755) != 0)
        return fail("cannot create " + tmp.string() + ": " + std::strerror(errno));
    kill_step(1);
    for (const auto& [file, bytes] : files)
        if (std::string err = write_file_atomically((tmp / file).string(), bytes); !err.empty())
            return fail(err);
    sync_dir_best_effort(tmp);
    kill_step(2);
    if (::rename(tmp.c_str(), version.c_str()) != 0)
        return fail("cannot rename " + tmp.string() + ": " + std::strerror(errno));
    sync_dir_best_effort(parent);
    kill_step(3);
    if (::symlink(version.filename().c_str(), link.c_str()) != 0)
        return fail("cannot create the link " + link.string() + ": " + std::strerror(errno));
    kill_step(4);
    if (plain_dir) {
        // Swapped in one step with the directory an older gpuadvise wrote, which then sits at `link`.
        if (::renameat2(AT_FDCWD, link.c_str(), AT_FDCWD, folder.c_str(), RENAME_EXCHANGE) != 0) {
            if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
                return fail("cannot replace " + folder.string() + ": " + std::strerror(errno));
            // A file system without the exchange (NFS): the old directory moves aside, then the link
            // takes its place; a kill between the two leaves no table for this source (the built-in
            // one is used) until the next update, never a mixed pair.
            const fs::path aside = parent / ("." + name + ".tmp-old-" + suffix);
            if (::rename(folder.c_str(), aside.c_str()) != 0)
                return fail("cannot replace " + folder.string() + ": " + std::strerror(errno));
            if (::rename(link.c_str(), folder.c_str()) != 0) {
                const std::string why = "cannot replace " + folder.string() + ": " + std::strerror(errno);
                (void)::rename(aside.c_str(), folder.c_str());
                return fail(why);
            }
            fs::remove_all(aside, ec);
        }
        sync_dir_best_effort(parent);
        kill_step(5);
        fs::remove_all(link, ec);
    } else {
        if (::rename(link.c_str(), folder.c_str()) != 0)
            return fail("cannot replace " + folder.string() + ": " + std::strerror(errno));
        sync_dir_best_effort(parent);
        kill_step(5);
    }
    if (!old_version.empty()) fs::remove_all(old_version, ec);
    kill_step(6);
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

namespace {

// The value of attribute `name` ('...' or "...") in one tag's text, or nullopt.
std::optional<std::string_view> xml_attribute(std::string_view tag, std::string_view name) {
    for (std::size_t p = tag.find(name); p != std::string_view::npos; p = tag.find(name, p + 1)) {
        const bool starts =
            p > 0 && (tag[p - 1] == ' ' || tag[p - 1] == '\t' || tag[p - 1] == '\n' || tag[p - 1] == '\r');
        const std::size_t eq = p + name.size();
        if (!starts || eq + 1 >= tag.size() || tag[eq] != '=' || (tag[eq + 1] != '\'' && tag[eq + 1] != '"'))
            continue;
        const std::size_t close = tag.find(tag[eq + 1], eq + 2);
        if (close == std::string_view::npos) return std::nullopt;
        return tag.substr(eq + 2, close - eq - 2);
    }
    return std::nullopt;
}

}  // namespace

std::string ecb_rates_yaml(std::string_view xml, const std::string& url, std::string& as_of, long& currencies,
                           std::string& error) {
    // <Cube time='2026-11-30'> ... <Cube currency='USD' rate='1.0512'/> ...
    // One pass: each tag ends at the next '>' and may not contain '<' (a broken file), so every byte is
    // looked at a bounded number of times (the old search for '>' from each "<Cube" was quadratic).
    std::map<std::string, double> per_eur;
    as_of.clear();
    currencies = 0;
    auto fail = [&](std::string why) {
        error = std::move(why);
        return std::string();
    };
    for (std::size_t p = xml.find("<Cube"); p != std::string_view::npos; p = xml.find("<Cube", p)) {
        const std::size_t e = xml.find_first_of("<>", p + 1);
        if (e == std::string_view::npos || xml[e] == '<')
            return fail("a <Cube tag that does not close (byte " + std::to_string(p) +
                        "); a truncated or broken ECB file");
        const std::string_view tag = xml.substr(p, e - p);
        p = e;
        if (tag.size() > 5 && tag[5] != ' ' && tag[5] != '\t' && tag[5] != '\n' && tag[5] != '\r' &&
            tag[5] != '/')
            continue;  // <CubeSomething>: another element
        if (const auto t = xml_attribute(tag, "time")) {
            if (!parse_iso_date(*t))
                return fail("the reference date '" + std::string(t->substr(0, 40)) + "' is not a real date");
            if (!as_of.empty() && as_of != *t)
                return fail("more than one reference date (" + as_of + ", " + std::string(*t) +
                            "); expected the daily file eurofxref-daily.xml");
            as_of = std::string(*t);
        }
        const auto cur = xml_attribute(tag, "currency");
        const auto rate = xml_attribute(tag, "rate");
        if (!cur && !rate) continue;
        if (!cur || !rate)
            return fail("a <Cube> with a currency or a rate but not both (byte " + std::to_string(p) + ")");
        const std::string code(cur->substr(0, 16));
        if (cur->size() != 3 ||
            !std::all_of(cur->begin(), cur->end(), [](char c) { return c >= 'A' && c <= 'Z'; }))
            return fail("'" + code + "' is not a currency code (three capital letters)");
        const auto v = parse_decimal(*rate);
        // Sane bounds: the ECB quotes 1 EUR as 0.8 GBP ... 18,000 IDR; far outside is a broken file.
        if (!v || !(*v >= 1e-3 && *v <= 1e6))
            return fail(code + ": the rate '" + std::string(rate->substr(0, 40)) +
                        "' is not a number between 0.001 and 1,000,000 (units of it per EUR)");
        if (!per_eur.emplace(code, *v).second) return fail(code + ": given twice");
    }
    if (as_of.empty())
        return fail(
            "no reference date (<Cube time='YYYY-MM-DD'>) in the ECB file; not the eurofxref-daily XML");
    if (const auto date = parse_iso_date(as_of), today = parse_iso_date(today_iso());
        date && today && *date > *today + 1)
        return fail("the reference date " + as_of + " is in the future (today is " + today_iso() + ")");
    if (!per_eur.count("USD")) return fail("no USD rate in the ECB file");
    const double usd_per_eur = per_eur["USD"];
    if (!(usd_per_eur >= 0.1 && usd_per_eur <= 10))
        return fail("USD: 1 EUR = " + std::to_string(usd_per_eur) +
                    " USD is outside 0.1 .. 10; a broken file");
    std::string shown_url = url;  // in a YAML comment: no line break may end it early
    for (char& c : shown_url)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    std::ostringstream y;
    y.precision(10);
    y << "# Written by `gpuadvise catalog update` from the ECB euro foreign exchange reference rates ("
      << shown_url << "), reference date " << as_of
      << ". usd_per_unit = (USD per EUR) / (currency per EUR).\n";
    y << "schema_version: 1\nrates:\n";
    y << "  - {currency: EUR, usd_per_unit: " << usd_per_eur << ", as_of: " << as_of
      << ", source: \"ECB euro foreign exchange reference rate of " << as_of << " (1 EUR = " << usd_per_eur
      << " USD), fetched by catalog update\"}\n";
    currencies = 1;
    for (const auto& [cur, v] : per_eur) {
        if (cur == "USD") continue;
        y << "  - {currency: " << cur << ", usd_per_unit: " << usd_per_eur / v << ", as_of: " << as_of
          << ", source: \"ECB euro foreign exchange reference rates of " << as_of << " (1 EUR = " << v << " "
          << cur << " = " << usd_per_eur << " USD), fetched by catalog update\"}\n";
        ++currencies;
    }
    return y.str();
}

}  // namespace gpuadvise::io
