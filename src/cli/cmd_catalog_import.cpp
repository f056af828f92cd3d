// gpuadvise catalog import skypilot DIR|FILE… --output DIR: SkyPilot vms.csv tables -> a catalog
// directory (catalog.yaml + one cleaned table per provider), written atomically.
#include <algorithm>
#include <filesystem>
#include <map>

#include "cli/commands.hpp"
#include "gpuadvise/base/dates.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "io/catalog_loader.hpp"
#include "io/offer_tables.hpp"
#include "io/skypilot_writer.hpp"

namespace gpuadvise::cli {
namespace {

namespace fs = std::filesystem;

struct InputFile {
    std::string path;
    std::string stem;
    std::string bytes;
};

// Files named on the command line, and the *.csv files of directories (sorted). Files that are not
// SkyPilot vms.csv tables (accelerators.csv, metadata.csv) are reported and left out.
std::vector<InputFile> collect_inputs(const std::vector<std::string>& paths,
                                      std::vector<std::string>& ignored) {
    std::vector<std::string> files;
    std::map<std::string, std::string> cloud_of;  // SkyPilot-tree files: path -> cloud (its directory's name)
    for (const auto& p : paths) {
        std::error_code ec;
        if (fs::is_directory(p, ec) &&
            !io::skypilot_tree_tables(p).empty()) {  // catalogs/v9, DIR/<cloud>/vms.csv
            for (const auto& t : io::skypilot_tree_tables(p)) {
                files.push_back(t.path);
                cloud_of[t.path] = t.provider;
            }
        } else if (fs::is_directory(p, ec)) {
            std::vector<std::string> in_dir;
            // Every *.csv that is not a directory: read_file reports a FIFO, a device or a symbolic-link
            // loop by name and reason (is_regular_file() would throw on the loop, or skip them silently).
            for (const auto& entry : fs::directory_iterator(p, ec)) {
                std::error_code ec2;
                if (entry.path().extension() == ".csv" && !entry.is_directory(ec2))
                    in_dir.push_back(entry.path().string());
            }
            std::sort(in_dir.begin(), in_dir.end());
            files.insert(files.end(), in_dir.begin(), in_dir.end());
        } else if (fs::exists(p, ec) || fs::is_symlink(fs::symlink_status(p, ec))) {
            files.push_back(p);  // a looping or dangling link too: read_file names the reason
        } else {
            throw DataError(p + ": no such file or directory; nothing was written");
        }
    }
    std::vector<InputFile> inputs;
    for (const auto& f : files) {
        std::string bytes = io::read_file(f);
        if (!io::looks_like_skypilot_csv(bytes)) {
            ignored.push_back(f);
            continue;
        }
        std::string stem = fs::path(f).stem().string();
        if (auto c = cloud_of.find(f); c != cloud_of.end())
            stem = c->second;
        else if (fs::path(f).filename() == "vms.csv" && !fs::path(f).parent_path().filename().empty())
            stem = fs::path(f).parent_path().filename().string();  // <cloud>/vms.csv
        inputs.push_back({f, stem, std::move(bytes)});
    }
    return inputs;
}

// gcp_gpu_host_vms.csv joins gcp.csv: one provider per stem, "<stem>_<anything>" joins <stem>.
std::string provider_of(const std::string& stem, const std::vector<InputFile>& inputs) {
    for (const auto& other : inputs)
        if (other.stem != stem && stem.rfind(other.stem + "_", 0) == 0) return other.stem;
    return stem;
}

// One provider written by catalog import.
struct ImportedRow {
    std::string id, as_of;
    std::vector<std::string> files;
    std::size_t offers = 0;
    std::map<std::string, long> by_gpu;
    nlohmann::ordered_json reasons;  // rows skipped or fixed, per reason
    long skipped = 0;
};

// What run_catalog_import wrote; to_json and to_document render it (only the one printed is built).
struct ImportReport {
    const std::string& output;
    const std::vector<std::string>& ignored;
    const Catalog& scratch;
    std::vector<ImportedRow> providers;
};

nlohmann::ordered_json to_json(const ImportReport& report) {
    auto json = json_document();
    json["output"] = report.output;
    json["providers"] = nlohmann::ordered_json::array();
    for (const auto& row : report.providers) {
        nlohmann::ordered_json j;
        j["id"] = row.id;
        j["as_of"] = row.as_of;  // "" = unknown, as in catalog info
        j["files"] = row.files;
        j["offers"] = row.offers;
        j["offers_by_gpu"] = row.by_gpu;
        j["rows_by_reason"] = row.reasons;
        json["providers"].push_back(j);
    }
    json["ignored"] = report.ignored;
    return json;
}

io::TextDocument to_document(const ImportReport& report) {
    io::TextTable t;
    t.title = "Imported:";
    t.columns = {{"PROVIDER"},
                 {"FILES"},
                 {"OFFERS", io::Align::right},
                 {"GPUS"},
                 {"ROWS SKIPPED OR FIXED", io::Align::right}};
    for (const auto& row : report.providers) {
        std::vector<std::string> gpus;
        for (const auto& [g, n] : row.by_gpu) gpus.push_back(g + " " + std::to_string(n));
        t.rows.push_back({row.id, std::to_string(row.files.size()), std::to_string(row.offers),
                          gpus.empty() ? "-" : join(gpus, ", "), std::to_string(row.skipped)});
    }
    io::TextDocument doc;
    doc.tables.push_back(t);
    io::TextTable reasons;
    reasons.title = "Rows skipped or fixed, per reason:";
    reasons.columns = {{"FILE"}, {"REASON"}, {"ROWS", io::Align::right}};
    for (const auto& s : report.scratch.skipped)
        for (const auto& [reason, n] : s.rows_by_reason)
            reasons.rows.push_back({s.file, reason, std::to_string(n)});
    if (!reasons.rows.empty()) doc.tables.push_back(reasons);
    for (const auto& f : report.ignored)
        doc.notes.push_back("Ignored " + f + ": not a SkyPilot vms.csv table.");
    if (std::any_of(report.providers.begin(), report.providers.end(),
                    [](const ImportedRow& r) { return r.as_of.empty(); }))
        doc.notes.push_back(
            "As-of unknown (no --as-of): every command treats these prices as stale, as it does the same "
            "table given with --catalog; import again with --as-of YYYY-MM-DD, the date the table was "
            "published.");
    doc.notes.push_back("Wrote " + report.output + "/catalog.yaml and " +
                        std::to_string(report.providers.size()) + " table(s); use it with --catalog " +
                        report.output + "/catalog.yaml");
    return doc;
}

}  // namespace

int run_catalog_import(Context& ctx, const std::string& format, const std::vector<std::string>& paths,
                       const std::string& output, bool force, const std::string& as_of) {
    if (format != "skypilot")
        throw UsageError("unknown import format '" + format + "'", "the only format is 'skypilot'");
    if (!as_of.empty() && !parse_iso_date(as_of))
        throw UsageError("--as-of: '" + as_of + "' is not a YYYY-MM-DD date");
    std::vector<std::string> ignored;
    const std::vector<InputFile> inputs = collect_inputs(paths, ignored);
    if (inputs.empty())
        throw DataError("no SkyPilot vms.csv table among the inputs; nothing was written",
                        "a table's header names InstanceType and AcceleratorName columns");

    // The GPU catalog (built-in plus --catalog) decides the GPU ids; offers go into a scratch catalog.
    Catalog scratch;
    scratch.gpus = ctx.catalog().gpus;
    scratch.policy = ctx.catalog().policy;
    std::map<std::string, std::vector<const InputFile*>> groups;
    for (const auto& in : inputs) groups[provider_of(in.stem, inputs)].push_back(&in);
    Diagnostics diags;
    for (const auto& [id, files] : groups) {
        Provider p;
        p.id = id;
        p.name = id;
        p.currency = "USD";
        // Without --as-of the date is unknown, as for the same table given with --catalog: a file time
        // says when the copy was made, not when the prices were (issue #29).
        p.as_of = as_of;
        std::vector<std::string> names;
        for (const auto* f : files) names.push_back(fs::path(f->path).filename().string());
        p.source = "SkyPilot vms.csv imported by gpuadvise from " + join(names, ", ") +
                   (as_of.empty() ? "; as-of unknown (give --as-of DATE)" : "");
        scratch.providers.push_back(p);
        std::vector<io::TableSource> sources;
        for (const auto* f : files) {
            io::TableRef ref{id, "skypilot", f->path, f->path, false, {f->path, 0, 0}};
            sources.push_back({ref, f->bytes});
        }
        io::load_offer_tables(sources, scratch, diags);
    }
    if (diags.has_errors()) {
        std::vector<Diagnostic> errors;
        for (const auto& d : diags.all())
            if (d.severity == Severity::error) errors.push_back(d);
        throw DataError("the tables have " + std::to_string(errors.size()) + " error(s); nothing was written",
                        std::move(errors), "fix the lines above and run the import again");
    }

    std::vector<io::ImportedProvider> imported;
    std::vector<std::pair<std::string, std::string>> files;
    ImportReport report{output, ignored, scratch, {}};
    for (const auto& p : scratch.providers) {
        std::vector<const Offer*> offers;
        ImportedRow row{p.id, p.as_of, {}, 0, {}, nlohmann::ordered_json::object(), 0};
        for (const auto& o : scratch.offers)
            if (o.provider == p.id) {
                offers.push_back(&o);
                ++row.by_gpu[o.gpu];
            }
        row.offers = offers.size();
        const std::string table = "skypilot/" + p.id + ".csv";
        files.emplace_back(table, io::write_skypilot_csv(offers));
        imported.push_back({p, table});
        for (const auto* f : groups[p.id]) {
            row.files.push_back(f->path);
            for (const auto& s : scratch.skipped)
                if (s.file == f->path)
                    for (const auto& [reason, n] : s.rows_by_reason) {
                        row.skipped += n;
                        row.reasons[reason] = row.reasons.value(reason, 0L) + n;
                    }
        }
        report.providers.push_back(std::move(row));
    }
    files.emplace_back("catalog.yaml", io::write_import_yaml(
                                           imported,
                                           "Written by 'gpuadvise catalog import skypilot'. Prices: USD per "
                                           "instance per hour; check as_of before relying on them."));
    const std::vector<std::string> leftovers = io::write_directory_atomically(output, files, force);
    for (const auto& l : leftovers) ctx.note("removed " + l + ", left by an interrupted import");
    // --format csv/tsv: the tables of this output, the first by default (--section NAME; docs/json.md).
    static const std::vector<io::ExportSection> sections = {
        {"providers", "/providers", "", {}},
        {"ignored", "/ignored", "", {}},
    };
    ctx.emit([&] { return to_json(report); }, [&] { return to_document(report); }, sections);
    return 0;
}

}  // namespace gpuadvise::cli
