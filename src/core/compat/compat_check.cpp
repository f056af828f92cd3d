// check_compat: one environment (GPU, driver, CUDA toolkit, PyTorch, precision) against the
// compatibility tables, each check with its reason and the fix (gpu-facts §5, rules 1–4).
#include <algorithm>
#include <set>

#include "compat_internal.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/catalog/catalog.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"

namespace gpuadvise {
namespace {

using namespace compat_detail;

struct Parsed {
    std::vector<const Gpu*> gpus;
    std::optional<int> cc;  // numeric compute capability, when known
    bool amd = false;
    std::string gpu_label;  // "A100", "T4"
    std::optional<Version> driver;
    std::optional<Version> cuda;
    std::optional<PytorchVersion> pytorch;
    const PytorchRelease* release = nullptr;
    std::optional<Version> pytorch_cuda;
    std::optional<Precision> precision;
};

std::string covered_series(const CompatTables& t) {
    if (t.releases.empty()) return "none";
    return t.releases.front().series + "–" + t.releases.back().series;
}

Parsed parse_query(const Catalog& catalog, const EnvQuery& q) {
    const CompatTables& t = catalog.compat;
    Parsed p;
    if (q.gpu) {
        p.gpus = resolve_gpu_name(catalog, *q.gpu).gpus;
        p.gpu_label = *q.gpu;
        std::set<std::string> ccs;
        for (const Gpu* g : p.gpus) ccs.insert(g->compute_capability);
        if (ccs.size() > 1)
            throw UsageError("GPU '" + *q.gpu + "' covers variants with different compute capabilities (" +
                                 join({ccs.begin(), ccs.end()}, ", ") + ")",
                             "name one variant; 'gpuadvise gpus --gpu " + *q.gpu + "' lists them");
        if (!p.gpus.empty()) {
            p.cc = parse_compute_capability(p.gpus.front()->compute_capability);
            p.amd = !p.cc && p.gpus.front()->is_amd();
        }
    }
    if (q.compute_capability) {
        auto cc = parse_compute_capability(*q.compute_capability);
        if (!cc)
            throw UsageError("compute capability '" + *q.compute_capability + "' is not of the form 8.0");
        p.cc = cc;
        p.amd = false;
        if (p.gpu_label.empty()) p.gpu_label = "the GPU";
    }
    if (q.driver) {
        p.driver = parse_version(*q.driver);
        if (!p.driver || p.driver->parts.front() < 100)
            throw UsageError("driver version '" + *q.driver + "' is not an NVIDIA driver version",
                             "e.g. --driver 535.104.05");
    }
    if (q.cuda) {
        p.cuda = parse_version(*q.cuda);
        if (!p.cuda || p.cuda->parts.size() < 2 || p.cuda->parts.front() < 7 || p.cuda->parts.front() > 99)
            throw UsageError("CUDA version '" + *q.cuda + "' is not of the form 12.2", "e.g. --cuda 12.2");
    }
    if (q.pytorch_cuda) {
        p.pytorch_cuda = parse_version(*q.pytorch_cuda);
        if (!p.pytorch_cuda || p.pytorch_cuda->parts.size() < 2)
            throw UsageError("torch.version.cuda '" + *q.pytorch_cuda + "' is not of the form 12.1");
    }
    if (q.pytorch) {
        p.pytorch = parse_pytorch_version(*q.pytorch);
        if (!p.pytorch)
            throw UsageError(
                "PyTorch version '" + *q.pytorch + "' is not of the form 2.1, 2.1.0 or 2.1.0+cu118",
                "e.g. --pytorch 2.1 or --pytorch 1.12.1+cu102");
        p.release = t.find_release(*p.pytorch);
        if (!p.release)
            throw UsageError("PyTorch " + p.pytorch->series() +
                                 " is not in the compatibility tables (they cover " + covered_series(t) + ")",
                             "docs/compatibility.md lists the releases and their wheels");
    }
    if (q.precision) {
        p.precision = parse_precision(*q.precision);
        if (!p.precision)
            throw UsageError("unknown precision '" + *q.precision + "'",
                             "expected fp32, tf32, fp16, bf16 or fp8");
    }
    return p;
}

std::string who(const Parsed& p) { return p.gpu_label + " (" + sm(*p.cc) + ")"; }

std::string pip_command(const std::string& series, const std::string& wheel) {
    return "pip install 'torch==" + series + ".*' --index-url https://download.pytorch.org/whl/" + wheel;
}

// The wheel to judge: given with the version, from torch.version.cuda, or matching --cuda.
std::string pick_wheel(const Parsed& p, std::vector<CompatCheck>& checks) {
    const auto& published = p.release->wheels;
    if (auto w = p.pytorch->wheel()) return *w;
    if (p.pytorch_cuda) return wheel_for_cuda(*p.pytorch_cuda);
    if (p.cuda) {
        std::string w = wheel_for_cuda(*p.cuda);
        if (std::find(published.begin(), published.end(), w) != published.end()) return w;
        checks.push_back({"cuda_toolkit", true,
                          "PyTorch " + p.pytorch->series() + " has no " + w + " wheel; its wheels (" +
                              join(published, ", ") + ") bring their own CUDA runtime, so the CUDA " +
                              p.cuda->text + " toolkit need not match"});
    }
    return "";
}

void check_precision(const CompatTables& t, const Parsed& p, CompatReport& r) {
    if (!p.precision || !p.cc) return;
    const PrecisionRule* rule = t.rule_for(*p.precision);
    if (!rule) return;
    const auto need = parse_compute_capability(rule->min_compute_capability);
    if (!need) return;
    const std::string name(to_string(*p.precision));
    if (*p.cc >= *need) {
        r.checks.push_back({"precision", true,
                            name + " needs compute capability ≥ " + rule->min_compute_capability + "; " +
                                p.gpu_label + " has " + format_compute_capability(*p.cc)});
        return;
    }
    // Follow the fallbacks down to one the GPU has (fp8 -> bf16 -> fp16).
    Precision fallback = rule->fallback;
    for (int guard = 0; guard < 5; ++guard) {
        const PrecisionRule* next = t.rule_for(fallback);
        auto next_need = next ? parse_compute_capability(next->min_compute_capability) : std::nullopt;
        if (!next_need || *p.cc >= *next_need) break;
        fallback = next->fallback;
    }
    r.checks.push_back({"precision", false,
                        name + " needs compute capability ≥ " + rule->min_compute_capability + "; " +
                            p.gpu_label + " has " + format_compute_capability(*p.cc)});
    std::string how =
        fallback == Precision::fp16 ? " (torch.autocast with dtype=torch.float16 and a GradScaler)" : "";
    r.suggestions.push_back("use " + std::string(to_string(fallback)) + " instead of " + name + how);
}

// Too old or too new: where the GPU's architecture is covered instead.
void suggest_other_release(const CompatTables& t, const Parsed& p, CompatReport& r) {
    auto first = first_release_covering(t, *p.cc, false);
    auto last = first_release_covering(t, *p.cc, true);
    if (!first) {
        r.suggestions.push_back("no PyTorch release in the tables has a wheel for " + sm(*p.cc));
        return;
    }
    auto series = [](const std::string& s) { return parse_pytorch_version(s); };
    auto wanted = std::pair{p.pytorch->major, p.pytorch->minor};
    auto f = series(first->series), l = series(last->series);
    if (f && wanted < std::pair{f->major, f->minor})
        r.suggestions.push_back(p.gpu_label + " is too new for PyTorch " + p.pytorch->series() +
                                ": use PyTorch ≥ " + first->series + " (" + join(first->wheels, ", ") + ")");
    else if (l && wanted > std::pair{l->major, l->minor})
        r.suggestions.push_back(p.gpu_label + " is too old for PyTorch " + p.pytorch->series() +
                                ": the last release with a wheel for " + sm(*p.cc) + " is " + last->series +
                                " (" + join(last->wheels, ", ") + ")");
}

void check_pytorch(const CompatTables& t, const Parsed& p, const EnvQuery& q, CompatReport& r) {
    const std::string series = p.pytorch->series();
    if (p.pytorch->local == "cpu") {
        r.checks.push_back({"wheel_variant", false,
                            "PyTorch " + p.pytorch->text + " is a CPU-only build; it cannot use the GPU"});
        r.suggestions.push_back("install a CUDA wheel of PyTorch " + series + " (" +
                                join(p.release->wheels, ", ") + ")");
        return;
    }
    if (p.amd) {
        bool rocm = p.pytorch->local.rfind("rocm", 0) == 0;
        bool cuda_build = p.pytorch->wheel().has_value() || p.pytorch_cuda.has_value();
        // A CUDA build is a definite no; a ROCm (or unspecified) build is beyond the CUDA tables:
        // "unknown", never "Compatible" (#13).
        r.checks.push_back(
            {"gpu_architecture", false,
             cuda_build ? p.gpu_label + " is an AMD GPU; CUDA builds of PyTorch do not run on it"
                        : p.gpu_label + " is an AMD GPU and needs a ROCm build of PyTorch" +
                              (rocm ? std::string("; the tables do not cover ROCm releases (not checked)")
                                    : std::string(" (the CUDA tables do not cover ROCm; not checked)")),
             cuda_build});
        if (cuda_build)
            r.suggestions.push_back("install a ROCm build of PyTorch " + series +
                                    " (https://pytorch.org/get-started/locally/)");
        return;
    }
    std::string wheel = pick_wheel(p, r.checks);
    const auto& published = p.release->wheels;
    const bool is_published = std::find(published.begin(), published.end(), wheel) != published.end();
    if (!wheel.empty()) {
        r.wheel = wheel;
        if (is_published) {
            r.checks.push_back(
                {"wheel_variant", true, "PyTorch " + series + " publishes " + wheel + " wheels"});
        } else if (q.arch_list.empty()) {
            r.checks.push_back({"wheel_variant", false,
                                "PyTorch " + series + " publishes no " + wheel + " wheel (only " +
                                    join(published, ", ") + ")"});
            r.suggestions.push_back("install one of the published wheels, e.g. " +
                                    pip_command(series, published.back()));
            return;
        } else {
            r.checks.push_back(
                {"wheel_variant", true,
                 wheel + " is not a published PyTorch " + series +
                     " wheel (a source or container build); its own architecture list is used"});
        }
    }

    // Rule 2: the wheel must contain the GPU's architecture.
    std::vector<std::string> candidates = wheel.empty() ? published : std::vector<std::string>{wheel};
    auto evals = evaluate_wheels(t, *p.pytorch, candidates, p.cc, p.driver);
    if (p.cc && !q.arch_list.empty()) {
        // An installed PyTorch reports its own list; trust it over the table.
        for (auto& e : evals) e.covers = archs_cover(q.arch_list, *p.cc);
    }
    if (p.cc) {
        std::vector<std::string> covering;
        for (const auto& e : evals)
            if (e.covers) covering.push_back(e.wheel);
        std::string built_for = !q.arch_list.empty()
                                    ? "the installed PyTorch is built for " + arch_range(q.arch_list)
                                : !wheel.empty() && evals.front().archs
                                    ? wheel + " wheels of PyTorch " + series + " are built for " +
                                          arch_range(evals.front().archs->archs)
                                    : "";
        if (!wheel.empty()) {
            bool ok = !covering.empty();
            if (built_for.empty()) {
                r.checks.push_back({"gpu_architecture", false,
                                    "no architecture list for " + wheel + " (not checked)", false});
            } else {
                r.checks.push_back(
                    {"gpu_architecture", ok,
                     built_for + "; " + who(p) +
                         (ok ? " is covered"
                             : " is not: CUDA kernels fail with 'no kernel image is available'")});
            }
            if (!ok && !built_for.empty()) {
                auto others = evaluate_wheels(t, *p.pytorch, published, p.cc, p.driver);
                std::vector<std::string> fix;
                for (const auto& e : others)
                    if (e.covers) fix.push_back(e.wheel);
                if (!fix.empty())
                    r.suggestions.push_back("install a " + join(fix, " or ") + " wheel of PyTorch " + series +
                                            " instead of " + wheel + ": " + pip_command(series, fix.back()));
                else
                    suggest_other_release(t, p, r);
            }
        } else {
            bool ok = !covering.empty();
            std::string ranges;
            for (const auto& e : evals)
                ranges += (ranges.empty() ? "" : ", ") + e.wheel + " " +
                          (e.archs ? arch_range(e.archs->archs) : "unknown");
            r.checks.push_back(
                {"gpu_architecture", ok,
                 ok ? "PyTorch " + series + " has wheels for " + who(p) + ": " + join(covering, ", ")
                    : "no PyTorch " + series + " wheel is built for " + who(p) + " (" + ranges + ")"});
            if (!ok) suggest_other_release(t, p, r);
        }
    }

    // Rule 1: the wheel's CUDA must be one the driver runs (minor-version compatibility floor).
    if (p.driver) {
        std::vector<WheelEval> usable;
        for (const auto& e : evals)
            if (e.covers) usable.push_back(e);
        if (usable.empty()) return;  // the architecture check already failed
        std::vector<std::string> runs;
        for (const auto& e : usable)
            if (e.driver_ok) runs.push_back(e.wheel);
        if (!runs.empty()) {
            std::string msg = "driver " + p.driver->text + " runs " + join(runs, ", ");
            std::vector<WheelEval> run_evals;
            for (const auto& e : usable)
                if (e.driver_ok) run_evals.push_back(e);
            auto req = driver_requirement(run_evals);
            if (!req.empty()) msg += " (" + req + ")";
            r.checks.push_back({"driver", true, msg});
            if (wheel.empty()) r.wheel = runs.back();
        } else {
            r.checks.push_back({"driver", false,
                                "driver " + p.driver->text + " is too old for " +
                                    (wheel.empty() ? "every PyTorch " + series + " wheel" : wheel) + ": " +
                                    driver_requirement(usable)});
            Version lowest = *usable.front().min_driver;
            std::string lowest_wheel = usable.front().wheel;
            for (const auto& e : usable)
                if (e.min_driver && *e.min_driver < lowest) {
                    lowest = *e.min_driver;
                    lowest_wheel = e.wheel;
                }
            r.suggestions.push_back("upgrade the NVIDIA driver to ≥ " + lowest.text + " (the minimum for " +
                                    lowest_wheel + ")");
            r.driver_upgrades.push_back(lowest.text);
        }
    } else if (p.cc || !wheel.empty()) {
        std::vector<WheelEval> usable;
        for (const auto& e : evals)
            if (e.covers) usable.push_back(e);
        if (!usable.empty()) r.suggestions.push_back("host driver unknown: " + driver_requirement(usable));
    }
    if (wheel.empty() && r.wheel.empty() && p.cc) {
        std::vector<std::string> fits;
        for (const auto& e : evals)
            if (e.covers && e.driver_ok) fits.push_back(e.wheel);
        if (!fits.empty()) r.wheel = fits.back();
    }
    if (wheel.empty() && !r.wheel.empty() && r.compatible) r.install = pip_command(series, r.wheel);
}

// Driver without PyTorch: which CUDA wheel families it runs.
void check_driver_alone(const CompatTables& t, const Parsed& p, CompatReport& r) {
    std::vector<std::string> runs, not_runs;
    std::optional<Version> next_floor;
    std::string next_family;
    for (const auto& f : t.minor_compat) {
        auto floor = parse_version(f.min_driver);
        if (!floor) continue;
        std::string fam = "CUDA " + std::to_string(f.cuda_major) + ".x";
        if (*p.driver >= *floor) {
            runs.push_back(fam);
        } else {
            not_runs.push_back(fam + " (≥ " + floor->text + ")");
            if (!next_floor || *floor < *next_floor) {
                next_floor = floor;
                next_family = fam;
            }
        }
    }
    bool ok = !runs.empty();
    std::string msg = "driver " + p.driver->text +
                      (ok ? " runs " + join(runs, ", ") + " wheels" : " runs no CUDA 11 or later wheel");
    if (!not_runs.empty()) msg += "; not " + join(not_runs, ", ");
    r.checks.push_back({"driver", ok, msg});
    if (next_floor) {
        r.suggestions.push_back("upgrade the NVIDIA driver to ≥ " + next_floor->text + " to run " +
                                next_family + " wheels");
        r.driver_upgrades.push_back(next_floor->text);
    }
}

// The GPU's own driver floor, beside the wheel's (#13): an H100 needs a driver that knows Hopper.
void check_gpu_driver(const CompatTables& t, const Parsed& p, CompatReport& r) {
    if (!p.cc || !p.driver || t.gpu_drivers.empty()) return;
    if (t.gpu_older_than_driver_rows(*p.cc)) return;  // every driver the wheels need supports it
    const GpuDriverFloor* floor = t.gpu_driver_for(*p.cc);
    auto min = floor ? parse_version(floor->min_driver) : std::nullopt;
    if (!min) {
        r.checks.push_back({"gpu_driver", false,
                            "the tables have no minimum NVIDIA driver for " + who(p) + " (not checked)",
                            false});
        return;
    }
    const bool ok = *p.driver >= *min;
    r.checks.push_back({"gpu_driver", ok,
                        who(p) + " needs an NVIDIA driver ≥ " + min->text + " (the first with " +
                            floor->gpus + " support); driver is " + p.driver->text});
    if (ok) return;
    const bool said =
        std::find(r.driver_upgrades.begin(), r.driver_upgrades.end(), min->text) != r.driver_upgrades.end();
    if (!said) {
        r.suggestions.push_back("upgrade the NVIDIA driver to ≥ " + min->text + " (the minimum for " +
                                who(p) + ")");
        r.driver_upgrades.push_back(min->text);
    }
}

void check_toolkit(const CompatTables& t, const Parsed& p, CompatReport& r) {
    if (!p.cuda || !p.driver) return;
    auto floor = t.min_driver_for_cuda(*p.cuda);
    auto own = t.toolkit_driver_for(*p.cuda);
    if (!floor) return;
    bool ok = *p.driver >= *floor;
    std::string msg = "the CUDA " + p.cuda->text + " toolkit needs driver ≥ " + floor->text;
    if (own && *own != *floor) msg += " (≥ " + own->text + " for PTX JIT and its newest features)";
    msg += "; driver is " + p.driver->text;
    r.checks.push_back({"cuda_toolkit", ok, msg});
    if (!ok)
        r.suggestions.push_back("upgrade the NVIDIA driver to ≥ " + floor->text + " for the CUDA " +
                                p.cuda->text + " toolkit");
}

}  // namespace

CompatReport check_compat(const Catalog& catalog, const EnvQuery& q) {
    const CompatTables& t = catalog.compat;
    if (t.empty())
        throw DataError("the catalog has no compatibility tables",
                        "load data/compat.yaml (built in unless --no-default-catalog)");
    Parsed p = parse_query(catalog, q);
    CompatReport r;
    r.gpu = q.gpu.value_or("");
    for (const Gpu* g : p.gpus) r.gpu_ids.push_back(g->id);
    if (p.cc)
        r.compute_capability = format_compute_capability(*p.cc);
    else if (!p.gpus.empty())
        r.compute_capability = p.gpus.front()->compute_capability;
    r.driver = p.driver ? p.driver->text : "";
    r.cuda = p.cuda ? p.cuda->text : "";
    r.pytorch = p.pytorch ? p.pytorch->text : "";
    r.precision = p.precision ? std::string(to_string(*p.precision)) : "";

    if (p.pytorch) {
        check_pytorch(t, p, q, r);
    } else {
        if (p.cc) {
            auto first = first_release_covering(t, *p.cc, false);
            auto last = first_release_covering(t, *p.cc, true);
            r.checks.push_back({"gpu_architecture", first.has_value(),
                                first ? "PyTorch " + first->series + "–" + last->series +
                                            " publish wheels for " + who(p) + "; newest: " + last->series +
                                            " (" + join(last->wheels, ", ") + ")"
                                      : "no PyTorch release in the tables has a wheel for " + who(p)});
        } else if (p.amd) {
            r.checks.push_back({"gpu_architecture", false,
                                p.gpu_label + " is an AMD GPU and needs a ROCm build of PyTorch; the CUDA "
                                              "tables do not cover ROCm (not checked)",
                                false});
        }
        if (p.driver) check_driver_alone(t, p, r);
    }
    if (!p.amd) check_gpu_driver(t, p, r);
    check_toolkit(t, p, r);
    check_precision(t, p, r);
    if (r.checks.empty())
        r.checks.push_back(
            {"environment", false,
             "nothing to check: no GPU, driver or PyTorch given or found; use --gpu, --driver, --pytorch",
             false});  // not checked: the verdict is unknown, not "Not compatible"
    r.compatible = std::all_of(r.checks.begin(), r.checks.end(), [](const CompatCheck& c) { return c.ok; });
    const bool failed = std::any_of(r.checks.begin(), r.checks.end(),
                                    [](const CompatCheck& c) { return c.checked && !c.ok; });
    r.unknown = !r.compatible && !failed;
    // "install: ..." only makes sense when everything else fits (later checks add suggestions only
    // when they fail, so it stays the last one).
    if (!r.compatible) r.install.clear();
    if (!r.install.empty()) r.suggestions.push_back("install: " + r.install);
    return r;
}

}  // namespace gpuadvise
