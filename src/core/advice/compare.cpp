#include "gpuadvise/advice/compare.hpp"

#include <algorithm>

#include "gpuadvise/advice/evaluate.hpp"
#include "gpuadvise/market/offer_query.hpp"

namespace gpuadvise {
namespace {

std::optional<CheapestPrice> cheapest(const Catalog& catalog, const Gpu& gpu, Plan plan,
                                      const std::string& currency, bool include_examples) {
    std::optional<CheapestPrice> best;
    const ProviderIndex providers(catalog);
    for (const auto& o : catalog.offers) {
        if (o.gpu != gpu.id) continue;
        const Provider* p = providers.find(o.provider);
        if (p && p->kind == ProviderKind::placeholder) continue;
        if (!include_examples && !is_rentable(p)) continue;
        // reserved: the cheapest commitment of any term, per GPU-hour at full use.
        auto price = hourly_price(catalog, o, plan, currency);
        if (!price || *price <= 0) continue;
        const double converted = *price / o.gpu_count;
        // A price of the GPU alone (the host VM extra) only when no whole offer has one, as recommend
        // ranks them after complete prices.
        const bool complete = o.price_complete;
        const bool best_complete = best && best->offer->price_complete;
        if (!best || (complete && !best_complete) ||
            (complete == best_complete &&
             (converted < best->price || (converted == best->price && o.provider < best->provider)))) {
            const Commitment* k = plan == Plan::reserved ? cheapest_commitment(o) : nullptr;
            best = CheapestPrice{o.provider,
                                 converted,
                                 currency,
                                 plan == Plan::reserved ? "per_gpu_hour_at_full_use" : "per_gpu_hour",
                                 &o,
                                 plan == Plan::reserved ? (k ? k->term_months : 1) : 0,
                                 is_rentable(p)};
        }
    }
    return best;
}

std::optional<double> ratio(const std::optional<double>& a, const std::optional<double>& b) {
    if (!a || !b || *b == 0) return std::nullopt;
    return *a / *b;
}

JobOnGpu job_on(const Catalog& catalog, const Workload& w, const GpuComparison& row) {
    constexpr int kMaxGpus = 8;  // one instance
    Estimate e = estimate_job(catalog, w, *row.gpu, 1);
    if (!e.fits && e.precision_supported && e.min_gpu_count && *e.min_gpu_count <= kMaxGpus)
        e = estimate_job(catalog, w, *row.gpu, *e.min_gpu_count);
    JobOnGpu j;
    j.gpu_count = e.gpu_count;
    j.fits = e.fits;
    j.precision_supported = e.precision_supported;
    if (e.fits && e.precision_supported && e.hours_per_run > 0) {
        j.hours_per_run = e.hours_per_run;
        if (row.on_demand)
            j.cost_per_run = cost_of_run(catalog, *row.on_demand->offer, e.hours_per_run, e.gpu_count,
                                         row.on_demand->price);
    }
    return j;
}

}  // namespace

Comparison compare_gpus(const Catalog& catalog, const std::vector<std::string>& names,
                        const std::string& currency, bool include_examples, const Workload* workload) {
    Comparison c;
    c.currency = currency;
    for (const auto& name : names) {
        GpuMatch m = resolve_gpu_name(catalog, name);
        RequestedName requested{name, {}, 0};
        for (const Gpu* g : m.gpus) {
            auto seen = std::find_if(c.gpus.begin(), c.gpus.end(),
                                     [&](const GpuComparison& x) { return x.gpu == g; });
            if (seen != c.gpus.end()) {
                requested.variants.push_back(static_cast<std::size_t>(seen - c.gpus.begin()));
                continue;
            }
            requested.variants.push_back(c.gpus.size());
            GpuComparison row;
            row.gpu = g;
            row.query = name;
            row.on_demand = cheapest(catalog, *g, Plan::on_demand, currency, include_examples);
            row.reserved = cheapest(catalog, *g, Plan::reserved, currency, include_examples);
            row.spot = cheapest(catalog, *g, Plan::spot, currency, include_examples);
            if (row.on_demand)
                if (auto usd = catalog.convert(row.on_demand->price, currency, "USD"))
                    if (auto tf = reference_tflops(*g); tf && *tf > 0) row.usd_per_tflops_hour = *usd / *tf;
            if (workload) row.job = job_on(catalog, *workload, row);
            c.gpus.push_back(row);
        }
        // The variant most likely rented: the cheapest rentable on-demand price, else any price.
        std::optional<std::size_t> best;
        auto rank = [&](std::size_t i) {
            const GpuComparison& r = c.gpus[i];
            const bool rentable = r.on_demand && r.on_demand->rentable;
            const bool priced = r.on_demand || r.reserved || r.spot;
            return std::make_pair(rentable ? 0 : priced ? 1 : 2, r.on_demand ? r.on_demand->price : 0.0);
        };
        for (std::size_t i : requested.variants)
            if (!best || rank(i) < rank(*best)) best = i;
        if (best) requested.shown = *best;
        c.requested.push_back(std::move(requested));
        c.matches.push_back(std::move(m));
    }
    if (!c.gpus.empty()) {
        const GpuComparison& first = c.gpus.front();
        auto price = [](const GpuComparison& r) -> std::optional<double> {
            return r.on_demand ? std::optional<double>(r.on_demand->price) : std::nullopt;
        };
        for (auto& r : c.gpus) {
            r.relative_fp16 = ratio(reference_tflops(*r.gpu), reference_tflops(*first.gpu));
            r.relative_bandwidth =
                ratio(r.gpu->memory_bandwidth_gb_per_s, first.gpu->memory_bandwidth_gb_per_s);
            r.relative_on_demand_price = ratio(price(r), price(first));
        }
        const GpuComparison& base = c.gpus[c.requested.front().shown];
        if (base.job && base.job->hours_per_run > 0)
            for (auto& r : c.gpus)
                if (r.job && r.job->hours_per_run > 0)
                    r.job->relative_speed = base.job->hours_per_run / r.job->hours_per_run;
    }
    return c;
}

}  // namespace gpuadvise
