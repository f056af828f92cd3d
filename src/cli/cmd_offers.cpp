// gpuadvise offers: filter and sort provider offers.
#include <algorithm>
#include <exception>
#include <map>
#include <memory>

#include "cli/commands.hpp"
#include "cli/freshness.hpp"
#include "cli/help_footer.hpp"
#include "cli/pytorch_option.hpp"
#include "gpuadvise/base/dates.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/compat/compat.hpp"
#include "gpuadvise/market/offer_query.hpp"
#include "io/terminal.hpp"

namespace gpuadvise::cli {
namespace {

struct OffersOptions {
    std::string gpu;
    std::vector<std::string> providers;
    std::vector<std::string> regions;
    std::string plan;
    std::optional<double> max_price;
    std::string sort = "price";
    std::optional<std::size_t> limit;
    std::string pytorch;  // --pytorch VERSION[+cuXYZ]
    bool include_examples = false;
};

// --pytorch: drops offers whose GPU no wheel of that release runs on (counted per reason on
// stderr), before --limit; fills `fits` for the rows kept (same order).
void filter_by_pytorch(Context& ctx, const Catalog& catalog, const std::string& text, OfferList& list,
                       std::optional<std::size_t> limit, std::vector<PytorchFit>& fits) {
    const PytorchVersion version = parse_pytorch_option(catalog, text);
    std::map<std::string, std::size_t> excluded;  // reason -> offers
    std::vector<OfferRow> kept;
    for (auto& row : list.rows) {
        PytorchFit fit = fit_offer(catalog, *row.offer, version);
        if (!fit.supported) {
            ++excluded[fit.reason];
            continue;
        }
        kept.push_back(row);
        fits.push_back(std::move(fit));
    }
    std::size_t total = 0;
    for (const auto& [reason, n] : excluded) total += n;
    if (total) {
        ctx.note("--pytorch " + text + ": " + std::to_string(total) + " offer" + (total == 1 ? "" : "s") +
                 " excluded");
        for (const auto& [reason, n] : excluded) ctx.note("  " + std::to_string(n) + " × " + reason);
    }
    list.matched -= std::min(list.matched, total);
    if (limit && kept.size() > *limit) {
        kept.resize(*limit);
        fits.resize(*limit);
    }
    list.rows = std::move(kept);
}

std::optional<PlanFilter> parse_plan(const std::string& s) {
    if (s.empty()) return std::nullopt;
    auto f = parse_plan_filter(s);
    if (!f)
        throw UsageError("--plan " + s + ": not a plan",
                         "use on-demand, reserved, reserved-1m, reserved-1y, reserved-3y or spot");
    return f;
}

// One line naming the providers whose shown prices are older than policy max_price_age_days.
void warn_stale_prices(Context& ctx, const Catalog& catalog, const OfferList& list) {
    const auto today = parse_iso_date(io::today_iso());
    if (!today) return;
    const double max_age = catalog.policy.get("max_price_age_days");
    std::map<std::string, std::string> oldest;  // provider -> oldest stale as_of shown
    std::size_t stale = 0;
    for (const auto& r : list.rows) {
        auto d = parse_iso_date(r.offer->as_of);
        if (!r.offer->as_of.empty() && (!d || static_cast<double>(*today - *d) <= max_age))
            continue;  // "" = as-of unknown
        ++stale;
        auto& o = oldest[r.offer->provider];
        if (o.empty() || r.offer->as_of < o) o = r.offer->as_of;
    }
    if (!stale) return;
    std::vector<std::string> names;
    for (const auto& [p, d] : oldest)
        names.push_back(p + " " + (d.empty() ? std::string("as-of unknown") : d));
    if (names.size() > 4) {
        const std::size_t more = names.size() - 4;
        names.resize(4);
        names.push_back("+" + std::to_string(more) + " more");
    }
    ctx.warn(std::to_string(stale) + " of " + std::to_string(list.rows.size()) +
             " shown prices are older than " + io::fmt_number(max_age, 0) + " days or of unknown date (" +
             join(names, ", ") + "); check them before renting, or run 'gpuadvise catalog update'");
}

// What run_offers found; to_json and to_document render it (only the one printed is built).
struct OffersResult {
    const OffersOptions& opt;
    const OfferQuery& q;
    const std::optional<PlanFilter>& plan;
    const OfferList& list;
    const std::vector<PytorchFit>& fits;  // per row, with --pytorch
    const std::optional<std::vector<std::string>>&
        unknown;  // providers without commitment prices, when asked
};

// The document without its offers (an empty array in their place): offer_json makes them one at a
// time as they are written (io::JsonItems).
nlohmann::ordered_json to_json(const OffersResult& result) {
    const OfferList& list = result.list;
    auto json = json_document();
    json["currency"] = list.currency;
    json["gpus_covered"] = nlohmann::ordered_json::array();
    for (const Gpu* g : list.gpus_covered) json["gpus_covered"].push_back(g->id);
    json["matched"] = list.matched;
    json["offers"] = nlohmann::ordered_json::array();
    if (result.unknown) json["providers_without_commitment_prices"] = *result.unknown;
    return json;
}

nlohmann::ordered_json offer_json(const OffersResult& result, std::size_t i) {
    const OfferList& list = result.list;
    const std::vector<PytorchFit>& fits = result.fits;
    const OfferRow& r = list.rows[i];
    const Offer& o = *r.offer;
    nlohmann::ordered_json j;
    j["provider"] = o.provider;
    j["gpu"] = o.gpu;
    j["gpu_family"] = r.gpu ? r.gpu->family : "";
    j["gpu_count"] = o.gpu_count;
    j["region"] = o.region;
    j["instance_type"] = o.instance_type;
    j["currency"] = o.currency;
    j["on_demand_per_hour"] = json_price(o.on_demand_per_hour);
    j["reserved_per_month"] = json_price(o.reserved_per_month);
    j["spot_per_hour"] = json_price(o.spot_per_hour);
    // The commitment RESERVED/MO shows (the cheapest of the asked term): its kind and how it is paid.
    j["reserved_kind"] =
        r.commitment ? nlohmann::ordered_json(std::string(kCommitmentKindNames.name(r.commitment->kind)))
                     : nlohmann::ordered_json();
    j["reserved_payment"] =
        r.commitment ? nlohmann::ordered_json(std::string(kPaymentNames.name(r.commitment->payment)))
                     : nlohmann::ordered_json();
    nlohmann::ordered_json commitments = nlohmann::ordered_json::array();
    for (const auto& c : o.commitments) {
        nlohmann::ordered_json x;
        x["term_months"] = c.term_months;
        x["price_per_month"] = json_price(c.price_per_month);
        x["upfront"] = c.upfront;
        x["kind"] = std::string(kCommitmentKindNames.name(c.kind));
        x["payment"] = std::string(kPaymentNames.name(c.payment));
        x["upfront_total"] = json_price(c.upfront_total);
        x["scope"] = c.scope;
        x["source"] = c.source;
        x["as_of"] = c.as_of;
        if (!c.note.empty()) x["note"] = c.note;
        commitments.push_back(x);
    }
    j["commitments"] = commitments;
    j["as_of"] = o.as_of;
    j["source"] = o.source;
    j["plan"] = to_string(r.plan);
    j["price_per_hour_converted"] = json_price(r.hourly_price);
    j["price_per_gpu_hour_converted"] = json_number(r.hourly_price_per_gpu);
    j["converted_currency"] = list.currency;
    j["usd_per_tflops_hour"] = json_number(r.usd_per_tflops_hour);
    j["notes"] = o.notes;
    j["example"] = !r.rentable;
    if (!fits.empty()) {
        const PytorchFit& fit = fits[i];
        j["requirements"] = fit.requirement;
        j["pytorch_wheels"] = fit.wheels;
    }
    return j;
}

io::TextDocument to_document(const OffersResult& result) {
    const OffersOptions& opt = result.opt;
    const OfferQuery& q = result.q;
    const std::optional<PlanFilter>& plan = result.plan;
    const OfferList& list = result.list;
    const std::vector<PytorchFit>& fits = result.fits;
    io::TextTable table;
    // Narrow terminals hide $/TFLOPS-H first, then SPOT/H, RESERVED/MO, REGION, INSTANCE, AS OF; never
    // the price of the plan asked for (--plan) nor the column sorted on (--sort): priority 0.
    const bool keep_spot = q.plan == Plan::spot, keep_reserved = q.plan == Plan::reserved;
    const bool keep_tflops = q.sort == OfferSort::usd_per_tflops;
    table.columns = {{"PROVIDER"},
                     {"GPU"},
                     {"N", io::Align::right},
                     {"REGION", io::Align::left, 3, true},
                     {"INSTANCE", io::Align::left, 2, true},
                     {"ON-DEMAND/H", io::Align::right},
                     {"RESERVED/MO", io::Align::right, keep_reserved ? 0 : 4},
                     {"SPOT/H", io::Align::right, keep_spot ? 0 : 5},
                     {"PER GPU/H", io::Align::right},
                     {"$/TFLOPS-H", io::Align::right, keep_tflops ? 0 : 6},
                     {"AS OF", io::Align::left, 1}};
    // --plan reserved[-N]: how the commitment shown is paid (reservation or savings plan, upfront share).
    const bool payment_column = q.plan == Plan::reserved;
    if (payment_column) table.columns.insert(table.columns.begin() + 7, {"PAYMENT", io::Align::left, 0});
    for (const auto& r : list.rows) {
        const Offer& o = *r.offer;
        table.rows.push_back(
            {o.provider + (r.rentable ? "" : " (example)") + (o.price_complete ? "" : " (GPU only)"), o.gpu,
             std::to_string(o.gpu_count), o.region.empty() ? "-" : o.region,
             o.instance_type.empty() ? "-" : o.instance_type, io::fmt_optional(r.on_demand_per_hour, 2),
             r.reserved_per_month
                 ? io::fmt_number(*r.reserved_per_month, 0) + " (" + term_short(r.term_months) + ")"
                 : "-",
             io::fmt_optional(r.spot_per_hour, 2), io::fmt_optional(r.hourly_price_per_gpu, 3),
             io::fmt_optional(r.usd_per_tflops_hour, 4),
             r.plan == Plan::reserved && r.commitment && !r.commitment->as_of.empty()
                 ? r.commitment->as_of.str()
                 : (o.as_of.empty() ? std::string("unknown") : o.as_of.str())});
        if (payment_column) {
            std::string pay = "-";
            if (r.commitment) {
                pay = payment_label(r.commitment->payment);
                if (r.commitment->kind == CommitmentKind::savings_plan)
                    pay = "savings plan" + (pay.empty() ? "" : ", " + pay);
                if (pay.empty()) pay = "-";  // not stated by the source
            }
            table.rows.back().insert(table.rows.back().begin() + 7, pay);
        }
    }
    if (!fits.empty()) {
        table.columns.push_back({"PYTORCH " + opt.pytorch, io::Align::left, 0, true});
        for (std::size_t i = 0; i < table.rows.size() && i < fits.size(); ++i)
            table.rows[i].push_back(fits[i].requirement);
    }
    io::TextDocument doc;
    std::vector<std::string> covered;
    for (const Gpu* g : list.gpus_covered) covered.push_back(g->id);
    if (!opt.gpu.empty()) doc.lead.push_back("GPUs covered by '" + opt.gpu + "': " + join(covered, ", "));
    // An empty result says why instead of printing a table header with no rows (exit 3 below).
    if (list.rows.empty())
        doc.lead.push_back(
            "No offer matches these filters: widen --gpu, --provider, --region, --plan or --max-price.");
    else
        doc.tables.push_back(table);
    doc.notes.push_back(
        "Prices in " + list.currency + " for the whole offer" +
        (list.currency == "USD" ? "" : " (converted with the catalog's dated rates)") +
        "; PER GPU/H prices the " + (plan ? plan_filter_text(*plan) : std::string("on-demand")) + " plan" +
        (q.plan == Plan::reserved
             ? " at full use (the monthly commitment over 730 h; AS OF is the commitment's)"
             : "") +
        "; RESERVED/MO is the cheapest commitment (1m, 1y, 3y: its term). " +
        std::to_string(list.rows.size()) + " of " + std::to_string(list.matched) + " matching offers shown.");
    const auto gpu_only = std::count_if(list.rows.begin(), list.rows.end(),
                                        [](const auto& r) { return !r.offer->price_complete; });
    if (gpu_only > 0)
        doc.notes.push_back(
            "(GPU only): the price is the GPU's alone, not the whole offer's: the host VM is extra and not "
            "in the catalog (" +
            std::to_string(gpu_only) +
            " of the offers shown; listed after every complete price, as recommend ranks them).");
    if (result.unknown && !result.unknown->empty())
        doc.notes.push_back("No commitment prices known for " + join(*result.unknown, ", ") +
                            " (the catalog has none; the provider may still sell them).");
    return doc;
}

int run_offers(Context& ctx, const OffersOptions& opt) {
    OfferQuery q;
    std::exception_ptr bad_spec;  // reported after the catalog's errors, as before the push-down
    try {
        if (!opt.gpu.empty()) q.gpu = parse_gpu_spec(opt.gpu);
    } catch (const UsageError&) {
        bad_spec = std::current_exception();
    }
    q.providers = opt.providers;
    q.regions = opt.regions;
    // Tables given directly keep only offers of these GPUs, providers and regions (the push-down).
    if (!bad_spec) ctx.offer_filter = io::OfferFilter{q.gpu, q.providers, q.regions};
    const Catalog& catalog = ctx.catalog();
    if (bad_spec) std::rethrow_exception(bad_spec);
    const auto plan = parse_plan(opt.plan);
    if (plan) {
        q.plan = plan->plan;
        q.term_months = plan->term_months;
    }
    q.max_price = opt.max_price;
    q.currency = ctx.currency();
    q.sort = opt.sort == "price-per-gpu"    ? OfferSort::price_per_gpu
             : opt.sort == "usd-per-tflops" ? OfferSort::usd_per_tflops
                                            : OfferSort::price;
    q.limit = opt.pytorch.empty() ? opt.limit : std::nullopt;
    q.include_examples = opt.include_examples;
    OfferList list = query_offers(catalog, q);
    std::vector<PytorchFit> fits;
    if (!opt.pytorch.empty()) filter_by_pytorch(ctx, catalog, opt.pytorch, list, opt.limit, fits);

    // Say where commitment prices are unknown instead of implying a provider sells none.
    std::optional<std::vector<std::string>> unknown;
    if (q.plan == Plan::reserved || !q.providers.empty()) {
        std::vector<std::string> providers = q.providers;
        if (providers.empty())
            for (const auto& p : catalog.providers)
                if (p.kind != ProviderKind::placeholder && p.kind != ProviderKind::example)
                    providers.push_back(p.id);
        unknown.emplace();
        for (const auto& id : providers)
            if (std::none_of(catalog.offers.begin(), catalog.offers.end(),
                             [&](const Offer& o) { return iequals(o.provider, id) && has_commitment(o); }))
                unknown->push_back(id);
    }
    // --format csv/tsv: the tables of this output, the first by default (--section NAME; docs/json.md).
    static const std::vector<io::ExportSection> sections = {
        {"offers", "/offers", "", {}},
        {"commitments",
         "/offers",
         "commitments",
         {"provider", "gpu", "gpu_count", "region", "instance_type", "currency"}},
        {"gpus_covered", "/gpus_covered", "", {}},
    };
    const OffersResult result{opt, q, plan, list, fits, unknown};
    const io::JsonItems offers{"offers", list.rows.size(),
                               [&](std::size_t i) { return offer_json(result, i); }};
    ctx.emit([&] { return to_json(result); }, [&] { return to_document(result); }, sections, {}, &offers);
    warn_stale_prices(ctx, catalog, list);
    if (list.rows.empty()) {
        ctx.err << "gpuadvise: no offer matches these filters\n";
        return 3;
    }
    return 0;
}

}  // namespace

Runner setup_offers(CommandApp& sub) {
    auto opt = std::make_shared<OffersOptions>();
    sub.add_option("--gpu", opt->gpu,
                   "GPU spec NAME[,NAME…][:MEMORY][:COUNT], e.g. A100, A100:8, 80GB, A100:80GB:8, H100,H200")
        ->type_name("SPEC");
    sub.add_option("--provider", opt->providers, "Only this provider (repeatable)")->type_name("ID");
    sub.add_option("--region", opt->regions, "Only regions containing this text (repeatable)")
        ->type_name("TEXT");
    sub.add_option("--plan", opt->plan, "Only offers with this plan, priced by it")
        ->type_name("on-demand|reserved|reserved-1m|reserved-1y|reserved-3y|spot");
    sub.add_option("--max-price", opt->max_price,
                   "Highest price per hour for the whole offer (reserved: monthly / 730 h)")
        ->check(decimal_number(0.0, 1e9))
        ->type_name("AMOUNT");
    sub.add_option("--sort", opt->sort, "Sort order")
        ->check(one_of({"price", "price-per-gpu", "usd-per-tflops"}))
        ->type_name("price|price-per-gpu|usd-per-tflops");
    sub.add_option("--pytorch", opt->pytorch,
                   "Only offers whose GPU a wheel of this PyTorch runs on, e.g. 2.1 or 2.1+cu118")
        ->type_name("VERSION[+cuXYZ]");
    sub.add_option("--limit", opt->limit, "Show at most N offers")
        ->transform(whole_number(1, 1000000000))
        ->type_name("N");
    sub.add_flag("--include-examples", opt->include_examples,
                 "Also list example and placeholder providers (not rentable as listed; marked 'example')");
    set_footer(sub, {{FooterBlock::Kind::examples,
                      {"gpuadvise offers --gpu A100:80GB:8 --sort price-per-gpu",
                       "gpuadvise offers --gpu L4 --plan reserved --currency CNY",
                       "gpuadvise offers --gpu H100,H200 --max-price 30 --json"}},
                     {FooterBlock::Kind::paragraph, {"Exit code 3 when no offer matches."}}});
    return [opt](Context& ctx) { return run_offers(ctx, *opt); };
}

}  // namespace gpuadvise::cli
