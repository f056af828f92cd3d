#include "gpuadvise/market/offer_query.hpp"

#include <algorithm>
#include <cstddef>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"

namespace gpuadvise {
namespace {

bool contains_ci(std::string_view hay, std::string_view needle) {
    return to_lower(hay).find(to_lower(needle)) != std::string::npos;
}

void check_providers(const Catalog& catalog, const std::vector<std::string>& providers) {
    for (const auto& p : providers) {
        if (catalog.find_provider(p)) continue;
        std::vector<std::string> ids;
        for (const auto& x : catalog.providers) ids.push_back(x.id);
        std::string hint = "known providers: " + join(ids, ", ");
        if (auto best = closest_match(p, ids)) hint = "did you mean '" + *best + "'? (" + hint + ")";
        throw UsageError("unknown provider '" + p + "'", hint);
    }
}

}  // namespace

std::optional<double> reference_tflops(const Gpu& gpu) {
    if (gpu.tflops.fp16) return gpu.tflops.fp16;
    return gpu.tflops.fp32;
}

std::optional<double> hourly_price(const Catalog& catalog, const Offer& offer, Plan plan,
                                   const std::string& currency, int term_months) {
    std::optional<double> price;
    if (plan == Plan::reserved) {
        if (const Commitment* c = cheapest_commitment(offer, term_months))
            price = c->price_per_month;
        else if (offer.commitments.empty() && (term_months == 0 || term_months == 1))
            price = offer.reserved_per_month;
    } else {
        price = offer.price(plan);
    }
    if (!price) return std::nullopt;
    double hourly = plan == Plan::reserved ? *price / catalog.policy.get("hours_per_month") : *price;
    return catalog.convert(hourly, offer.currency, currency);
}

OfferList query_offers(const Catalog& catalog, const OfferQuery& query) {
    OfferList list;
    list.currency = query.currency;
    list.gpus_covered = select_gpus(catalog, query.gpu);
    check_providers(catalog, query.providers);
    // The few GPUs asked for, by id (the same Gpu that catalog.find_gpu returns).
    auto wanted = [&](const std::string& id) -> const Gpu* {
        for (const Gpu* g : list.gpus_covered)
            if (g->id == id) return g;
        return nullptr;
    };

    auto primary = [&](const OfferRow& r) {
        switch (query.sort) {
            case OfferSort::price: return r.hourly_price.value_or(1e300);
            case OfferSort::price_per_gpu: return r.hourly_price_per_gpu.value_or(1e300);
            case OfferSort::usd_per_tflops: return r.usd_per_tflops_hour.value_or(1e300);
        }
        return 0.0;
    };
    // Lexicographic (complete price first, primary, provider, GPU, count, region, instance type),
    // compared in place: building tuples of string copies per comparison was most of the query's time
    // at 100k offers. A price known to be partial (the GPU alone, the host VM extra: Offer::price_complete)
    // is not comparable with a whole offer's, so it sorts after every complete one, as recommend ranks it.
    auto before = [&](const OfferRow& a, const OfferRow& b) {
        if (a.offer->price_complete != b.offer->price_complete) return a.offer->price_complete;
        const double pa = primary(a), pb = primary(b);
        if (pa < pb) return true;
        if (pb < pa) return false;
        const Offer& x = *a.offer;
        const Offer& y = *b.offer;
        if (int c = x.provider.compare(y.provider)) return c < 0;
        if (int c = x.gpu.compare(y.gpu)) return c < 0;
        if (x.gpu_count != y.gpu_count) return x.gpu_count < y.gpu_count;
        if (int c = x.region.compare(y.region)) return c < 0;
        return x.instance_type.compare(y.instance_type) < 0;
    };
    // A total order (ties: catalog order, as rows point into catalog.offers in order): the first
    // `limit` rows under it are the ones a stable sort puts first.
    auto ordered = [&](const OfferRow& a, const OfferRow& b) {
        if (before(a, b)) return true;
        if (before(b, a)) return false;
        return a.offer < b.offer;
    };
    // With a limit, the rows kept while scanning are cut back to the first `limit` whenever they
    // reach a batch: a 1M-offer table's 250k matching rows were a 35 MB vector, grown by doubling.
    const std::size_t batch = query.limit && *query.limit < (std::size_t{1} << 40)
                                  ? std::max<std::size_t>(4096, 2 * *query.limit)
                                  : static_cast<std::size_t>(-1);
    auto keep_first = [&](std::size_t limit) {
        const auto n = static_cast<std::ptrdiff_t>(limit);
        std::partial_sort(list.rows.begin(), list.rows.begin() + n, list.rows.end(), ordered);
        list.rows.resize(limit);
    };
    std::size_t matched = 0;
    std::string_view last_provider;  // offers come in runs of one provider: look it up once per run
    bool rentable = true;
    const ProviderIndex providers(catalog);
    for (const auto& o : catalog.offers) {
        const Gpu* gpu = wanted(o.gpu);
        if (!gpu) continue;
        if (last_provider.data() == nullptr || o.provider != last_provider) {
            rentable = is_rentable(providers.find(o.provider));
            last_provider = o.provider;
        }
        // Not rentable as listed: only when asked for, by the flag or by naming the provider.
        if (!rentable && !query.include_examples && query.providers.empty()) continue;
        if (query.gpu.count && o.gpu_count != *query.gpu.count) continue;
        if (!query.providers.empty() &&
            std::none_of(query.providers.begin(), query.providers.end(),
                         [&](const std::string& p) { return iequals(p, o.provider); }))
            continue;
        if (!query.regions.empty() &&
            std::none_of(query.regions.begin(), query.regions.end(),
                         [&](const std::string& r) { return contains_ci(o.region, r); }))
            continue;
        OfferRow row;
        row.offer = &o;
        row.gpu = gpu;
        row.rentable = rentable;
        auto convert = [&](const std::optional<double>& v) -> std::optional<double> {
            return v ? catalog.convert(*v, o.currency, query.currency) : std::nullopt;
        };
        row.on_demand_per_hour = convert(o.on_demand_per_hour);
        const int term = query.plan == Plan::reserved ? query.term_months : 0;
        row.commitment = cheapest_commitment(o, term);
        if (row.commitment) {
            row.reserved_per_month = convert(row.commitment->price_per_month);
            row.term_months = row.commitment->term_months;
        } else if (o.commitments.empty() && o.reserved_per_month && term <= 1) {
            row.reserved_per_month = convert(o.reserved_per_month);
            row.term_months = 1;
        }
        row.spot_per_hour = convert(o.spot_per_hour);
        if (query.plan) {
            row.plan = *query.plan;
        } else {
            row.plan = o.on_demand_per_hour     ? Plan::on_demand
                       : row.reserved_per_month ? Plan::reserved
                                                : Plan::spot;
        }
        row.hourly_price = hourly_price(catalog, o, row.plan, query.currency, term);
        if (!row.hourly_price) continue;  // the requested plan does not exist for this offer
        if (query.max_price && *row.hourly_price > *query.max_price) continue;
        row.hourly_price_per_gpu = *row.hourly_price / o.gpu_count;
        auto usd = hourly_price(catalog, o, row.plan, "USD", term);
        if (row.gpu && usd)
            if (auto tf = reference_tflops(*row.gpu); tf && *tf > 0)
                row.usd_per_tflops_hour = *usd / o.gpu_count / *tf;
        list.rows.push_back(row);
        ++matched;
        if (list.rows.size() >= batch) keep_first(*query.limit);
    }

    list.matched = matched;
    if (query.limit && list.rows.size() > *query.limit)
        keep_first(*query.limit);  // without sorting the rest
    else
        std::stable_sort(list.rows.begin(), list.rows.end(), before);
    return list;
}

}  // namespace gpuadvise
