// Candidates: every offer that can run the job, sized, estimated and costed on each plan.
#include "recommend_candidates.hpp"
#include "host_rules.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory_resource>
#include <new>
#include <set>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "gpuadvise/base/text.hpp"
#include "gpuadvise/market/offer_query.hpp"
#include "gpuadvise/model/layout_planner.hpp"

namespace gpuadvise::detail {

const Estimate& EstimateCache::get(const Gpu& gpu, int gpu_count, const LinkSpec& link) {
    // One node has no network between nodes (the planner reads the inter-node link only across nodes): the
    // single-node offers of every provider share one estimate, planned without a network. The options
    // shown take their own network back (materialize).
    LinkSpec one_node;
    one_node.intra_node_busbw_gb_per_s = link.intra_node_busbw_gb_per_s;
    const LinkSpec& used = link.nodes <= 1 ? one_node : link;
    auto key = std::make_tuple(&gpu, gpu_count, used.nodes, used.inter_node_gbps);
    // Offers come in runs of one GPU and count: the last estimate asked is usually this one.
    if (last_ && last_->first == key) return last_->second;
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, estimate_job(speeds_, gpu, gpu_count, used)).first;
    last_ = &*it;
    return it->second;
}

// = get(gpu, 1, LinkSpec{}).min_gpu_count.value_or(0) without planning one GPU of every model:
// estimate_job leaves min_gpu_count unset when the precision is not supported, else sets it to
// speeds.minimum_gpus(gpu, precision).
int EstimateCache::min_gpus(const Gpu& gpu) {
    if (last_min_gpus_ && last_min_gpus_->first == &gpu) return last_min_gpus_->second;
    if (auto it = min_gpus_.find(&gpu); it != min_gpus_.end()) {
        last_min_gpus_ = &*it;
        return it->second;
    }
    const Precision p = resolve_precision(speeds_.workload(), gpu);
    const int n = precision_supported(gpu, p) ? speeds_.minimum_gpus(gpu, p).value_or(0) : 0;
    min_gpus_.emplace(&gpu, n);
    return n;
}

namespace {

bool passes_filters(const RecommendRequest& r, const Offer& o, const std::set<std::string>& gpu_ids) {
    if (!gpu_ids.empty() && !gpu_ids.count(o.gpu)) return false;
    if (r.gpu.count && o.gpu_count != *r.gpu.count) return false;
    if (!r.providers.empty() && std::none_of(r.providers.begin(), r.providers.end(),
                                             [&](const std::string& p) { return iequals(p, o.provider); }))
        return false;
    if (!r.regions.empty() && std::none_of(r.regions.begin(), r.regions.end(), [&](const std::string& x) {
            return to_lower(o.region).find(to_lower(x)) != std::string::npos;
        }))
        return false;
    return true;
}

// The network between the nodes of `instances` copies of an offer: the provider's RDMA, the instance
// family's (instance_networks), the provider's Ethernet, the user's (--network-gbps), or the policy's
// assumption. `with_source` writes where it comes from (for the options shown: building the text for
// every offer would cost more than the rest of this function).
// `rows`: the provider's instance_networks rows when the caller has them (provider_networks).
LinkSpec offer_network(const Catalog& catalog, const Provider* p, const Offer& o, int instances,
                       const RecommendRequest& r, bool with_source = false,
                       const std::vector<const InstanceNetwork*>* rows = nullptr) {
    LinkSpec link;
    link.nodes = instances;
    if (p && p->rdma && p->rdma_gbps) {
        link.inter_node_gbps = *p->rdma_gbps;
        link.network_kind = NetworkKind::rdma;
        if (with_source) link.network_source = "providers.yaml (" + p->id + ")";
    } else if (const InstanceNetwork* n = rows ? instance_network(*rows, o.instance_type)
                                               : instance_network(catalog, o.provider, o.instance_type)) {
        link.inter_node_gbps = n->gbps;
        link.network_kind = n->kind;
        if (with_source) link.network_source = n->source;
    } else if (p && p->network_gbps) {
        link.inter_node_gbps = *p->network_gbps;
        link.network_kind = NetworkKind::ethernet;
        if (with_source) link.network_source = "providers.yaml (" + p->id + ")";
    } else if (r.network_gbps) {
        // The user's network applies where the catalog does not contradict it.
        link.inter_node_gbps = *r.network_gbps;
        link.network_kind = r.rdma.value_or(false) ? NetworkKind::rdma : NetworkKind::ethernet;
        link.stated = true;
        if (with_source) link.network_source = "--network-gbps";
    } else {
        link.inter_node_gbps = catalog.policy.get("unknown_network_gbps");
        link.network_kind = r.rdma.value_or(false) ? NetworkKind::rdma : NetworkKind::ethernet;
        link.assumed = true;
        // The default is stated for the kind of provider it stands in for.
        if (with_source)
            link.network_source =
                "assumed: the catalog states no network for " + o.provider + " " + o.instance_type +
                (p && p->marketplace ? "; " + o.provider + " is a marketplace, its nodes separate hosts"
                                     : "; a cloud instance whose fabric the catalog does not list") +
                " (policy unknown_network_gbps, ordinary Ethernet" +
                (r.rdma.value_or(false) ? " with RDMA (--rdma yes)" : " without RDMA") +
                "; --network-gbps states it)";
    }
    return link;
}

// The plans that exist for an offer, in the order on-demand, reserved, spot (spot only when allowed).
// The slots are raw storage, a PlanCost made in one only when the plan exists: default-constructing three
// (some 600 bytes) at each of 2,500 offers was most of this function's own time.
struct Plans {
    static_assert(std::is_trivially_copyable_v<PlanCost> && std::is_trivially_destructible_v<PlanCost>);
    void push(const PlanCost& c) {
        ::new (storage_ + sizeof(PlanCost) * static_cast<std::size_t>(count_++)) PlanCost(c);
    }
    const PlanCost* begin() const {
        return count_ > 0 ? std::launder(reinterpret_cast<const PlanCost*>(storage_)) : nullptr;
    }
    const PlanCost* end() const { return begin() + count_; }
    int size() const { return count_; }

private:
    alignas(PlanCost) unsigned char storage_[3 * sizeof(PlanCost)];
    int count_ = 0;
};

// `instances`: of the offer, as the option rents them (Option::instances). `idle_breakdown`: as cost_plan's
// (false while offers are ranked; the options shown are priced again).
Plans price_plans(const Catalog& catalog, const Offer& o, int instances, double hours,
                  const RecommendRequest& r, const SpotAssumptions& spot, const BillingAssumptions& billing,
                  bool idle_breakdown = true) {
    Plans plans;
    for (Plan p : {Plan::on_demand, Plan::reserved, Plan::spot}) {
        if (p == Plan::spot && !r.interruptible) continue;
        if (r.plan && r.plan->plan != p) continue;
        if (p == Plan::reserved && o.commitments.empty() && !o.reserved_per_month)
            continue;  // most offers: no commitment
        if (p == Plan::reserved && r.one_off() && !r.plan)
            continue;  // a commitment for a one-off job: never the plan
        if (auto pc = cost_plan(catalog, o, instances, p, hours, r.runs_per_week, spot, r.currency,
                                r.plan ? r.plan->term_months : 0, billing, idle_breakdown))
            plans.push(*pc);
    }
    return plans;
}

// The hours a deadline is checked against: the high end of the time band (--deadline-confidence
// high, the default) or the point estimate.
double deadline_hours_of(double hours_per_run, double high_ratio, const RecommendRequest& r) {
    return r.deadline_confidence == DeadlineConfidence::high ? hours_per_run * high_ratio : hours_per_run;
}

const PlanCost* choose_plan(const Plans& plans, const RecommendRequest& r, double high_ratio) {
    const PlanCost* best = nullptr;
    const bool per_run = r.one_off();  // a one-off job: the cheapest run, not the cheapest month
    auto cost = [per_run](const PlanCost& p) { return per_run ? p.cost_per_run : p.cost_per_month; };
    for (const auto& p : plans) {
        if (r.deadline_hours && deadline_hours_of(p.hours_per_run, high_ratio, r) > *r.deadline_hours)
            continue;
        bool better = !best;
        if (best) {
            if (r.objective == Objective::time)
                better = std::make_tuple(p.hours_per_run, cost(p)) <
                         std::make_tuple(best->hours_per_run, cost(*best));
            else
                better = cost(p) < cost(*best) - 1e-9 ||
                         (std::fabs(cost(p) - cost(*best)) <= 1e-9 && p.plan != Plan::spot);
        }
        if (better) best = &p;
    }
    return best;
}

std::string deadline_miss_text(const Option& o, const RecommendRequest& r) {
    if (r.deadline_confidence == DeadlineConfidence::point)
        return format_duration(o.cost.hours_per_run) + " per run is over the deadline of " +
               format_duration(*r.deadline_hours);
    return format_duration(o.cost.hours_per_run * o.high_ratio) +
           " per run at the high end of the time band (estimate " + format_duration(o.cost.hours_per_run) +
           ") is over the deadline of " + format_duration(*r.deadline_hours) +
           " (--deadline-confidence point checks the estimate)";
}

std::string slow_network_warning(const Option& o, double min_network) {
    return std::to_string(o.instances) + " nodes over " +
           (o.inter_node_gbps > 0
                ? "a " + std::to_string(static_cast<int>(o.inter_node_gbps)) + " Gbps network"
                : "a network of unknown speed") +
           " without RDMA (the source asks for >= " + std::to_string(static_cast<int>(min_network)) +
           " Gbps RDMA)";
}

// What makes two options "the same option in another region" (with the same price).
struct GroupKey {
    std::string_view provider, gpu, instance_type;
    int gpu_count;
    Plan plan;
    bool operator==(const GroupKey&) const = default;
};

struct GroupKeyHash {
    std::size_t operator()(const GroupKey& k) const {
        std::size_t x = hash_text(k.provider);
        for (std::size_t v : {hash_text(k.gpu), hash_text(k.instance_type),
                              static_cast<std::size_t>(k.gpu_count), static_cast<std::size_t>(k.plan)})
            x = hash_combine(x, v);
        return x;
    }
};

// The GPUs --gpu names (by name or by memory); empty: every GPU.
std::set<std::string> filter_gpu_ids(const Catalog& catalog, const RecommendRequest& r) {
    std::set<std::string> gpu_ids;
    for (const Gpu* g : select_gpus(catalog, r.gpu))
        if (!r.gpu.names.empty() || r.gpu.memory_gb) gpu_ids.insert(g->id);
    return gpu_ids;
}

// One pass of build_candidates over the catalog's offers: each offer becomes an option or a rejection,
// step by step (the provider's prices, then memory, the host and the network, then the price).
class CandidateBuilder {
public:
    CandidateBuilder(const Catalog& catalog, const RecommendRequest& r, EstimateCache& estimates,
                     CandidatePool& pool)
        : catalog_(catalog),
          r_(r),
          estimates_(estimates),
          pool_(pool),
          gpu_ids_(filter_gpu_ids(catalog, r)),
          b_(build_context(catalog, r)),
          exclude_slow_(catalog.policy.get("multi_node_without_rdma_exclude") != 0),
          gpus_(gpus_by_id(catalog)),
          providers_(catalog),
          serving_(r.workload.serving.output_len.has_value()),
          carbon_(r.objective == Objective::carbon) {
        if (carbon_) grid_ = GridCarbonIndex(catalog);
        groups_.reserve(catalog.offers.size() / 2);  // a group per option at most; about one per two offers
    }

    void add(const Offer& o) {
        // Offers come in runs of one GPU: the last one found is usually this offer's.
        if (!last_gpu_ || o.gpu != last_gpu_->id) {
            const auto found = gpus_.find(o.gpu);
            if (found == gpus_.end()) return;
            last_gpu_ = found->second;
        }
        // Compared by storage first: a table's offers share one provider text.
        if (last_provider_id_.data() == nullptr ||
            (o.provider.data() != last_provider_id_.data() && o.provider != last_provider_id_)) {
            provider_ = providers_.find(o.provider);
            last_provider_id_ = o.provider;
            networks_ = provider_networks(catalog_, o.provider);
            billing_ =
                serving_ ? BillingAssumptions{} : billing_assumptions(catalog_, provider_, b_.idle_minutes);
            if (sized_) sized_->billings.push_back(billing_);
        }
        const Current at{o, *last_gpu_, passes_filters(r_, o, gpu_ids_)};
        SizedOption s;
        if (!admit(at, s.option) || !size(at, s.option, s.link)) return;
        if (sized_) {
            s.billing = &sized_->billings.back();
            sized_->options.push_back(s);
            if (!price_sized_) return;
        }
        finish(at, std::move(s.option), s.link, billing_);
    }

    // A sized option (what add found, or what size_candidates kept) through the steps that read the
    // runs a week or a service's traffic: its service replicas, the host, the plans and the budget.
    void finish(const SizedOption& s) {
        const Option& c = s.option;
        finish(Current{*c.offer, *c.gpu, c.in_filter}, c, s.link, *s.billing);
    }

    // size_candidates: add keeps the sized options here instead of finishing them.
    // `price`: build_candidates with its sized options kept (recommend's basis for --what-if).
    void keep_sized(SizedPool* into, bool price) {
        sized_ = into;
        price_sized_ = price;
    }

private:
    // The offer looked at, its GPU, and whether it passes the user's filters (only those are recorded
    // as rejected).
    struct Current {
        const Offer& o;
        const Gpu& gpu;
        bool in_filter;
    };

    void reject(const Current& at, Constraint constraint, std::string reason) {
        if (at.in_filter) pool_.rejected.push_back({&at.o, constraint, std::move(reason)});
    }

    // Per GPU, or per GPU and provider driver; kept with the pool (options point into it).
    const PytorchFit& pytorch_fit(const Gpu& gpu, const Offer& o) {
        std::string key =
            gpu.id + "|" + (provider_ && provider_->driver_version ? *provider_->driver_version : "");
        // Kept sized options outlive the pool: their fits are kept with them.
        auto& fits = sized_ ? sized_->unpriced.fits : pool_.fits;
        auto it = fits.find(key);
        if (it == fits.end()) it = fits.emplace(key, fit_offer(catalog_, o, *r_.pytorch)).first;
        return it->second;
    }

    // The provider's prices are real and rentable, PyTorch runs on the GPU, the GPU has the precision.
    bool admit(const Current& at, Option& c) {
        const Offer& o = at.o;
        const Gpu& gpu = at.gpu;
        if (provider_ && provider_->kind == ProviderKind::placeholder) {
            reject(at, Constraint::price,
                   "the catalog marks " + provider_->id + "'s prices as placeholders, not real quotes");
            return false;
        }
        if (!r_.include_examples && !is_rentable(provider_) &&
            std::none_of(r_.providers.begin(), r_.providers.end(),
                         [&](const std::string& p) { return iequals(p, o.provider); })) {
            reject(at, Constraint::price,
                   provider_->id +
                       "'s prices are an example from the guide, not a rentable "
                       "offer (--include-examples ranks them)");
            return false;
        }
        if (r_.pytorch) {
            const PytorchFit& fit = pytorch_fit(gpu, o);
            if (!fit.supported) {
                reject(at, Constraint::environment, "PyTorch " + r_.pytorch->text + ": " + fit.reason);
                return false;
            }
            if (!fit.requirement.empty()) c.requirement = &fit.requirement;
        }
        if (r_.workload.precision && !precision_supported(gpu, *r_.workload.precision)) {
            reject(at, Constraint::precision,
                   gpu.id + " has no " + std::string(to_string(*r_.workload.precision)) + " support");
            return false;
        }
        return true;
    }

    // One configuration: `instances` copies of the offer, each o.gpu_count GPUs, that holds the job in memory.
    bool size(const Current& at, Option& c, LinkSpec& link) {
        const Offer& o = at.o;
        const Gpu& gpu = at.gpu;
        const int min_gpus = estimates_.min_gpus(gpu);
        if (min_gpus == 0) {
            const Estimate& e1 = estimates_.get(gpu, 1, LinkSpec{});
            reject(at, Constraint::memory,
                   "does not fit on any number of " + gpu.id + " (" +
                       std::to_string(static_cast<int>(std::ceil(e1.memory_required_gb))) +
                       " GB per GPU needed, " + std::to_string(static_cast<int>(gpu.memory_gb)) +
                       " GB available)");
            return false;
        }
        // The layout planner lays the job out over the instances. --nodes fixes the instances.
        const int needed = std::max(min_gpus, r_.gpus_now.value_or(0));
        int instances = r_.nodes ? *r_.nodes : std::max(1, (needed + o.gpu_count - 1) / o.gpu_count);
        // One node has no network between nodes (the estimate does not read it): it is looked up once a
        // job spans nodes (here, or in fits_host for a service's copies).
        link = instances > 1 ? offer_network(catalog_, provider_, o, instances, r_, false, &networks_)
                             : LinkSpec{};
        link.nodes = instances;
        c.estimate = &estimates_.get(gpu, o.gpu_count, link);
        // Nodes of few GPUs may need more of them than the count on 8-GPU nodes (tensor parallelism
        // stays inside a node): add nodes until the job fits, up to twice the first guess.
        for (int limit = instances * 2 + 2;
             !r_.nodes && !c.estimate->fits && c.estimate->precision_supported && instances < limit;) {
            ++instances;
            if (instances == 2)
                link = offer_network(catalog_, provider_, o, instances, r_, false, &networks_);
            link.nodes = instances;
            c.estimate = &estimates_.get(gpu, o.gpu_count, link);
        }
        c.offer = &o;
        c.gpu = &gpu;
        c.provider = provider_;
        c.instances = instances;
        c.gpu_count = c.estimate->config.total_gpus();
        c.inter_node_gbps = link.inter_node_gbps;
        c.unknown_network = instances > 1 && link.assumed;
        c.stated_network = instances > 1 && link.stated;
        c.in_filter = at.in_filter;
        if (!c.estimate->fits) {
            reject(at, Constraint::memory,
                   "needs " + std::to_string(static_cast<int>(std::ceil(c.estimate->memory_required_gb))) +
                       " GB per GPU, " + gpu.id + " has " + std::to_string(static_cast<int>(gpu.memory_gb)) +
                       " GB");
            return false;
        }
        return true;
    }

    void finish(const Current& at, Option c, const LinkSpec& link, const BillingAssumptions& billing) {
        if ((b_.service && !size_service_on(at, c)) || !fits_host(at, c, link) || !price(at, c, billing))
            return;
        const GroupKey key{at.o.provider, at.o.gpu, at.o.instance_type, c.gpu_count, c.cost.plan};
        // An instance type's regions are neighbours in catalog order: the previous option's group is
        // usually this one's, found without hashing.
        if (!(last_group_ && last_group_->first == key))
            last_group_ = &*groups_.try_emplace(key, groups_.size()).first;
        c.group = last_group_->second;
        pool_.options.push_back(c);
    }

    // An online service: the replicas that meet the latency targets, enough copies of the
    // configuration to carry the peak.
    bool size_service_on(const Current& at, Option& c) {
        const ServingEstimate& s = *c.estimate->serving;
        if (!s.meets_targets) {
            const LatencyTargets& t = r_.workload.serving.targets;
            std::string text =
                "best TPOT " + format_fixed(1000 * s.best_tpot_s, 1) + " ms and TTFT " +
                format_fixed(1000 * s.best_ttft_s, 0) + " ms (one sequence per replica of " +
                count_noun(c.estimate->config.layout.tensor * c.estimate->config.layout.pipeline, "GPU") +
                ") against " + format_number(1000 * t.tpot_s) + " ms and " + format_number(1000 * t.ttft_s) +
                " ms asked";
            if (at.in_filter && (pool_.latency_miss_text.empty() || s.target_miss < pool_.latency_miss)) {
                pool_.latency_miss = s.target_miss;
                pool_.latency_miss_text = at.o.provider + " " + at.gpu.id + " x" +
                                          std::to_string(c.estimate->config.total_gpus()) + ": " + text;
            }
            reject(at, Constraint::latency, std::move(text));
            return false;
        }
        const ServiceSizing z = service_sizing(b_, r_, *c.estimate);
        c.instances *= z.groups;
        c.gpu_count *= z.groups;
        return true;
    }

    // The host's RAM, the scaling over several nodes and the network between them.
    bool fits_host(const Current& at, Option& c, const LinkSpec& one_or_more) {
        const Offer& o = at.o;
        const int instances = c.instances;
        // A service's copies of a one-node configuration: the network between them, as for a job over
        // as many nodes (size left it unread).
        LinkSpec between;
        if (instances > 1 && one_or_more.nodes <= 1) {
            between = offer_network(catalog_, c.provider, o, instances, r_);
            c.inter_node_gbps = between.inter_node_gbps;
        }
        const LinkSpec& link = instances > 1 && one_or_more.nodes <= 1 ? between : one_or_more;
        // A job laid out over several nodes where the provider runs none (a service's separate copies
        // of a one-node configuration need no network between them and stay).
        if (one_or_more.nodes > 1 && c.provider && !c.provider->single_node.empty()) {
            reject(at, Constraint::network,
                   c.provider->id + " runs no job over several nodes (" + c.provider->single_node +
                       "); a configuration on one of its nodes, or another provider");
            return false;
        }
        // Step 3 (#13): a host whose RAM cannot hold its share of the checkpoint cannot load the model.
        if (o.ram_gb) {
            auto [known, fresh] = host_ram_.try_emplace(c.estimate, 0.0);
            if (fresh) known->second = checkpoint_host_ram_gb(catalog_, r_.workload, *c.estimate);
            const double need = known->second;
            if (*o.ram_gb < need) {
                reject(at, Constraint::host_ram,
                       "host RAM " + std::to_string(static_cast<int>(std::lround(*o.ram_gb))) +
                           " GB cannot hold the checkpoint while it loads (about " +
                           std::to_string(static_cast<int>(std::ceil(need))) + " GB per node needed)");
                return false;
            }
        }
        if (instances > 1 && !r_.nodes && c.estimate->scaling_efficiency < b_.min_scaling_efficiency) {
            reject(at, Constraint::scaling,
                   std::to_string(instances) + " nodes reach only " +
                       std::to_string(static_cast<int>(std::lround(100 * c.estimate->scaling_efficiency))) +
                       " % scaling efficiency (policy floor " +
                       std::to_string(static_cast<int>(std::lround(100 * b_.min_scaling_efficiency))) +
                       " %; --nodes pins a count regardless)");
            return false;
        }
        const bool rdma =
            (c.provider && c.provider->rdma) || (link.network_kind && is_rdma(*link.network_kind));
        if (instances > 1 && !(rdma && link.inter_node_gbps >= b_.min_network_gbps)) {
            if (exclude_slow_) {
                reject(at, Constraint::network, slow_network_warning(c, b_.min_network_gbps));
                return false;
            }
            c.slow_network = true;
        }
        return true;
    }

    // The plans, the one chosen within the deadline, its carbon (--objective carbon) and the budget.
    bool price(const Current& at, Option& c, const BillingAssumptions& billing) {
        const Offer& o = at.o;
        c.price_complete = o.price_complete;
        c.high_ratio =
            !b_.service && c.estimate->hours_per_run + b_.setup_hours > 0
                ? (c.estimate->hours_high + b_.setup_hours) / (c.estimate->hours_per_run + b_.setup_hours)
                : 1.0;
        const Plans plans = price_plans(catalog_, o, c.instances, billed_run_hours(b_, r_, *c.estimate), r_,
                                        b_.spot, billing, false);
        if (plans.size() == 0) {
            reject(at, Constraint::price,
                   r_.plan            ? "no " + plan_filter_text(*r_.plan) + " price (--plan)"
                   : r_.interruptible ? "no usable price"
                                      : "only a spot price, and the job is not --interruptible");
            return false;
        }
        const double runs = one_off_runs(r_);
        const PlanCost* chosen = choose_plan(plans, r_, c.high_ratio);
        if (!chosen) {
            c.cost = CostSummary(*std::min_element(plans.begin(), plans.end(),
                                                   [](const PlanCost& x, const PlanCost& y) {
                                                       return x.hours_per_run < y.hours_per_run;
                                                   }),
                                 runs);
            if (at.in_filter) pool_.over_deadline.push_back(c);
            reject(at, Constraint::deadline, deadline_miss_text(c, r_));
            return false;
        }
        c.cost = CostSummary(*chosen, runs);
        c.has_reserved = std::any_of(plans.begin(), plans.end(),
                                     [](const PlanCost& p) { return p.plan == Plan::reserved; });
        if (carbon_)
            if (auto e = run_energy(catalog_, grid_, at.gpu, c.provider, o, c.gpu_count, c.cost.hours_per_run,
                                    r_.runs_per_week);
                e && e->co2e_kg_per_run)
                c.co2e_kg_per_run = *e->co2e_kg_per_run;
        if (r_.budget_monthly && c.cost.rank_cost > *r_.budget_monthly) {
            if (at.in_filter) pool_.over_budget.push_back(c);
            reject(at, Constraint::budget,
                   format_amount(c.cost.rank_cost, r_.currency) + (runs > 0 ? " for the job" : " a month") +
                       " is over the budget of " + format_amount(*r_.budget_monthly, r_.currency));
            return false;
        }
        return true;
    }

    const Catalog& catalog_;
    const RecommendRequest& r_;
    EstimateCache& estimates_;
    CandidatePool& pool_;
    const std::set<std::string> gpu_ids_;
    const BuildContext b_;
    const bool exclude_slow_;
    const std::unordered_map<std::string_view, const Gpu*, TextHash> gpus_;
    const ProviderIndex providers_;
    std::vector<const InstanceNetwork*> networks_;  // the current provider's instance_networks rows
    const bool serving_;
    const bool carbon_;
    GridCarbonIndex grid_;
    std::string_view last_provider_id_;  // offers come in runs of one provider: look it up once per run
    const Gpu* last_gpu_ = nullptr;      // the last offer's GPU: compared by id, not hashed
    const Provider* provider_ = nullptr;
    BillingAssumptions billing_;                                      // the provider's, looked up with it
    SizedPool* sized_ = nullptr;  // size_candidates, a kept basis: the sized options are kept here ...
    bool price_sized_ = false;    // ... and priced too (build_candidates keeping its basis)
    // The maps' nodes come from one arena, freed with the builder at once (a malloc and a free per group
    // were 0.19 M of the groups' 0.4 M instructions in the common question).
    std::pmr::monotonic_buffer_resource nodes_;
    std::pmr::unordered_map<GroupKey, std::size_t, GroupKeyHash> groups_{&nodes_};  // in catalog order
    const std::pair<const GroupKey, std::size_t>* last_group_ = nullptr;  // the last option's (nodes are stable)
    std::pmr::unordered_map<const Estimate*, double> host_ram_{&nodes_};  // checkpoint_host_ram_gb per estimate
};

}  // namespace

BuildContext build_context(const Catalog& catalog, const RecommendRequest& r) {
    BuildContext b;
    // A serving deployment starts once, not per batch of requests: no set-up per run.
    // (so a month's cost is the volume at the option's cost per million tokens, and ranks by it).
    b.setup_hours = r.workload.serving.output_len ? 0.0 : catalog.policy.get("run_setup_minutes") / 60.0;
    b.idle_minutes = r.workload.serving.output_len
                         ? 0.0
                         : r.idle_minutes.value_or(catalog.policy.get("idle_minutes_after_run"));
    b.min_network_gbps = catalog.policy.get("multi_node_min_network_gbps");
    b.min_scaling_efficiency = catalog.policy.get("multi_node_min_scaling_efficiency");
    b.spot = {catalog.policy.get("spot_interruptions_per_hour"), catalog.policy.get("spot_restart_minutes"),
              r.checkpoint_minutes};
    if (r.service && r.workload.serving.online && r.workload.serving.output_len)
        b.service = service_load(*r.service, *r.workload.serving.output_len);
    return b;
}

double billed_run_hours(const BuildContext& b, const RecommendRequest& r, const Estimate& e) {
    return b.service ? r.service->hours_per_day : e.hours_per_run + b.setup_hours;
}

ServiceSizing service_sizing(const BuildContext& b, const RecommendRequest& r, const Estimate& e) {
    return size_service(*r.service, *b.service, *e.serving);
}

CandidatePool build_candidates(const Catalog& catalog, const RecommendRequest& r, EstimateCache& estimates,
                               SizedPool* keep) {
    CandidatePool pool;
    CandidateBuilder builder(catalog, r, estimates, pool);
    if (keep) {
        builder.keep_sized(keep, true);
        keep->options.reserve(catalog.offers.size());
    }
    pool.options.reserve(catalog.offers.size());
    for (const auto& o : catalog.offers) builder.add(o);
    return pool;
}

SizedPool size_candidates(const Catalog& catalog, const RecommendRequest& r, EstimateCache& estimates) {
    SizedPool sized;
    CandidateBuilder builder(catalog, r, estimates, sized.unpriced);
    builder.keep_sized(&sized, false);
    sized.options.reserve(catalog.offers.size());
    for (const auto& o : catalog.offers) builder.add(o);
    return sized;
}

CandidatePool price_candidates(const Catalog& catalog, const RecommendRequest& r, EstimateCache& estimates,
                               const SizedPool& sized, bool in_filter_only, std::vector<std::size_t>* from) {
    CandidatePool pool;
    CandidateBuilder builder(catalog, r, estimates, pool);
    for (std::size_t i = 0; i < sized.options.size(); ++i) {
        const SizedOption& s = sized.options[i];
        if (!s.option.in_filter && in_filter_only) continue;
        const std::size_t before = pool.options.size();
        builder.finish(s);
        if (from && pool.options.size() > before) from->push_back(i);
    }
    return pool;
}

Candidate materialize(const Catalog& catalog, const RecommendRequest& r, const Option& o,
                      const GridCarbonIndex* grid) {
    const BuildContext b = build_context(catalog, r);
    Candidate c;
    c.offer = o.offer;
    c.gpu = o.gpu;
    c.provider = o.provider;
    c.instances = o.instances;
    c.gpu_count = o.gpu_count;
    c.estimate = *o.estimate;
    if (o.requirement) c.reasons.push_back("PyTorch " + r.pytorch->text + ": " + *o.requirement);
    if (!is_rentable(o.provider))
        c.warnings.push_back(
            {WarningKind::example_provider, "example provider: " + o.provider->id +
                                                "'s price is the guide's illustrative quote, "
                                                "not an offer you can rent"});
    if (o.slow_network)
        c.warnings.push_back({WarningKind::slow_network, slow_network_warning(o, b.min_network_gbps)});
    if (o.instances == 1 && o.gpu_count > 1 && !b.service)
        c.network_note = ("one node of " + std::to_string(o.gpu_count) + " GPUs: no network between nodes (" +
                          (o.gpu->nvlink_domain >= o.gpu_count ? "NVLink" : "PCIe") + " inside it)");
    if (!c.network_note.empty()) c.reasons.push_back(c.network_note);
    // The option's own network (estimates are shared by offers of the same speed, not source).
    const LinkSpec net = offer_network(catalog, o.provider, *o.offer, o.instances, r, true);
    c.estimate.config.network.inter_node_gbps = net.inter_node_gbps;
    c.estimate.config.network.network_source = net.network_source;
    c.estimate.config.network.network_kind = net.network_kind;
    c.estimate.config.network.assumed = net.assumed;
    c.estimate.config.network.stated = net.stated;
    if (o.instances > 1) {
        const std::string what = format_number(net.inter_node_gbps) + " Gbps " +
                                 (net.network_kind ? std::string(to_string(*net.network_kind)) : "network");
        if (o.unknown_network)
            c.warnings.push_back(
                {WarningKind::unknown_network,
                 "no network is known between its " + std::to_string(o.instances) + " nodes: " + what +
                     " assumed (" + net.network_source + ")" +
                     (r.allow_unknown_network ? ""
                                              : "; ranked after options on a known network "
                                                "(--allow-unknown-network ranks it with them)")});
        c.network_note =
            std::to_string(o.instances) + " nodes over " + what + " (" + net.network_source + ")";
        c.reasons.push_back(c.network_note);
    }
    // The same computation that chose the plan: the chosen one in full, and the others.
    c.setup_hours_per_run = b.setup_hours;
    c.run_hours_per_run = billed_run_hours(b, r, *o.estimate);
    const double hours = c.run_hours_per_run;
    c.billing = r.workload.serving.output_len ? BillingAssumptions{}
                                              : billing_assumptions(catalog, o.provider, b.idle_minutes);
    for (const auto& p :
         price_plans(catalog, *o.offer, o.instances, c.run_hours_per_run, r, b.spot, c.billing)) {
        if (p.plan == o.cost.plan)
            c.cost = p;
        else
            c.alternatives.push_back(p);
        if (p.break_even_hours_per_month)
            c.break_even_hours_per_month = p.break_even_hours_per_month;  // the reserved plan's
    }
    const double spot_factor = 1 + c.cost.spot_overhead.value_or(0);
    c.hours_low = b.service ? hours : (c.estimate.hours_low + b.setup_hours) * spot_factor;
    c.hours_high = b.service ? hours : (c.estimate.hours_high + b.setup_hours) * spot_factor;
    c.price_complete = o.price_complete;
    if (r.deadline_hours && r.deadline_confidence == DeadlineConfidence::point &&
        c.hours_high > *r.deadline_hours)
        c.warnings.push_back({WarningKind::deadline_risk,
                              "may miss the deadline: the time band reaches " +
                                  format_duration(c.hours_high) + " per run, over the deadline of " +
                                  format_duration(*r.deadline_hours) + " (the estimate is " +
                                  format_duration(c.cost.hours_per_run) + ")"});
    // One copy of the configuration has 168 h a week: a workload needing more runs on copies side by side.
    if (!r.one_off() && !b.service) {
        const double weekly = c.cost.hours_per_run * r.runs_per_week;
        c.parallel_copies = std::max(1, static_cast<int>(std::ceil(weekly / 168.0 - 1e-9)));
        if (c.parallel_copies > 1)
            c.reasons.push_back("needs " + format_duration(weekly) +
                                " a week, more than the 168 h in a week: planned on " +
                                std::to_string(c.parallel_copies) +
                                " copies running in parallel (the cost is the same GPU-hours)");
    }
    // The other commitment terms of the same configuration (the best one is the reserved plan above).
    if (!r.plan || r.plan->plan == Plan::reserved)
        for (const auto& t : cost_commitment_terms(catalog, *o.offer, o.instances, hours, r.runs_per_week,
                                                   r.currency, c.billing)) {
            if (r.plan && r.plan->term_months && t.term_months != r.plan->term_months) continue;
            const bool shown =
                (c.cost.plan == Plan::reserved && c.cost.term_months == t.term_months) ||
                std::any_of(c.alternatives.begin(), c.alternatives.end(), [&](const PlanCost& a) {
                    return a.plan == Plan::reserved && a.term_months == t.term_months;
                });
            if (!shown) c.alternatives.push_back(t);
        }
    std::optional<GridCarbonIndex> own_grid;
    if (!grid) grid = &own_grid.emplace(catalog);
    c.energy = run_energy(catalog, *grid, *o.gpu, o.provider, *o.offer, c.gpu_count, c.cost.hours_per_run,
                          r.runs_per_week);
    if (auto usd = catalog.convert(c.cost.price_per_hour, r.currency, "USD"))
        if (auto tf = o.gpu->tflops.at(c.estimate.precision); tf && *tf > 0)
            c.usd_per_tflops_hour = *usd / c.gpu_count / *tf;
    if (c.estimate.total_flops > 0) c.cost_per_pflop = c.cost.cost_per_run / (c.estimate.total_flops / 1e15);
    if (b.service) {
        // A service's tokens cost what its month costs over the tokens it serves at its real load.
        c.service = service_sizing(b, r, *o.estimate);
        if (b.service->output_tokens_per_month > 0)
            c.service->cost_per_million_tokens =
                c.cost.cost_per_month / b.service->output_tokens_per_month * 1e6;
        c.estimate.serving->cost_per_million_tokens = c.service->cost_per_million_tokens;
    } else if (c.estimate.serving && c.estimate.serving->tokens_per_s > 0) {
        c.estimate.serving->cost_per_million_tokens =
            c.cost.price_per_hour / (c.estimate.serving->tokens_per_s * 3600.0) * 1e6;
    }
    return c;
}

}  // namespace gpuadvise::detail
