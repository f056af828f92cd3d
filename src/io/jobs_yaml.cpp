#include "io/jobs_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"
#include "io/yaml_context.hpp"

namespace gpuadvise::io {

namespace {

constexpr const char* kFix = "see docs/plan.md for the jobs file format";

// Whether an error was reported after the first `from` diagnostics (only the new ones are looked at).
bool errors_since(const Diagnostics& diags, std::size_t from) {
    const auto& all = diags.all();
    for (std::size_t i = from; i < all.size(); ++i)
        if (all[i].severity == Severity::error) return true;
    return false;
}

// A name or message as an error quotes it: at most `max` bytes, cut between UTF-8 characters (a 2 MB
// value is not echoed whole).
std::string clip(std::string_view name, std::size_t max = 80) {
    if (name.size() <= max) return std::string(name);
    std::size_t cut = max - 3;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80)
        --cut;  // not inside a UTF-8 character
    return std::string(name.substr(0, cut)) + "...";
}

// A text or a list of texts ("provider: aws" or "provider: [aws, gcp]").
std::vector<std::string> text_or_list(YamlContext& ctx, const YAML::Node& job, const std::string& path,
                                      const char* key) {
    const YAML::Node node = job[key];
    if (node.IsDefined() && node.IsScalar()) {
        if (auto v = ctx.as_text(node, key_path(path, key))) return {*v};
        return {};
    }
    return ctx.text_list(job, path, key);
}

bool blank_text(std::string_view text) { return text.find_first_not_of(" \t") == std::string_view::npos; }

// A text that must not be blank when given: `name: ""` would be a job without a name, `pool: ""` a pool
// of jobs that meant to give one. Blank is an error; the key left out takes the default.
std::optional<std::string> given_text(YamlContext& ctx, const YAML::Node& job, const std::string& path,
                                      const char* key) {
    auto v = ctx.text(job, path, key);
    if (v && blank_text(*v)) {
        ctx.error(job[key], key_path(path, key),
                  std::string("the value is empty; give one, or remove the '") + key + ":' line");
        return std::nullopt;
    }
    return v;
}

// text_or_list for `region` and `provider`: an empty entry is an error (it would match nothing, or all).
std::vector<std::string> given_texts(YamlContext& ctx, const YAML::Node& job, const std::string& path,
                                     const char* key) {
    std::vector<std::string> out = text_or_list(ctx, job, path, key);
    const YAML::Node node = job[key];
    for (std::size_t i = 0; i < out.size(); ++i)
        if (blank_text(out[i]))
            ctx.error(node.IsSequence() ? node[i] : node,
                      node.IsSequence() ? index_path(key_path(path, key), i) : key_path(path, key),
                      std::string("an empty ") + key + "; give one, or remove it");
    std::erase_if(out, [](const std::string& s) { return blank_text(s); });
    return out;
}

std::optional<int> small_int(YamlContext& ctx, const YAML::Node& job, const std::string& path,
                             const char* key, long long min, long long max) {
    auto v = ctx.integer(job, path, key, false, min, max);
    if (!v) return std::nullopt;
    return static_cast<int>(*v);
}

// A node as text that two nodes share only when the jobs reader reads them alike: each scalar with its
// tag (a quoted "1" is not the number 1) and length, sequences and maps in their order.
void append_key(std::string& out, const YAML::Node& node) {
    switch (node.Type()) {
        case YAML::NodeType::Scalar:
            out += node.Tag();
            out += std::to_string(node.Scalar().size());
            out += ':';
            out += node.Scalar();
            return;
        case YAML::NodeType::Sequence:
            out += '[';
            for (const auto& x : node) append_key(out, x);
            out += ']';
            return;
        case YAML::NodeType::Map:
            out += '{';
            for (const auto& kv : node) {
                append_key(out, kv.first);
                append_key(out, kv.second);
            }
            out += '}';
            return;
        default: out += '~';
    }
}

// The job's fields but its name, team and pool (PoolJob::options_key).
std::string options_key(const YAML::Node& job) {
    std::string out;
    for (const auto& kv : job) {
        const std::string& key = kv.first.Scalar();
        if (key == "name" || key == "team" || key == "pool") continue;
        append_key(out, kv.first);
        append_key(out, kv.second);
    }
    return out;
}

PoolJob read_job(YamlContext& ctx, const YAML::Node& job, const std::string& path, std::size_t index,
                 const Catalog& catalog, const std::string& currency) {
    PoolJob out;
    ctx.check_keys(job, path, {"name",          "team",
                               "pool",          "model",
                               "params",        "task",
                               "precision",     "optimizer",
                               "batch_size",    "seq_len",
                               "image_size",    "samples",
                               "tokens",        "epochs",
                               "hours_per_run", "measured_on",
                               "measured_gpus", "runs_per_week",
                               "schedule",      "days",
                               "gpu",           "provider",
                               "region",        "deadline_hours",
                               "interruptible", "checkpoint_minutes",
                               "gpus_now",      "nodes"});
    out.name = given_text(ctx, job, path, "name").value_or("job-" + std::to_string(index + 1));
    out.team = ctx.text(job, path, "team").value_or("");
    out.pool = given_text(ctx, job, path, "pool").value_or("default");
    const std::size_t items_before = ctx.diagnostics().all().size();  // error_count() would scan them all

    WorkloadRequest w;
    w.model = ctx.text(job, path, "model");
    w.params = ctx.text(job, path, "params");
    if (!w.model && !w.params && !job["model"].IsDefined())
        ctx.error(job, path,
                  "missing required key 'model' (a preset from 'gpuadvise models', e.g. model: bert; or "
                  "params: 7B for a custom model)");
    w.task = ctx.text(job, path, "task");
    w.precision = ctx.text(job, path, "precision");
    w.optimizer = ctx.text(job, path, "optimizer");
    w.batch_size = small_int(ctx, job, path, "batch_size", 1, 1000000);  // as --batch-size
    w.seq_len = small_int(ctx, job, path, "seq_len", 1, 1 << 24);
    w.image_size = small_int(ctx, job, path, "image_size", 8, 65536);
    w.samples = ctx.text(job, path, "samples");
    w.tokens = ctx.text(job, path, "tokens");
    w.epochs = ctx.number(job, path, "epochs", false, 1e-6, 1e6);
    w.hours_per_run = ctx.number(job, path, "hours_per_run", false, 1e-6, 1e6);
    w.measured_on = ctx.text(job, path, "measured_on");
    w.measured_gpu_count = small_int(ctx, job, path, "measured_gpus", 1, 4096);

    RecommendRequest& r = out.request;
    r.currency = currency;
    r.runs_per_week = ctx.number(job, path, "runs_per_week", false, 0, 10000).value_or(1.0);
    r.deadline_hours = ctx.number(job, path, "deadline_hours", false, 1e-6, 1e6);
    r.interruptible = ctx.boolean(job, path, "interruptible").value_or(false);
    r.checkpoint_minutes = ctx.number(job, path, "checkpoint_minutes", false, 0, 10080).value_or(30.0);
    r.gpus_now = small_int(ctx, job, path, "gpus_now", 1, 4096);
    r.nodes = small_int(ctx, job, path, "nodes", 1, 512);
    r.providers = given_texts(ctx, job, path, "provider");
    r.regions = given_texts(ctx, job, path, "region");
    const auto gpu = given_text(ctx, job, path, "gpu");
    const auto schedule = given_text(ctx, job, path, "schedule");
    const auto days = given_text(ctx, job, path, "days");
    ScheduleError why;
    if (auto s = parse_schedule(schedule.value_or("any"), days.value_or("all"), &why))
        out.schedule = *s;
    else {
        const char* key = why.field == ScheduleError::Field::days ? "days" : "schedule";
        ctx.error(job[key].IsDefined() ? job[key] : job, key_path(path, key), why.message);
    }

    if (gpu) {
        try {
            r.gpu = parse_gpu_spec(*gpu);
            select_gpus(catalog, r.gpu);
        } catch (const UsageError& e) {
            ctx.error(job["gpu"], key_path(path, "gpu"),
                      clip(std::string(e.what()) + (e.hint().empty() ? "" : "; " + e.hint()), 400));
        }
    }
    const YAML::Node providers = job["provider"];
    for (std::size_t i = 0; i < r.providers.size(); ++i)
        if (!catalog.find_provider(r.providers[i])) {
            std::vector<std::string> ids;
            for (const auto& x : catalog.providers) ids.push_back(x.id);
            const auto best = closest_match(r.providers[i], ids);
            ctx.error(providers.IsSequence() ? providers[i] : providers, key_path(path, "provider"),
                      "unknown provider '" + r.providers[i] + "'; " +
                          (best ? "did you mean '" + *best + "'?" : "known providers: " + join(ids, ", ")));
        }
    if (errors_since(ctx.diagnostics(), items_before)) return out;  // the rest would repeat those errors
    out.options_key = options_key(job);
    try {
        r.workload = make_workload(catalog, w);
    } catch (const UsageError& e) {
        // Put the error on the key of the field it is about (the model, the task …), else on the model.
        YAML::Node at = job;
        std::string at_path = path;
        if (!e.field().empty() && job[e.field()].IsDefined()) {
            at.reset(job[e.field()]);  // rebinds; `at = v` would overwrite the job's node with the value
            at_path = key_path(path, e.field());
        }
        if (at_path == path && job["model"].IsDefined()) {
            at.reset(job["model"]);
            at_path = key_path(path, "model");
        }
        ctx.error(at, at_path, clip(std::string(e.what()) + (e.hint().empty() ? "" : "; " + e.hint()), 400));
    }
    return out;
}

}  // namespace

std::vector<PoolJob> parse_jobs_yaml(std::string_view text, const std::string& path, const Catalog& catalog,
                                     const std::string& currency) {
    Diagnostics diags;
    if (text.size() > kMaxJobsFileBytes)  // read_file checks it at the open; text may come from elsewhere
        throw DataError(path + ": the file is " + std::to_string(text.size()) + " bytes, more than the " +
                            std::to_string(kMaxJobsFileBytes >> 20) + " MiB a jobs file may hold",
                        kJobsTooLargeFix);
    const YamlRead read = read_yaml_text(text, path, {"a jobs file nests at most 4 deep", {}, {}}, diags);
    if (!read.root) throw DataError(read_failure_title("the jobs file " + path, read.failure), diags.all(), kFix);
    YAML::Node root = *read.root;  // not const: a missing key of a const node is an invalid node
    YamlContext ctx(path, diags);
    std::vector<PoolJob> jobs;
    if (!root.IsDefined() || root.IsNull()) {
        diags.error({path, 1, 1}, "the file is empty; expected 'jobs:' with a list of jobs");
    } else if (ctx.expect_map(root, "")) {
        ctx.check_keys(root, "", {"jobs"});
        const YAML::Node list = root["jobs"];
        if (!list.IsDefined() || list.IsNull())
            ctx.error(list.IsDefined() ? list : root, "", "missing required key 'jobs' (a list of jobs)");
        else if (ctx.expect_sequence(list, "jobs")) {
            if (list.size() == 0) ctx.error(list, "jobs", "the list is empty; give at least one job");
            // Before any job is read: the job past the bound is named, and nothing is planned.
            const std::size_t count = list.size() > kMaxJobs ? 0 : list.size();
            if (list.size() > kMaxJobs)
                ctx.error(list[kMaxJobs], index_path("jobs", kMaxJobs),
                          "the file has " + std::to_string(list.size()) + " jobs, more than the " +
                              std::to_string(kMaxJobs) + " a plan takes; " + kJobsTooLargeFix);
            std::vector<std::size_t> job_index;  // jobs[k] is list[job_index[k]]
            for (std::size_t i = 0; i < count; ++i) {
                const std::string p = index_path("jobs", i);
                if (!ctx.expect_map(list[i], p)) continue;
                jobs.push_back(read_job(ctx, list[i], p, i, catalog, currency));
                job_index.push_back(i);
            }
            // Each duplicated name once, at its second use, with how many share it (3,000 jobs of one
            // name are one error, not 4.5 million); linear in the number of jobs.
            struct Uses {
                std::size_t first = 0, second = 0, count = 0;
            };
            std::unordered_map<std::string_view, Uses> uses;
            std::vector<std::string_view> order;  // duplicated names, by their second use
            for (std::size_t i = 0; i < jobs.size(); ++i) {
                Uses& u = uses[jobs[i].name];
                if (u.count == 0) u.first = job_index[i];
                if (u.count == 1) {
                    u.second = job_index[i];
                    order.push_back(jobs[i].name);
                }
                ++u.count;
            }
            std::sort(order.begin(), order.end(), [&](std::string_view a, std::string_view b) {
                return uses[a].second < uses[b].second;
            });
            for (std::string_view name : order) {
                const Uses& u = uses[name];
                const YAML::Node at = list[u.second];
                ctx.error(at["name"].IsDefined() ? at["name"] : at, index_path("jobs", u.second) + ".name",
                          "duplicate job name '" + clip(name) + "' (also jobs[" + std::to_string(u.first) +
                              "]" +
                              (u.count > 2 ? " and " + std::to_string(u.count - 2) + " more jobs" : "") +
                              "); give each job its own name");
            }
        }
    }
    if (diags.has_errors())
        throw DataError("the jobs file " + path + " has " + std::to_string(diags.error_count()) +
                            (diags.error_count() == 1 ? " error" : " errors"),
                        diags.all(), kFix);
    return jobs;
}

}  // namespace gpuadvise::io
