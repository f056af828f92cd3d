// gpuadvise catalog update [SOURCE…] [--offline] [--dry-run] [--skypilot-url URL] [--gcp-pricing-url URL]
// [--rates-url URL]: downloads the current SkyPilot tables (every cloud with GPU rows), the GCP price
// file and the ECB reference rates into the user's cache (io/update_cache.hpp), each checked before
// it replaces the cached copy, which any failure leaves byte-identical. Every command then layers the
// cache over the built-in data (io/catalog_loader.cpp).
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/help_footer.hpp"
#include "gpuadvise/base/dates.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/names.hpp"
#include "gpuadvise/base/text.hpp"
#include "io/catalog_loader.hpp"
#include "io/commitment_tables.hpp"
#include "io/embedded_data.hpp"
#include "io/http_fetch.hpp"
#include "io/offer_tables.hpp"
#include "io/table_ref.hpp"
#include "io/terminal.hpp"
#include "io/update_cache.hpp"

namespace gpuadvise::cli {
namespace {

namespace fs = std::filesystem;

struct UpdateOptions {
    std::vector<std::string> sources;  // clouds, "gcp-pricing", "rates"; empty = all
    bool offline = false;
    bool dry_run = false;
    std::string skypilot_url, gcp_pricing_url, rates_url;
    long connect_timeout_s = 10, timeout_s = 120;
};

struct Sources {
    std::string skypilot_url, gcp_pricing_url, rates_url;
    std::vector<int> versions;
    std::vector<std::string> clouds;
};

Sources builtin_sources() {
    const auto text = io::find_embedded("update-sources.yaml");
    if (!text) throw DataError("the built-in data lacks update-sources.yaml; rebuild gpuadvise");
    const YAML::Node root = YAML::Load(std::string(*text));
    Sources s;
    s.skypilot_url = root["skypilot"]["url"].as<std::string>();
    for (const auto& v : root["skypilot"]["schema_versions"]) s.versions.push_back(v.as<int>());
    for (const auto& c : root["skypilot"]["clouds"]) s.clouds.push_back(c.as<std::string>());
    s.gcp_pricing_url = root["gcp_pricing"]["url"].as<std::string>();
    s.rates_url = root["rates"]["url"].as<std::string>();
    return s;
}

std::string now_utc() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// The cached copy of a file, read as every other file is (io::read_file: regular files only, so a FIFO or
// a link to /dev/zero in the cache cannot hang the update); nullopt when there is none or it cannot be
// read (it is then replaced like an outdated copy).
std::optional<std::string> cached_bytes(const fs::path& p) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(p, ec))) return std::nullopt;
    try {
        return io::read_file(p.string());
    } catch (const DataError&) {
        return std::nullopt;
    }
}

std::string strip_slash(std::string url) {
    while (!url.empty() && url.back() == '/') url.pop_back();
    return url;
}

// What happened to one source, for the summary; one name table prints it (JSON `result`, the table).
enum class UpdateResult { updated, unchanged, would_update, failed, not_upstream, cached, not_cached };
inline constexpr NameTable<UpdateResult, 7> kUpdateResultNames{{{{UpdateResult::updated, "updated"},
                                                                 {UpdateResult::unchanged, "unchanged"},
                                                                 {UpdateResult::would_update, "would update"},
                                                                 {UpdateResult::failed, "failed"},
                                                                 {UpdateResult::not_upstream, "not upstream"},
                                                                 {UpdateResult::cached, "cached"},
                                                                 {UpdateResult::not_cached, "not cached"}}}};

struct Outcome {
    std::string source;  // cloud id, "gcp-pricing", "rates"
    UpdateResult result = UpdateResult::failed;
    std::string reason;  // for failures and notes
    long rows_read = 0, rows_kept = 0;
    std::string as_of, last_modified, url;
    bool download_failed = false;  // the download itself failed (no connection, a timeout, an HTTP error)
    bool failed() const { return result == UpdateResult::failed; }
};

// A fetched file, checked; `bytes` is what the cache keeps.
struct Checked {
    std::string bytes, error;
    long rows_read = 0, rows_kept = 0;
};

bool looks_like_html(std::string_view body) {
    const std::string head = to_lower(std::string(body.substr(0, 512)));
    return head.find("<!doctype html") != std::string::npos || head.find("<html") != std::string::npos;
}

Checked check_skypilot(const std::string& cloud, const std::string& body, const Catalog& gpus,
                       const std::optional<io::CacheMeta>& previous) {
    Checked c;
    if (looks_like_html(body)) {
        c.error = "an HTML page came instead of a CSV table";
        return c;
    }
    if (!io::looks_like_skypilot_csv(body)) {
        c.error = "not a SkyPilot vms.csv (the first line has no InstanceType/AcceleratorName header)";
        return c;
    }
    io::FilteredTable t = io::filter_skypilot_rows(body);
    c.rows_read = t.rows_read;
    c.rows_kept = t.rows_kept;
    if (t.rows_read == 0) {
        c.error = "the table has a header but no rows";
        return c;
    }
    // Parsed as every command will read it: header columns, numbers, quoting.
    Catalog probe;
    probe.gpus = gpus.gpus;
    Provider p;
    p.id = cloud;
    p.currency = "USD";
    p.as_of = "2000-01-01";
    probe.providers.push_back(p);
    Diagnostics diags;
    io::TableRef ref{cloud, "skypilot", cloud + "/vms.csv", cloud + "/vms.csv", false, {}};
    io::load_offer_table(ref, t.bytes, probe, diags);
    for (const auto& d : diags.all())
        if (d.severity == Severity::error) {
            c.error = "does not parse: line " + std::to_string(d.where.line) + ": " + d.message;
            return c;
        }
    if (previous && previous->rows_kept > 20 && t.rows_kept * 2 < previous->rows_kept) {
        c.error = "only " + std::to_string(t.rows_kept) + " GPU rows, the cached copy has " +
                  std::to_string(previous->rows_kept) + " (a truncated or partial table?)";
        return c;
    }
    c.bytes = std::move(t.bytes);
    return c;
}

// The first error of a reader's diagnostics as "line L: message", or "".
std::string first_error(const Diagnostics& diags) {
    for (const auto& d : diags.all())
        if (d.severity == Severity::error) return "line " + std::to_string(d.where.line) + ": " + d.message;
    return "";
}

// A date the file carries: real, and not after tomorrow (time zones) — else why not.
std::string date_problem(const std::string& date) {
    const auto d = parse_iso_date(date), today = parse_iso_date(io::today_iso());
    if (!d) return "'" + date + "' is not a real date";
    if (today && *d > *today + 1) return date + " is in the future (today is " + io::today_iso() + ")";
    return "";
}

// Read by io::read_gcp_pricing, the reader of gcp-pricing tables: YAML nesting and aliases refused before
// yaml-cpp sees the file, every price a number >= 0, at least one GPU machine type with a price, a real date.
Checked check_gcp_pricing(const std::string& body, const std::string& origin) {
    Checked c;
    if (looks_like_html(body)) {
        c.error = "an HTML page came instead of the YAML price file";
        return c;
    }
    Diagnostics diags;
    const io::GcpPriceList list = io::read_gcp_pricing(body, origin, diags);
    if (std::string e = first_error(diags); !e.empty()) {
        c.error = "does not read as the GCP price file: " + e;
        return c;
    }
    if (list.invalid_prices > 0) {
        for (const auto& d : diags.all())
            if (d.kind == DiagnosticKind::invalid_price) {
                c.error =
                    "line " + std::to_string(d.where.line) + ": " + d.message +
                    (list.invalid_prices > 1 ? " (and " + std::to_string(list.invalid_prices - 1) + " more)"
                                             : "");
                break;
            }
        return c;
    }
    if (list.as_of.empty()) {
        c.error =
            "no readable about.generated date (e.g. 'Thu Jul 30 06:13:17 2026'); its prices would have no "
            "date";
        return c;
    }
    if (std::string why = date_problem(list.as_of); !why.empty()) {
        c.error = "about.generated: " + why;
        return c;
    }
    std::set<std::string> types;
    bool priced = false;
    for (const auto& m : list.machines) {
        types.insert(m.machine_type);
        for (const auto& v : {m.hour, m.hour_spot, m.month, m.month_1y, m.month_3y, m.month_spot})
            priced = priced || (v && *v > 0);
    }
    if (list.machines.empty() || !priced) {
        c.error = list.machines.empty() ? "the price file lists no GPU machine types"
                                        : "no GPU machine type has a price above 0";
        return c;
    }
    c.rows_read = static_cast<long>(types.size());
    c.rows_kept = c.rows_read;
    c.bytes = body;
    return c;
}

// Read back as every command reads the cached rates (io::parse_catalog_yaml, `rates:`): a document that
// would not load is refused here instead of breaking every later command.
std::string check_rates_yaml(const std::string& yaml, const std::string& origin) {
    Catalog layer;
    std::vector<io::TableRef> none;
    Diagnostics diags;
    io::parse_catalog_yaml(yaml, origin, false, "", layer, none, diags);
    if (std::string e = first_error(diags); !e.empty()) return "the rates it gives do not read back: " + e;
    if (layer.rates.empty()) return "no rates";
    return "";
}

class Updater {
public:
    Updater(const UpdateOptions& opt, std::string dir) : opt_(opt), dir_(std::move(dir)) {}

    Outcome skypilot(const std::string& cloud, const Sources& src, const Catalog& gpus, bool explicit_cloud) {
        Outcome o{cloud, UpdateResult::failed, "", 0, 0, "", "", "", false};
        const fs::path folder = fs::path(dir_) / "skypilot" / cloud;
        const auto previous = io::read_cache_meta((folder / "meta.json").string());
        io::FetchResult res;
        int version = 0;
        std::vector<std::string> missing;
        for (int v : src.versions) {
            o.url =
                strip_slash(src.skypilot_url) + "/catalogs/v" + std::to_string(v) + "/" + cloud + "/vms.csv";
            res = fetch(o.url, previous, cloud, folder / "vms.csv");
            if (res.status == 404) {
                missing.push_back("v" + std::to_string(v));
                continue;
            }
            version = v;
            break;
        }
        if (version == 0) {
            const std::string why = "HTTP 404: no catalogs/{" + join(missing, ",") + "}/" + cloud +
                                    "/vms.csv at " + src.skypilot_url;
            if (explicit_cloud) return fail(o, why);
            o.result = UpdateResult::not_upstream;
            o.reason = why;
            return o;
        }
        if (!res.ok) return fail(o, res.error, true);
        if (res.not_modified) return unchanged(o, previous);
        Checked c = check_skypilot(cloud, res.body, gpus, previous);
        if (!c.error.empty()) return fail(o, c.error);
        return store(o, folder / "vms.csv", folder / "meta.json", c, res, version);
    }

    Outcome file_source(const std::string& name, const std::string& url, const fs::path& folder,
                        const std::string& file_name) {
        Outcome o{name, UpdateResult::failed, "", 0, 0, "", "", url, false};
        const auto previous = io::read_cache_meta((folder / "meta.json").string());
        io::FetchResult res = fetch(url, previous, name, folder / file_name);
        if (!res.ok) return fail(o, res.error, true);
        if (res.not_modified) return unchanged(o, previous);
        Checked c;
        std::string as_of;
        if (name == "rates") {
            if (looks_like_html(res.body)) return fail(o, "an HTML page came instead of the ECB XML file");
            long currencies = 0;
            std::string error;
            c.bytes = io::ecb_rates_yaml(res.body, url, as_of, currencies, error);
            if (!error.empty()) return fail(o, error);
            if (std::string why = check_rates_yaml(c.bytes, (folder / file_name).string()); !why.empty())
                return fail(o, why);
            c.rows_read = c.rows_kept = currencies;
        } else {
            c = check_gcp_pricing(res.body, url);
            if (!c.error.empty()) return fail(o, c.error);
        }
        o = store(o, folder / file_name, folder / "meta.json", c, res, 0);
        if (!as_of.empty() && !o.failed()) o.as_of = as_of + " (ECB reference date)";
        return o;
    }

    std::size_t failures = 0;

private:
    // A conditional request (If-None-Match / If-Modified-Since) only while the file it validates is
    // cached and readable: a 304 says "your copy is current", which means nothing without a copy.
    io::FetchResult fetch(const std::string& url, const std::optional<io::CacheMeta>& previous,
                          const std::string& label, const fs::path& cached_file) {
        io::FetchRequest req;
        req.url = url;
        if (previous && previous->url == url && cached_bytes(cached_file)) {
            req.etag = previous->etag;
            req.last_modified = previous->last_modified;
        }
        req.connect_timeout_s = opt_.connect_timeout_s;
        req.total_timeout_s = opt_.timeout_s;
        req.progress_label = "catalog update: " + label;
        io::FetchResult res = io::http_fetch(req);
        if (res.ok && res.not_modified && req.etag.empty() && req.last_modified.empty()) {
            res.ok = false;
            res.error =
                "HTTP 304 Not Modified to a request that was not conditional (no copy is cached); "
                "nothing to keep";
        }
        return res;
    }

    Outcome fail(Outcome o, const std::string& why, bool download = false) {
        o.result = UpdateResult::failed;
        o.reason = why;
        o.download_failed = download;
        ++failures;
        return o;
    }

    Outcome unchanged(Outcome o, const std::optional<io::CacheMeta>& previous) {
        o.result = UpdateResult::unchanged;
        o.reason = "not modified upstream (HTTP 304); nothing rewritten";
        if (previous) {
            o.rows_read = previous->rows_read;
            o.rows_kept = previous->rows_kept;
            o.as_of = previous->as_of;
            o.last_modified = previous->last_modified;
        }
        return o;
    }

    Outcome store(Outcome o, const fs::path& file, const fs::path& meta_file, const Checked& c,
                  const io::FetchResult& res, int version) {
        o.rows_read = c.rows_read;
        o.rows_kept = c.rows_kept;
        o.last_modified = res.last_modified;
        io::CacheMeta m;
        m.url = o.url;
        m.etag = res.etag;
        m.last_modified = res.last_modified;
        m.fetched_at = now_utc();
        m.as_of = io::today_iso();
        m.schema_version = version;
        m.rows_read = c.rows_read;
        m.rows_kept = c.rows_kept;
        o.as_of = m.as_of;
        const bool same = cached_bytes(file) == c.bytes && io::read_cache_meta(meta_file.string());
        if (opt_.dry_run) {
            o.result = same ? UpdateResult::unchanged : UpdateResult::would_update;
            o.reason = "--dry-run: nothing written";
            return o;
        }
        if (same) {  // a server without ETag support: same bytes, keep the file (and its date)
            o.result = UpdateResult::unchanged;
            o.reason = "same content as the cached copy; nothing rewritten";
            if (const auto old = io::read_cache_meta(meta_file.string())) o.as_of = old->as_of;
            return o;
        }
        // The table and its meta.json in one step (io::replace_folder): never a new table beside the old meta.
        if (std::string err = io::replace_folder(file.parent_path().string(),
                                                 {{file.filename().string(), c.bytes},
                                                  {meta_file.filename().string(), io::cache_meta_json(m)}});
            !err.empty())
            return fail(o, err);
        o.result = UpdateResult::updated;
        return o;
    }

    const UpdateOptions& opt_;
    std::string dir_;
};

Outcome cached_state(const std::string& source, const fs::path& meta_file) {
    Outcome o{source, UpdateResult::cached, "", 0, 0, "", "", "", false};
    if (const auto m = io::read_cache_meta(meta_file.string())) {
        o.rows_read = m->rows_read;
        o.rows_kept = m->rows_kept;
        o.as_of = m->as_of;
        o.last_modified = m->last_modified;
        o.url = m->url;
    } else {
        o.result = UpdateResult::not_cached;
    }
    return o;
}

// Temporary files (NAME.tmp.PID) of an update that was killed before its rename: under the lock no
// other update is writing, so every one is a leftover. The cache's own depth (skypilot/<cloud>/) only;
// links are not followed.
void remove_leftovers(const std::string& dir) {
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        if (it.depth() >= 2) it.disable_recursion_pending();
        const std::string name = it->path().filename().string();
        const std::size_t at = name.rfind(".tmp.");
        std::error_code ec2;
        if (at == std::string::npos || at + 5 == name.size() || !it->is_regular_file(ec2) ||
            it->is_symlink(ec2))
            continue;
        if (std::all_of(name.begin() + static_cast<long>(at) + 5, name.end(),
                        [](char c) { return c >= '0' && c <= '9'; }))
            fs::remove(it->path(), ec2);
    }
    // Versions and links of a replace_folder that was killed (.aws.tmp-…, .aws.link-…, old .aws.v-…).
    for (const fs::path& parent : {fs::path(dir), fs::path(dir) / "skypilot"}) {
        std::set<std::string> folders;
        for (const auto& e : fs::directory_iterator(parent, ec)) {
            const std::string n = e.path().filename().string();
            for (const char* kind : {".tmp-", ".link-", ".v-"})
                if (const std::size_t at = n.find(kind, 1); n[0] == '.' && at != std::string::npos)
                    folders.insert(n.substr(1, at - 1));
        }
        for (const auto& f : folders) io::remove_folder_leftovers((parent / f).string());
    }
}

std::size_t updated_count(const std::vector<Outcome>& outcomes) {
    return static_cast<std::size_t>(std::count_if(outcomes.begin(), outcomes.end(), [](const Outcome& o) {
        return o.result == UpdateResult::updated;
    }));
}

// "http://host:port" of a URL ("" when it has none): what the sources of one server share.
std::string url_origin(const std::string& url) {
    const std::size_t scheme = url.find("://");
    if (scheme == std::string::npos) return "";
    return url.substr(0, url.find('/', scheme + 3));
}

// One failure cause and the sources that failed with it, in the order the sources were tried. A
// reason that names the source's own URL is compared with that URL shortened to its server, so that 25
// clouds refused by one server are one cause: "connection refused or unreachable (https://host)".
struct FailureCause {
    std::string reason;
    std::vector<std::string> sources;
};

std::vector<FailureCause> failure_causes(const std::vector<Outcome>& outcomes) {
    std::vector<FailureCause> causes;
    std::vector<std::string> full;  // a cause's reason as its only source gave it
    for (const auto& o : outcomes) {
        if (!o.failed()) continue;
        std::string reason = o.reason;
        if (const std::size_t at = o.url.empty() ? std::string::npos : reason.find(o.url);
            at != std::string::npos)
            reason.replace(at, o.url.size(), url_origin(o.url));
        auto c = std::find_if(causes.begin(), causes.end(),
                              [&](const FailureCause& x) { return x.reason == reason; });
        if (c == causes.end()) {
            causes.push_back({reason, {o.source}});
            full.push_back(o.reason);
        } else {
            c->sources.push_back(o.source);
        }
    }
    for (std::size_t i = 0; i < causes.size(); ++i)
        if (causes[i].sources.size() == 1) causes[i].reason = full[i];  // one source: its whole URL
    return causes;
}

// What run_catalog_update did; to_json and to_document render it (only the one printed is built).
struct UpdateReport {
    const UpdateOptions& opt;
    const std::string& dir;
    const std::vector<Outcome>& outcomes;
};

nlohmann::ordered_json to_json(const UpdateReport& report) {
    auto json = json_document();
    json["cache_dir"] = report.dir;
    json["offline"] = report.opt.offline;
    json["dry_run"] = report.opt.dry_run;
    json["sources"] = nlohmann::ordered_json::array();
    for (const auto& o : report.outcomes)
        if (o.result != UpdateResult::not_upstream)
            json["sources"].push_back({{"source", o.source},
                                       {"result", std::string(kUpdateResultNames.name(o.result))},
                                       {"reason", o.reason},
                                       {"rows_read", o.rows_read},
                                       {"rows_kept", o.rows_kept},
                                       {"as_of", o.as_of},
                                       {"upstream_last_modified", o.last_modified},
                                       {"url", o.url}});
    json["not_upstream"] = nlohmann::ordered_json::array();
    for (const auto& o : report.outcomes)
        if (o.result == UpdateResult::not_upstream) json["not_upstream"].push_back(o.source);
    return json;
}

io::TextDocument to_document(const UpdateReport& report) {
    const UpdateOptions& opt = report.opt;
    io::TextTable t;
    t.title = "catalog update (cache " + report.dir + "):";
    t.columns = {{"SOURCE"},
                 {"RESULT"},
                 {"ROWS READ", io::Align::right},
                 {"ROWS KEPT", io::Align::right},
                 {"AS OF"},
                 {"UPSTREAM LAST-MODIFIED"},
                 {"NOTE"}};
    std::vector<std::string> not_upstream;
    for (const auto& o : report.outcomes) {
        if (o.result == UpdateResult::not_upstream) {
            not_upstream.push_back(o.source);
            continue;
        }
        if (o.failed()) continue;  // said once, on stderr, with the other sources of its cause
        t.rows.push_back({o.source, std::string(kUpdateResultNames.name(o.result)),
                          std::to_string(o.rows_read), std::to_string(o.rows_kept),
                          o.as_of.empty() ? "-" : o.as_of, o.last_modified.empty() ? "-" : o.last_modified,
                          o.reason.empty() ? "-" : o.reason});
    }
    io::TextDocument doc;
    if (!t.rows.empty()) doc.tables.push_back(t);
    if (!not_upstream.empty())
        doc.notes.push_back(std::to_string(not_upstream.size()) +
                            " listed clouds have no table upstream (HTTP 404): " + join(not_upstream, ", ") +
                            ".");
    if (!opt.offline && !opt.dry_run && updated_count(report.outcomes) > 0)
        doc.notes.push_back(
            "Every command now layers these tables over the built-in data (the newer table of a "
            "provider wins); 'gpuadvise catalog info' says which it uses.");
    return doc;
}

int run_catalog_update(Context& ctx, const UpdateOptions& opt) {
    const std::string dir = io::cache_dir();
    if (dir.empty())
        throw DataError("no cache directory: HOME and XDG_CACHE_HOME are unset",
                        "set GPUADVISE_CACHE_DIR to the directory catalog update should write");
    Sources src = builtin_sources();
    if (!opt.skypilot_url.empty()) src.skypilot_url = opt.skypilot_url;
    if (!opt.gcp_pricing_url.empty()) src.gcp_pricing_url = opt.gcp_pricing_url;
    if (!opt.rates_url.empty()) src.rates_url = opt.rates_url;
    // Every source named must be one the update knows (update-sources.yaml), checked before the cache
    // is locked or anything is fetched: a typo is a usage error, not 30 seconds of downloads (issue #29).
    std::vector<std::string> known = src.clouds;
    known.insert(known.end(), {"gcp-pricing", "rates"});
    for (const auto& s : opt.sources) {
        if (std::find(known.begin(), known.end(), s) != known.end()) continue;
        const auto best = closest_match(s, known);
        throw UsageError("catalog update: unknown source '" + escape_control_chars(shorten(s)) + "'",
                         (best && edit_distance(s, *best) <= 2 ? "did you mean '" + *best + "'? " : "") +
                             "sources: " + join(known, ", "));
    }
    const std::set<std::string> wanted(opt.sources.begin(), opt.sources.end());
    auto want = [&](const std::string& s) { return wanted.empty() || wanted.count(s); };
    std::vector<std::string> clouds;
    for (const auto& c : src.clouds)
        if (want(c)) clouds.push_back(c);

    std::vector<Outcome> outcomes;
    std::size_t failures = 0;
    if (opt.offline) {
        for (const auto& c : clouds)
            outcomes.push_back(cached_state(c, fs::path(dir) / "skypilot" / c / "meta.json"));
        if (want("gcp-pricing"))
            outcomes.push_back(cached_state("gcp-pricing", fs::path(dir) / "gcp" / "meta.json"));
        if (want("rates")) outcomes.push_back(cached_state("rates", fs::path(dir) / "rates" / "meta.json"));
    } else {
        io::CacheLock lock(dir);
        if (!lock.held())
            throw DataError(
                "catalog update: " + lock.error(),
                "wait for the other update to finish, or check the cache directory's permissions");
        if (!opt.dry_run) remove_leftovers(dir);
        io::CatalogOptions base;
        base.sky_catalogs = false;
        base.cache = false;
        const Catalog gpus = io::load_catalog(base);
        Updater u(opt, dir);
        for (const auto& c : clouds) outcomes.push_back(u.skypilot(c, src, gpus, wanted.count(c) > 0));
        if (want("gcp-pricing"))
            outcomes.push_back(
                u.file_source("gcp-pricing", src.gcp_pricing_url, fs::path(dir) / "gcp", "pricing.yml"));
        if (want("rates"))
            outcomes.push_back(u.file_source("rates", src.rates_url, fs::path(dir) / "rates", "rates.yaml"));
        failures = u.failures;
        // The compact stores of the tables just written (vms.store beside each vms.csv), made by reading
        // the cache once as every command will, under the lock this update holds. A table the load
        // rejects gets none: the next command reads its CSV and reports it.
        if (!opt.dry_run && std::any_of(outcomes.begin(), outcomes.end(),
                                        [](const Outcome& o) { return o.result == UpdateResult::updated; })) {
            io::CatalogOptions stores;
            stores.sky_catalogs = false;
            stores.write_cache_stores = true;
            try {
                (void)io::load_catalog(stores);
            } catch (const std::exception&) {
            }
        }
    }

    // --format csv/tsv: the tables of this output, the first by default (--section NAME; docs/json.md).
    static const std::vector<io::ExportSection> sections = {
        {"sources", "/sources", "", {}},
        {"not_upstream", "/not_upstream", "", {}},
    };
    const UpdateReport report{opt, dir, outcomes};
    ctx.emit([&] { return to_json(report); }, [&] { return to_document(report); }, sections);
    for (const auto& c : failure_causes(outcomes)) {
        std::string who = c.sources.front();
        if (c.sources.size() > 1)
            who = std::to_string(c.sources.size()) + " sources (" + join(c.sources, ", ") + ")";
        ctx.err << "gpuadvise: error: catalog update: " << escape_control_chars(who) << ": "
                << escape_control_chars(c.reason) << "\n";
    }
    if (failures) {
        const std::size_t updated = updated_count(outcomes);
        if (updated > 0)
            ctx.err << "hint: the cached copies of the failed sources are unchanged; " << updated
                    << (updated == 1 ? " other source was" : " other sources were") << " updated\n";
        else
            ctx.err << "hint: nothing was updated"
                    << (opt.dry_run ? " (--dry-run writes nothing)" : "; the cache is unchanged")
                    << (std::all_of(outcomes.begin(), outcomes.end(),
                                    [](const Outcome& o) { return !o.failed() || o.download_failed; })
                            ? "; check the network connection (or a proxy), or give --skypilot-url, "
                              "--gcp-pricing-url and --rates-url for a mirror"
                            : "")
                    << "\n";
        return 1;
    }
    return 0;
}

}  // namespace

CLI::App* setup_catalog_update(CLI::App& catalog, std::function<int(Context&)>& runner) {
    auto opt = std::make_shared<UpdateOptions>();
    CLI::App* update = catalog.add_subcommand(
        "update",
        "Download current prices (SkyPilot tables, GCP committed-use file, ECB rates) into the cache");
    update->fallthrough();
    update
        ->add_option("sources", opt->sources,
                     "Clouds to update (aws, lambda, …), gcp-pricing, rates; default: all")
        ->type_name("CLOUD");
    update->add_flag("--offline", opt->offline, "Fetch nothing: show what the cache holds");
    update->add_flag("--dry-run", opt->dry_run, "Fetch and check, write nothing");
    update
        ->add_option("--skypilot-url", opt->skypilot_url,
                     "Root with upstream's layout catalogs/<version>/<cloud>/vms.csv")
        ->type_name("URL");
    update->add_option("--gcp-pricing-url", opt->gcp_pricing_url, "The GCP price file (pricing.yml)")
        ->type_name("URL");
    update->add_option("--rates-url", opt->rates_url, "The ECB eurofxref-daily XML file")->type_name("URL");
    update
        ->add_option("--connect-timeout", opt->connect_timeout_s,
                     "Seconds to wait for a connection (default 10)")
        ->transform(whole_number(1, 600));
    update->add_option("--timeout", opt->timeout_s, "Seconds a download may take in all (default 120)")
        ->transform(whole_number(1, 3600));
    set_footer(*update,
               {{FooterBlock::Kind::examples,
                 {"gpuadvise catalog update", "gpuadvise catalog update aws lambda --dry-run",
                  "gpuadvise catalog update --offline"}},
                {FooterBlock::Kind::paragraph,
                 {"Exit code 1 when a source fails (its cached copy is unchanged; one line per cause), "
                  "2 for a source that is not a listed cloud, gcp-pricing or rates."}}});
    runner = [opt](Context& ctx) { return run_catalog_update(ctx, *opt); };
    return update;
}

}  // namespace gpuadvise::cli
