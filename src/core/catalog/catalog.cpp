#include "gpuadvise/catalog/catalog.hpp"

#include "gpuadvise/base/text.hpp"

namespace gpuadvise {

const Gpu* Catalog::find_gpu(std::string_view id) const {
    for (const auto& g : gpus)
        if (g.id == id) return &g;
    return nullptr;
}

std::unordered_map<std::string_view, const Gpu*, TextHash> gpus_by_id(const Catalog& catalog) {
    std::unordered_map<std::string_view, const Gpu*, TextHash> index;
    for (const auto& g : catalog.gpus) index.emplace(g.id, &g);
    return index;
}

ProviderIndex::ProviderIndex(const Catalog& catalog) : catalog_(&catalog) {
    exact_.reserve(catalog.providers.size());
    for (const auto& p : catalog.providers) exact_.emplace(p.id, &p);  // the first of a repeated id
}

const Provider* ProviderIndex::find(std::string_view id) const {
    if (const auto it = exact_.find(id); it != exact_.end()) return it->second;
    return catalog_->find_provider(id);
}

const Provider* Catalog::find_provider(std::string_view id) const {
    for (const auto& p : providers)
        if (iequals(p.id, id)) return &p;
    return nullptr;
}

const ExchangeRate* Catalog::rate_for(std::string_view currency) const {
    for (const auto& r : rates)
        if (iequals(r.currency, currency)) return &r;
    return nullptr;
}

std::optional<double> Catalog::convert_other(double amount, std::string_view from,
                                             std::string_view to) const {
    if (iequals(from, to)) return amount;
    double usd = amount;
    if (!iequals(from, "USD")) {
        const ExchangeRate* r = rate_for(from);
        if (!r) return std::nullopt;
        usd = amount * r->usd_per_unit;
    }
    if (iequals(to, "USD")) return usd;
    const ExchangeRate* r = rate_for(to);
    if (!r || r->usd_per_unit <= 0) return std::nullopt;
    return usd / r->usd_per_unit;
}

const ModelPreset* find_model(const Catalog& catalog, std::string_view name) {
    const std::string folded = fold_name(name);
    for (const auto& m : catalog.models)
        if (fold_name(m.id) == folded) return &m;
    for (const auto& m : catalog.models)
        for (const auto& a : m.aliases)
            if (fold_name(a) == folded) return &m;
    return nullptr;
}

}  // namespace gpuadvise
