#include "cli/emit.hpp"

#include <CLI/CLI.hpp>

#include <cctype>
#include <cmath>
#include <filesystem>

#include "cli/option_checks.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "io/launcher_yaml.hpp"
#include "io/text_table.hpp"
#include "io/update_cache.hpp"

namespace gpuadvise::cli {
namespace {

std::vector<std::string>& launch_command_line() {
    static std::vector<std::string> args;
    return args;
}

// A shell-like rendering of the command line: words with spaces or quotes are single-quoted.
std::string launch_command_text(const std::vector<std::string>& args) {
    std::string text = "gpuadvise";
    for (const std::string& a : args) {
        const bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`*?;&|<>()[]{}#~") == std::string::npos;
        if (plain) {
            text += " " + a;
            continue;
        }
        std::string quoted = "'";
        for (char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
        text += " " + quoted + "'";
    }
    return text;
}

std::string launch_plan_text(const PlanCost& k) {
    if (k.plan != Plan::reserved) return std::string(plan_label(k.plan));
    return k.term_months > 0 ? "reserved, " + std::to_string(k.term_months) + "-month commitment"
                             : "reserved";
}

// The name a launcher shows: lower-case letters, digits and single '-', from the model, at most 40
// characters (dstack's run names: a letter, then letters, digits and '-').
std::string launch_task_name(const Workload& w) {
    std::string name = "gpuadvise-";
    for (char c : to_lower(w.model_id.empty() ? std::string("job") : w.model_id)) {
        const bool keep = std::isalnum(static_cast<unsigned char>(c)) && static_cast<unsigned char>(c) < 0x80;
        if (keep)
            name += c;
        else if (name.back() != '-')
            name += '-';
    }
    if (name.size() > 40) name.resize(40);
    while (name.back() == '-') name.pop_back();
    return name;
}

std::vector<std::string> launch_header(const std::string& launcher, int pick, const Candidate& c,
                                       const RecommendRequest& request, const std::vector<std::string>& args,
                                       const std::string& sky_name) {
    const Offer& o = *c.offer;
    const std::string& cur = request.currency;
    std::vector<std::string> h;
    h.push_back(launcher + " configuration for gpuadvise's option #" + std::to_string(pick) +
                " (numbers are estimates, not quotes).");
    std::string where = std::to_string(o.gpu_count) + " x " + c.gpu->name + " (" + c.gpu->id + ", " +
                        sky_name + ") on " + o.provider.str();
    if (!o.instance_type.empty()) where += " " + o.instance_type;
    if (!o.region.empty()) where += " in " + o.region;
    if (c.instances > 1) where += ", " + std::to_string(c.instances) + " nodes";
    h.push_back("Option: " + where + ", " + launch_plan_text(c.cost) + ".");
    std::string est = "Estimate: " + io::fmt_number(c.cost.hours_per_run, 2) + " h a run (" +
                      io::fmt_number(c.hours_low, 2) + " to " + io::fmt_number(c.hours_high, 2) + " h), " +
                      io::fmt_number(c.cost.cost_per_run, 2) + " " + cur + " a run";
    if (request.service)
        est = "Estimate: " + io::fmt_number(c.cost.cost_per_month, 2) + " " + cur + " a month, " +
              io::fmt_number(c.cost.hours_per_run, 2) +
              " h a day: " + std::to_string(c.service ? c.service->replicas : 1) + " model replica(s) on " +
              std::to_string(c.service ? c.service->groups : 1) + " instance(s), " +
              std::to_string(c.estimate.config.layout.data) + " on each (DP)";
    else if (!request.one_off())
        est += ", " + io::fmt_number(c.cost.cost_per_month, 2) + " " + cur + " a month";
    h.push_back(est + ".");
    h.push_back("Prices: " + o.provider.str() + " as of " + o.as_of.str() + " (" + o.source.str() + ").");
    h.push_back("Command: " + launch_command_text(args));
    if (c.cost.plan == Plan::reserved)
        h.push_back("Commitment: this plan is a commitment bought from " + o.provider.str() + " outside " +
                    launcher + "; this file buys nothing, it runs on the capacity the commitment pays for.");
    if (c.parallel_copies > 1)
        h.push_back("Copies: the plan runs " + std::to_string(c.parallel_copies) +
                    " copies of this side by side (a week's runs exceed 168 h): launch it " +
                    std::to_string(c.parallel_copies) + " times.");
    if (request.dataset_gb)
        h.push_back("Disk: the dataset's " + io::fmt_number(*request.dataset_gb, 0) +
                    " GB (--dataset-gb) or " + launcher +
                    "'s default, whichever is more; add room for checkpoints.");
    h.push_back("FILL IN the marked placeholders before launching: gpuadvise writes no commands.");
    return h;
}

[[noreturn]] void no_launch(const std::string& what, const std::string& hint) {
    throw UsageError(what, hint);
}

}  // namespace

void record_command_line(int argc, const char* const* argv) {
    launch_command_line().assign(argv + 1, argv + argc);
}

void add_launch_options(CommandApp& sub, LaunchOptions& opt) {
    sub.add_option("--emit", opt.emit,
                   "Write the chosen option as a launcher's task file: skypilot (task YAML) or dstack (run "
                   "configuration); see docs/usage.md")
        ->check(one_of({"skypilot", "dstack"}))
        ->type_name("skypilot|dstack");
    sub.add_option("--pick", opt.pick, "With --emit: the N-th option listed instead of the first")
        ->transform(whole_number(1, 1000));
    sub.add_option("-o,--output", opt.output,
                   "With --emit: write the file here (atomically) instead of stdout")
        ->type_name("FILE");
    sub.add_flag("--force", opt.force, "With -o: replace FILE if it exists");
}

int emit_launcher(Context& ctx, const LaunchOptions& opt, const RecommendRequest& request,
                  const Recommendation& rec) {
    const int pick = opt.pick.value_or(1);
    if (pick > static_cast<int>(rec.ranked.size()))
        no_launch("--pick " + std::to_string(pick) + ": only " + std::to_string(rec.ranked.size()) +
                      " option(s) are listed",
                  "pick one of 1.." + std::to_string(rec.ranked.size()) + ", or list more with --top");
    const Candidate& c = rec.ranked[static_cast<std::size_t>(pick - 1)];
    const Offer& o = *c.offer;
    const std::string provider = o.provider.str();
    const bool sky = opt.emit == "skypilot";
    const std::string launcher = sky ? "SkyPilot" : "dstack";

    if (request.service && c.instances > 1) {
        ctx.err << "gpuadvise: a replica of option #" << pick << " spans " << c.instances << " instances of "
                << o.instance_type << " (its layout: TP " << c.estimate.config.layout.tensor << ", PP "
                << c.estimate.config.layout.pipeline << "); gpuadvise writes " << launcher
                << " services whose replicas run on one instance each, so no file was written (--gpu with "
                   "more memory per GPU, or --pick another option).\n";
        return 3;
    }
    io::LaunchSpec spec;
    spec.name = launch_task_name(request.workload);
    spec.region = o.region;
    spec.instance_type = o.instance_type;
    spec.gpu_memory_gb = c.gpu->memory_gb;
    spec.gpus_per_node = o.gpu_count;
    spec.nodes = c.instances;
    spec.spot = c.cost.plan == Plan::spot;
    std::string gpu_name;
    if (sky) {
        if (io::skypilot_tables_of(provider).empty()) {
            ctx.err << "gpuadvise: option #" << pick << " is on " << provider
                    << ", which has no SkyPilot catalog table in gpuadvise's data: SkyPilot cannot be told "
                       "its accelerator, so no task file was written. SkyPilot clouds: "
                    << join(io::skypilot_clouds(), ", ") << " (choose one with --provider, or --pick another "
                    << "option).\n";
            return 3;
        }
        auto name = io::SkypilotAcceleratorNames(ctx.catalog(), provider).name(o.gpu, o.instance_type);
        if (!name) {
            ctx.err << "gpuadvise: option #" << pick << "'s GPU " << o.gpu << " is in no row of " << provider
                    << "'s SkyPilot table (" << join(io::skypilot_tables_of(provider), ", ")
                    << "): no SkyPilot accelerator name, so no task file was written.\n";
            return 3;
        }
        spec.cloud = provider;
        gpu_name = *name;
        if (request.dataset_gb)
            spec.disk_gb =
                std::max(io::kSkypilotDefaultDiskGb, static_cast<int>(std::ceil(*request.dataset_gb)));
    } else {
        auto backend = io::dstack_backend(provider);
        if (!backend) {
            ctx.err << "gpuadvise: option #" << pick << " is on " << provider
                    << ", which dstack has no backend for: no configuration was written. dstack backends: "
                    << join(io::dstack_providers(), ", ")
                    << " (gpuadvise's provider ids; choose one with --provider, or --pick another option).\n";
            return 3;
        }
        spec.cloud = *backend;
        // vast.ai is a marketplace: its SkyPilot region and machine names are offer listings, not
        // dstack's (gpuhunt's vastai offers are fetched live), so dstack is left to match the GPU.
        if (*backend == "vastai") {
            spec.region.clear();
            spec.instance_type.clear();
        }
        gpu_name = io::dstack_gpu_name(*c.gpu);
        if (request.dataset_gb)
            spec.disk_gb =
                std::max(io::kDstackDefaultDiskGb, static_cast<int>(std::ceil(*request.dataset_gb)));
    }
    spec.accelerator = gpu_name;
    const Parallelism& p = c.estimate.config.layout;
    spec.envs = {{"TP", std::to_string(p.tensor)},
                 {"PP", std::to_string(p.pipeline)},
                 {"DP", std::to_string(p.data)},
                 {"MICRO_BATCH", std::to_string(p.micro_batch)},
                 {"GRAD_ACCUMULATION", std::to_string(p.grad_accumulation)}};
    if (p.expert > 1) spec.envs.emplace_back("EP", std::to_string(p.expert));
    if (request.service && c.service) spec.replicas = c.service->groups;
    spec.header = launch_header(launcher, pick, c, request, launch_command_line(), gpu_name);
    if (!sky && spec.region.empty() && !o.region.empty())
        spec.header.insert(spec.header.end() - 1,
                           "Not pinned: " + o.provider.str() + " is a marketplace; region " + o.region +
                               " and machine " + o.instance_type + " are listings dstack matches itself.");
    const std::string yaml = sky ? io::skypilot_task_yaml(spec) : io::dstack_config_yaml(spec);

    if (opt.output.empty()) {
        ctx.out << yaml;
        return 0;
    }
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!opt.force && (fs::exists(opt.output, ec) || fs::is_symlink(fs::symlink_status(opt.output, ec))))
        throw UsageError("-o " + opt.output + ": the file exists; nothing was written",
                         "pass --force to replace it, or name another file");
    if (const std::string why = io::write_file_atomically(opt.output, yaml); !why.empty())
        throw DataError("-o " + opt.output + ": cannot write the " + launcher + " file: " + why,
                        "check the folder exists and is writable");
    ctx.note("wrote " + opt.output + " (" + launcher + ", option #" + std::to_string(pick) + ")");
    return 0;
}

void check_launch_options(const LaunchOptions& opt) {
    if (!opt.emit.empty()) return;
    if (opt.pick) throw UsageError("--pick needs --emit", "e.g. --emit skypilot --pick 2");
    if (!opt.output.empty())
        throw UsageError("-o/--output needs --emit", "e.g. --emit skypilot -o task.yaml");
    if (opt.force)
        throw UsageError("--force needs --emit and -o", "e.g. --emit dstack -o .dstack.yml --force");
}

}  // namespace gpuadvise::cli
