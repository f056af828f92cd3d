// gpuadvise check-env: is this machine's (or the given) GPU / driver / CUDA / PyTorch combination
// compatible? Exit 0 when it is, 3 when it is not or cannot be told (unknown), 2 on unusable arguments.
#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "cli/help_footer.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/compat/compat.hpp"
#include "gpuadvise/compat/env_parse.hpp"
#include "io/env_probe.hpp"

namespace gpuadvise::cli {
namespace {

struct CheckEnvOptions {
    std::optional<std::string> gpu;
    std::optional<std::string> driver;
    std::optional<std::string> cuda;
    std::optional<std::string> pytorch;
    std::optional<std::string> precision;
    bool detect = false;
};

struct Detection {
    std::string gpu_name;  // as nvidia-smi prints it
    std::vector<nlohmann::ordered_json> tools;
};

void note_tool(Context& ctx, Detection& d, const io::ToolRun& run, const std::string& found_what) {
    nlohmann::ordered_json j;
    j["tool"] = run.tool;
    j["found"] = run.found;
    j["result"] = found_what;
    d.tools.push_back(j);
    ctx.note(run.tool + ": " + found_what);
}

std::string timed_out_text() {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", static_cast<double>(io::probe_deadline().count()) / 1000.0);
    return std::string("did not finish within ") + seconds +
           " s and was stopped (set GPUADVISE_PROBE_TIMEOUT to wait longer)";
}

// Fills the fields the arguments left empty from this machine's tools; every missing tool is a note.
Detection detect(Context& ctx, EnvQuery& q, const Catalog& catalog) {
    Detection d;
    io::EnvironmentProbe probe = io::probe_environment();

    const auto& smi = probe.nvidia_smi;
    if (!smi.found) {
        note_tool(ctx, d, smi, "not found (no NVIDIA driver on this machine?)");
    } else if (smi.timed_out) {
        note_tool(ctx, d, smi, timed_out_text());
    } else if (smi.exit_code != 0) {
        note_tool(ctx, d, smi, "failed with exit code " + std::to_string(smi.exit_code));
    } else {
        SmiParse parsed = parse_nvidia_smi_csv(smi.output);
        for (const auto& p : parsed.problems) ctx.warn("nvidia-smi output " + p);
        if (parsed.gpus.empty()) {
            note_tool(ctx, d, smi, "reported no GPU");
        } else {
            const SmiGpu& first = parsed.gpus.front();
            GpuIdentification id = identify_gpu(catalog, first);
            std::string what = std::to_string(parsed.gpus.size()) + " GPU" +
                               (parsed.gpus.size() == 1 ? "" : "s") + ": " + first.name + ", driver " +
                               first.driver;
            for (const auto& other : parsed.gpus)
                if (other.name != first.name) what += "; also " + other.name + " (not checked)";
            note_tool(ctx, d, smi, what + " (" + id.note + ")");
            d.gpu_name = first.name;
            if (!q.gpu && !q.compute_capability) {
                if (id.gpu)
                    q.gpu = id.gpu->id;
                else if (!id.candidates.empty())
                    q.gpu = id.candidates.front()->family;
                if (!first.compute_capability.empty()) q.compute_capability = first.compute_capability;
            }
            if (!q.driver) q.driver = first.driver;
        }
    }

    const auto& nvcc = probe.nvcc;
    if (!nvcc.found) {
        note_tool(ctx, d, nvcc, "not found (no CUDA toolkit on PATH; PyTorch wheels do not need one)");
    } else if (nvcc.timed_out) {
        note_tool(ctx, d, nvcc, timed_out_text());
    } else if (auto v = parse_nvcc_version(nvcc.output)) {
        note_tool(ctx, d, nvcc, "CUDA " + *v);
        if (!q.cuda) q.cuda = *v;
    } else {
        note_tool(ctx, d, nvcc, "printed no 'Cuda compilation tools, release X.Y' line");
    }

    const auto& py = probe.python;
    if (!py.found) {
        note_tool(ctx, d, py, "not found");
    } else if (py.timed_out) {
        note_tool(ctx, d, py, timed_out_text());
    } else if (py.exit_code != 0) {
        note_tool(ctx, d, py, "found, but 'import torch' failed (PyTorch not installed?)");
    } else if (auto t = parse_torch_probe(py.output)) {
        note_tool(ctx, d, py,
                  "PyTorch " + t->version + (t->cuda ? ", CUDA " + *t->cuda : ", CPU-only build"));
        if (!q.pytorch) {
            q.pytorch = t->version;
            q.pytorch_cuda = t->cuda;
            q.arch_list = t->arch_list;
        }
    } else {
        note_tool(ctx, d, py, "printed something other than the torch version, CUDA and architecture list");
    }
    return d;
}

nlohmann::ordered_json text_or_null(const std::string& s) {
    return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
}

// What run_check_env found; to_json and to_document render it (only the one printed is built).
struct CheckEnvResult {
    const CheckEnvOptions& opt;
    const Detection& detected;
    const CompatReport& r;
};

nlohmann::ordered_json to_json(const CheckEnvResult& result) {
    const CheckEnvOptions& opt = result.opt;
    const Detection& detected = result.detected;
    const CompatReport& r = result.r;
    auto json = json_document();
    nlohmann::ordered_json env;
    env["gpu"] = text_or_null(!detected.gpu_name.empty() && !opt.gpu ? detected.gpu_name : r.gpu);
    env["driver"] = text_or_null(r.driver);
    env["cuda"] = text_or_null(r.cuda);
    env["pytorch"] = text_or_null(r.pytorch);
    env["gpu_ids"] = r.gpu_ids;
    env["compute_capability"] = text_or_null(r.compute_capability);
    env["wheel"] = text_or_null(r.wheel);
    env["precision"] = text_or_null(r.precision);
    json["environment"] = env;
    json["compatible"] = r.compatible;
    json["verdict"] = r.compatible ? "compatible" : r.unknown ? "unknown" : "not compatible";
    json["checks"] = nlohmann::ordered_json::array();
    for (const auto& c : r.checks) {
        nlohmann::ordered_json j;
        j["name"] = c.name;
        j["ok"] = c.ok;
        j["message"] = c.message;
        j["checked"] = c.checked;
        json["checks"].push_back(j);
    }
    json["suggestions"] = r.suggestions;
    json["detected"] = detected.tools;
    return json;
}

io::TextDocument to_document(const CheckEnvResult& result) {
    const CheckEnvOptions& opt = result.opt;
    const Detection& detected = result.detected;
    const CompatReport& r = result.r;
    io::TextDocument doc;
    auto show = [](const std::string& s) { return s.empty() ? std::string("-") : s; };
    std::string gpu = !detected.gpu_name.empty() && !opt.gpu ? detected.gpu_name : r.gpu;
    if (!r.gpu_ids.empty() && gpu != r.gpu_ids.front()) gpu += " (" + join(r.gpu_ids, ", ") + ")";
    if (!r.compute_capability.empty()) gpu += (gpu.empty() ? "CC " : ", CC ") + r.compute_capability;
    doc.lead.push_back("GPU: " + show(gpu) + "   driver: " + show(r.driver) + "   CUDA: " + show(r.cuda) +
                       "   PyTorch: " + show(r.pytorch) + (r.wheel.empty() ? "" : " (" + r.wheel + ")") +
                       (r.precision.empty() ? "" : "   precision: " + r.precision));
    io::TextTable table;
    table.columns = {{"CHECK"}, {"OK"}, {"REASON"}};
    for (const auto& c : r.checks)
        table.rows.push_back({c.name, c.ok ? "yes" : !c.checked ? "?" : "NO", c.message});
    doc.tables.push_back(table);
    doc.notes.push_back(r.compatible ? "Compatible."
                        : r.unknown
                            ? "Unknown: some checks could not be made (marked ?); this is not a 'Compatible'."
                            : "Not compatible.");
    for (const auto& s : r.suggestions) doc.notes.push_back({s, io::ListMark::dash});
    return doc;
}

int run_check_env(Context& ctx, const CheckEnvOptions& opt) {
    const Catalog& catalog = ctx.catalog();
    EnvQuery q;
    q.gpu = opt.gpu;
    q.driver = opt.driver;
    q.cuda = opt.cuda;
    q.pytorch = opt.pytorch;
    q.precision = opt.precision;
    // The same check and message as every other command's --precision.
    if (opt.precision) (void)kPrecisionNames.parse_or_throw(*opt.precision, "--precision");
    const bool any_given = opt.gpu || opt.driver || opt.cuda || opt.pytorch;
    Detection detected;
    if (!any_given || opt.detect) detected = detect(ctx, q, catalog);

    CompatReport r = check_compat(catalog, q);

    // --format csv/tsv: the tables of this output, the first by default (--section NAME; docs/json.md).
    static const std::vector<io::ExportSection> sections = {
        {"checks", "/checks", "", {}},
        {"environment", "/environment", "", {}},
        {"suggestions", "/suggestions", "", {}},
    };
    const CheckEnvResult result{opt, detected, r};
    ctx.emit([&] { return to_json(result); }, [&] { return to_document(result); }, sections);
    return r.compatible ? 0 : 3;
}

}  // namespace

Runner setup_check_env(CommandApp& sub) {
    auto opt = std::make_shared<CheckEnvOptions>();
    sub.add_option("--gpu", opt->gpu, "GPU name or id, e.g. T4, A100, a100-80gb-sxm")->type_name("NAME");
    sub.add_option("--driver", opt->driver, "NVIDIA driver version, e.g. 535.104.05")->type_name("VERSION");
    sub.add_option("--cuda", opt->cuda,
                   "CUDA version: the toolkit (nvcc), or the wheel's CUDA when --pytorch has no +cuXYZ")
        ->type_name("VERSION");
    sub.add_option("--pytorch", opt->pytorch,
                   "PyTorch version, optionally with the wheel variant: 2.1, 2.1.0+cu118")
        ->type_name("VERSION[+cuXYZ]");
    sub.add_option("--precision", opt->precision, "Training precision to check against the GPU")
        ->type_name(kPrecisionNames.choices());
    sub.add_flag("--detect", opt->detect,
                 "Inspect this machine even when arguments are given (arguments override)");
    set_footer(sub, {{FooterBlock::Kind::paragraph,
                      {"Without --gpu/--driver/--cuda/--pytorch it inspects this machine: nvidia-smi, nvcc "
                       "--version and",
                       "python3 with torch (each missing tool is a note, not an error)."}},
                     {FooterBlock::Kind::examples,
                      {"gpuadvise check-env",
                       "gpuadvise check-env --gpu A100 --pytorch 1.12+cu102   # not compatible (exit 3)",
                       "gpuadvise check-env --gpu H100 --pytorch 2.1 --driver 535.104.05",
                       "gpuadvise check-env --gpu V100 --precision bf16   # V100 has no bf16 (exit 3)"}},
                     {FooterBlock::Kind::paragraph,
                      {"Exit code 0 when compatible, 3 when not or when a check could not be made (unknown),",
                       "2 on unusable arguments."}}});
    return [opt](Context& ctx) { return run_check_env(ctx, *opt); };
}

}  // namespace gpuadvise::cli
