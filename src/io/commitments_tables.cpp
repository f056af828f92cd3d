// Commitment price tables (GCP's pricing.yml, published reserved prices as CSV) and how their
// prices are attached to the offers of the tables read before them.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <unordered_map>

#include "gpuadvise/base/calendar.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"
#include "io/commitment_tables.hpp"
#include "io/offer_tables.hpp"
#include "io/yaml_context.hpp"

namespace gpuadvise::io {
namespace {

// The GPU a GCP price file's key means: the machine families carry one GPU model each.
const char* gcp_gpu_name(std::string_view key) {
    if (key == "a100") return "a100-40gb-sxm";                             // a2-highgpu / a2-megagpu
    if (key == "a100-80gb") return "a100-80gb-sxm";                        // a2-ultragpu
    if (key == "h100-80gb" || key == "h100-80gb-mega") return "h100-sxm";  // a3-highgpu / a3-megagpu
    if (key == "l4") return "l4";                                          // g2-standard
    if (key == "rtx6000") return "RTX PRO 6000";  // g4-standard: RTX PRO 6000 Blackwell Server Edition
    return nullptr;
}

constexpr std::string_view kGpuKeys[] = {"a100", "a100-80gb", "h100-80gb", "h100-80gb-mega", "l4", "rtx6000"};

// "Thu Jul 30 06:13:17 2026" -> "2026-07-30".
std::string iso_from_generated(const std::string& text) {
    static const std::regex re(R"(^\w{3} (\w{3}) +(\d{1,2}) [\d:]+ (\d{4})$)");
    std::smatch m;
    if (!std::regex_match(text, m, re)) return "";
    static const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    for (int i = 0; i < 12; ++i)
        if (m[1] == months[i]) {
            char buf[16];
            std::snprintf(buf, sizeof buf, "%s-%02d-%02d", m[3].str().c_str(), i + 1, std::stoi(m[2].str()));
            return buf;
        }
    return "";
}

std::optional<double> number_of(const YAML::Node& n) {
    if (!n || !n.IsScalar()) return std::nullopt;
    try {
        const double v = n.as<double>();
        if (std::isfinite(v) && v >= 0) return v;
    } catch (const YAML::Exception&) {
    }
    return std::nullopt;
}

std::string first_iso_date(const std::string& text) {
    static const std::regex re(R"(\d{4}-\d{2}-\d{2})");
    std::smatch m;
    return std::regex_search(text, m, re) ? m.str() : "";
}

// A CSV line split on commas outside double quotes ("" inside quotes is a quote).
std::vector<std::string> split_csv_line(std::string_view line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
                out.back() += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                out.back() += c;
        } else if (c == '"')
            quoted = true;
        else if (c == ',')
            out.emplace_back();
        else if (c != '\r')
            out.back() += c;
    }
    return out;
}

void count_skip(Catalog& catalog, const std::string& file, const std::string& reason, long n = 1,
                SkipKind kind = SkipKind::other) {
    auto it = std::find_if(catalog.skipped.begin(), catalog.skipped.end(),
                           [&](const SkipSummary& s) { return s.file == file; });
    if (it == catalog.skipped.end()) {
        catalog.skipped.push_back({file, {}, {}, {}, {}});
        it = catalog.skipped.end() - 1;
    }
    it->rows_by_reason[reason] += n;
    it->rows_by_kind[kind] += n;
    it->reason_kinds[reason] = kind;
}

// The catalog id of a GPU name, or "" when it is unknown or ambiguous.
std::string gpu_id(const Catalog& catalog, const std::string& name) {
    if (catalog.find_gpu(name)) return name;
    try {
        GpuMatch m = resolve_gpu_name(catalog, name);
        if (m.gpus.size() == 1) return m.gpus.front()->id;
    } catch (const UsageError&) {
    }
    return "";
}

void load_gcp_pricing(const TableRef& ref, std::string_view bytes, Catalog& catalog, Diagnostics& diags) {
    const std::string file = table_display_name(ref);
    const GcpPriceList list = read_gcp_pricing(bytes, file, diags);
    const std::string source = "GCP committed-use and on-demand prices: " +
                               (list.url.empty() ? std::string("pricing.yml") : list.url + " pricing.yml") +
                               (list.generated.empty() ? "" : ", generated " + list.generated) +
                               " from the Cloud Billing Catalog API";
    for (const auto& m : list.machines) {
        if (!(m.gpu_count >= 1) || m.gpu_count != std::floor(m.gpu_count) || m.gpu_count > 4096) {
            count_skip(catalog, file, "fractional GPU count (a share of one GPU)");
            continue;
        }
        const char* name = gcp_gpu_name(m.gpu_key);
        const std::string id = name ? gpu_id(catalog, name) : "";
        if (id.empty()) {
            count_skip(catalog, file, "GPU of the machine type not in the GPU catalog (" + m.gpu_key + ")", 1,
                       SkipKind::accelerator);
            continue;
        }
        Offer o;
        o.provider = ref.provider;
        o.gpu = id;
        o.gpu_count = static_cast<int>(m.gpu_count);
        o.region = m.region;
        o.instance_type = m.machine_type;
        o.currency = "USD";
        if (m.hour && *m.hour > 0) o.on_demand_per_hour = m.hour;
        if (m.hour_spot && *m.hour_spot > 0 && (!m.hour || *m.hour_spot < *m.hour))
            o.spot_per_hour = m.hour_spot;
        o.vcpus = m.vcpus;
        o.ram_gb = m.ram_gib;
        o.as_of = list.as_of;
        o.source = source;
        o.where = {file, m.line, 0};
        for (auto [term, price] : {std::pair{12, m.month_1y}, std::pair{36, m.month_3y}})
            if (price && *price > 0) {
                Commitment c;
                c.term_months = term;
                c.price_per_month = *price;
                c.scope = "machine type + region";
                c.source = source;
                c.as_of = list.as_of;
                o.commitments.push_back(std::move(c));
            }
        if (!o.on_demand_per_hour && o.commitments.empty()) {
            count_skip(catalog, file, "no on-demand and no committed price");
            continue;
        }
        catalog.offers.push_back(std::move(o));
    }
}

// The scope of every commitment of an instance-hour row (the market-2026 layout): attached by
// instance type + region, not by GPU (attach_commitments tells the two layouts apart by it).
constexpr const char* kInstanceScope = "instance type + region";

// The market-2026 layout (commitments-more.csv of the shared data; docs/catalog.md): one row per
// published price of one instance type in one region. Columns read: provider, instance_type, region,
// gpu_count, plan (reserved | savings_plan | committed), term_months, payment, price_per_hour,
// on_demand_per_hour, currency, as_of, source, price_unit, discount_pct, notes.
void load_instance_commitments(const TableRef& ref, const std::vector<std::string_view>& lines,
                               const std::vector<std::string>& header, Catalog& catalog, Diagnostics& diags) {
    const std::string file = table_display_name(ref);
    auto column = [&](std::string_view name) -> std::optional<std::size_t> {
        for (std::size_t i = 0; i < header.size(); ++i)
            if (header[i] == name) return i;
        return std::nullopt;
    };
    const auto c_provider = column("provider"), c_type = column("instance_type"), c_region = column("region"),
               c_count = column("gpu_count"), c_plan = column("plan"), c_term = column("term_months"),
               c_payment = column("payment"), c_price = column("price_per_hour"),
               c_od = column("on_demand_per_hour"), c_currency = column("currency"),
               c_as_of = column("as_of"), c_source = column("source"), c_unit = column("price_unit"),
               c_discount = column("discount_pct"), c_notes = column("notes");
    if (!c_provider || !c_type || !c_region || !c_plan || !c_term || !c_payment || !c_price || !c_currency) {
        diags.error({file, 1, 1},
                    "commitment table header needs the columns provider, instance_type, region, plan, "
                    "term_months, payment, price_per_hour, currency (or the per-GPU layout: accelerator, "
                    "price_usd_per_gpu_hour, term_months)");
        return;
    }
    auto number = [](const std::string& text) -> std::optional<double> {
        if (text.empty()) return std::nullopt;
        try {
            std::size_t used = 0;
            const double v = std::stod(text, &used);
            if (used == text.size() && std::isfinite(v)) return v;
        } catch (const std::exception&) {
        }
        return std::nullopt;
    };
    int errors = 0;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        if (lines[i].empty() || lines[i] == "\r") continue;
        const int line = static_cast<int>(i + 1);
        const auto f = split_csv_line(lines[i]);
        auto get = [&](std::optional<std::size_t> c) { return c && *c < f.size() ? f[*c] : std::string(); };
        auto bad = [&](const std::string& what) {
            if (++errors <= 20) diags.error({file, line, 0}, what);
        };
        if (f.size() != header.size()) {
            bad("the row has " + std::to_string(f.size()) + " fields, the header " +
                std::to_string(header.size()));
            continue;
        }
        if (get(c_provider) != ref.provider) {
            count_skip(catalog, file, "row of another provider (the table is read for " + ref.provider + ")");
            continue;
        }
        if (get(c_unit) == "GPU-hour") {
            count_skip(catalog, file, "per GPU-hour row (this layout is read for instance-hour prices)");
            continue;
        }
        if (get(c_price).empty() && !get(c_discount).empty()) {
            count_skip(catalog, file, "discount percentage without a price (not read in this layout)");
            continue;
        }
        const std::string plan = get(c_plan);
        Commitment c;
        if (plan == "reserved")
            c.kind = CommitmentKind::reservation;
        else if (plan == "savings_plan")
            c.kind = CommitmentKind::savings_plan;
        else if (plan == "committed" && get(c_term).empty() &&
                 get(c_notes).find("Capacity Block") != std::string::npos)
            c.kind = CommitmentKind::capacity_block;
        else if (plan == "committed" && !get(c_term).empty())
            c.kind = CommitmentKind::reservation;  // a committed contract of a stated term
        else if (plan == "committed") {
            count_skip(catalog, file, "committed term is a range the buyer picks (not modelled)");
            continue;
        } else {
            bad("plan '" + plan + "': expected reserved, savings_plan or committed");
            continue;
        }
        const auto price = number(get(c_price));
        if (!price || !(*price > 0 && *price < 1e7)) {
            bad("price_per_hour '" + get(c_price) + "' is not a price above 0");
            continue;
        }
        if (c.kind != CommitmentKind::capacity_block) {
            const auto term = number(get(c_term));
            if (!term || *term != std::floor(*term) || *term < 1 || *term > 120) {
                bad("term_months '" + get(c_term) + "' is not a whole number of months from 1 to 120");
                continue;
            }
            c.term_months = static_cast<int>(*term);
        }
        const auto payment = kPaymentNames.parse(get(c_payment));
        if (!payment) {
            bad("payment '" + get(c_payment) +
                "': expected no_upfront, partial_upfront, all_upfront or unknown");
            continue;
        }
        c.payment = *payment;
        c.price_per_month = *price * kHoursPerMonth;  // effective: any upfront fee spread over the term
        if (c.kind != CommitmentKind::capacity_block) {
            if (c.payment == Payment::all_upfront) {
                c.upfront = 1;
                c.upfront_total = c.price_per_month * c.term_months;
            } else if (c.payment == Payment::no_upfront) {
                c.upfront_total = 0;
            }
        }
        c.scope = kInstanceScope;
        c.as_of = first_iso_date(get(c_as_of));
        c.source = get(c_source);
        c.note = get(c_notes);
        Offer o;
        o.provider = ref.provider;
        o.gpu_count = static_cast<int>(number(get(c_count)).value_or(0));
        o.region = get(c_region);
        o.instance_type = get(c_type);
        o.currency = get(c_currency);
        o.as_of = c.as_of;
        o.source = c.source;
        o.where = {file, line, 0};
        if (auto od = number(get(c_od)); od && *od > 0) o.on_demand_per_hour = od;
        o.commitments.push_back(std::move(c));
        catalog.offers.push_back(std::move(o));
    }
}

// Columns read: accelerator, price_usd_per_gpu_hour, term_months (required); gpu (the catalog id the
// accelerator name means at this provider), instance_match, region, valid_when, source, term_note.
// A header with instance_type and price_per_hour is the market-2026 layout (load_instance_commitments).
void load_commitments_csv(const TableRef& ref, std::string_view bytes, Catalog& catalog, Diagnostics& diags) {
    const std::string file = table_display_name(ref);
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; start < bytes.size();) {
        std::size_t end = bytes.find('\n', start);
        if (end == std::string_view::npos) end = bytes.size();
        lines.push_back(bytes.substr(start, end - start));
        start = end + 1;
    }
    if (lines.empty()) {
        diags.error({file, 0, 0}, "the commitment table is empty; expected a header line");
        return;
    }
    const auto header = split_csv_line(lines[0]);
    auto column = [&](std::string_view name) -> std::optional<std::size_t> {
        for (std::size_t i = 0; i < header.size(); ++i)
            if (header[i] == name) return i;
        return std::nullopt;
    };
    if (column("instance_type") && column("price_per_hour")) {
        load_instance_commitments(ref, lines, header, catalog, diags);
        return;
    }
    const auto c_acc = column("accelerator"), c_price = column("price_usd_per_gpu_hour"),
               c_term = column("term_months");
    if (!c_acc || !c_price || !c_term) {
        diags.error(
            {file, 1, 1},
            "commitment table header needs the columns accelerator, price_usd_per_gpu_hour, term_months");
        return;
    }
    const auto c_gpu = column("gpu"), c_match = column("instance_match"), c_region = column("region"),
               c_when = column("valid_when"), c_source = column("source"), c_note = column("term_note"),
               c_commitment = column("commitment");
    for (std::size_t i = 1; i < lines.size(); ++i) {
        if (lines[i].empty() || lines[i] == "\r") continue;
        const int line = static_cast<int>(i + 1);
        const auto f = split_csv_line(lines[i]);
        auto get = [&](std::optional<std::size_t> c) { return c && *c < f.size() ? f[*c] : std::string(); };
        double price = 0;
        int term = 0;
        try {
            price = std::stod(get(c_price));
            term = std::stoi(get(c_term));
        } catch (const std::exception&) {
            diags.error({file, line, 0}, "price_usd_per_gpu_hour and term_months must be numbers");
            continue;
        }
        if (!(price > 0 && price < 1e6) || term < 1 || term > 120) {
            diags.error({file, line, 0}, "price_usd_per_gpu_hour must be above 0 and term_months 1 to 120");
            continue;
        }
        const std::string name = get(c_gpu).empty() ? get(c_acc) : get(c_gpu);
        const std::string id = gpu_id(catalog, name);
        if (id.empty()) {
            count_skip(catalog, file, "reserved price for a GPU not in the GPU catalog", 1,
                       SkipKind::accelerator);
            continue;
        }
        Offer o;
        o.provider = ref.provider;
        o.gpu = id;
        o.gpu_count = 1;
        o.region = get(c_region);
        o.instance_type = get(c_match);
        o.as_of = first_iso_date(get(c_when));
        o.source = get(c_source) + (get(c_when).empty() ? "" : " (" + get(c_when) + ")");
        o.where = {file, line, 0};
        Commitment c;
        c.term_months = term;
        c.price_per_month =
            price *
            kHoursPerMonth;  // the upstream files' month (hour x 730), per GPU; scaled to the offer's GPUs when attached
        c.scope = "GPU model" + std::string(o.region.empty() ? ", any region" : ", " + o.region) +
                  " (per GPU-hour)";
        c.source = o.source;
        c.as_of = o.as_of;
        c.note = get(c_note).empty() ? get(c_commitment) : get(c_note);
        o.commitments.push_back(std::move(c));
        catalog.offers.push_back(std::move(o));
    }
}

}  // namespace

bool is_commitment_table_format(std::string_view format) {
    return format == "gcp-pricing" || format == "commitments-csv";
}

GcpPriceList read_gcp_pricing(std::string_view text, const std::string& origin, Diagnostics& diags) {
    GcpPriceList list;
    if (SourceLocation where{origin, 0, 0}; yaml_nesting_too_deep(text, where)) {
        diags.error(where, "nesting deeper than " + std::to_string(kMaxYamlNesting) +
                               " levels; not a GCP price file (it nests 5 deep)");
        return list;
    }
    if (SourceLocation where{origin, 0, 0}; yaml_has_alias(text, where)) {
        diags.error(where,
                    "a YAML alias (*name); the GCP price file has none, and aliases can expand a "
                    "small file without bound");
        return list;
    }
    YamlLoadError bad;
    const std::optional<YAML::Node> loaded = load_yaml_document(text, origin, bad);
    if (!loaded) {
        diags.error(bad.where,
                    (bad.from_parser ? "invalid YAML in the GCP price file: " : "the GCP price file: ") +
                        bad.message);
        return list;
    }
    YAML::Node root = *loaded;  // not const: a missing key of a const node is an invalid node
    if (!root.IsMap()) {
        diags.error({origin, 1, 1},
                    "not a GCP price file: expected the keys about: and compute: (Cyclenerd pricing.yml)");
        return list;
    }
    if (const YAML::Node about = root["about"]; about.IsMap()) {
        // A missing key of a const node is an invalid node, whose IsScalar() throws: IsDefined() first.
        if (about["generated"].IsDefined() && about["generated"].IsScalar())
            list.generated = about["generated"].Scalar();
        if (about["url"].IsDefined() && about["url"].IsScalar()) list.url = about["url"].Scalar();
        list.as_of = iso_from_generated(list.generated);
    }
    if (list.as_of.empty())
        diags.warning({origin, 1, 1},
                      "the GCP price file has no readable about.generated date; its prices have no as_of");
    const YAML::Node instances = root["compute"] ? root["compute"]["instance"] : YAML::Node();
    if (!instances.IsMap()) {
        diags.error({origin, 1, 1}, "not a GCP price file: no compute.instance map");
        return list;
    }
    for (auto it = instances.begin(); it != instances.end(); ++it) {
        const YAML::Node m = it->second;  // a copy: it->second is a temporary of the iterator
        if (!it->first.IsScalar() || !m.IsMap()) continue;
        std::string key;
        double count = 0;
        for (std::string_view k : kGpuKeys)
            if (auto v = number_of(m[std::string(k)])) {
                key = k;
                count = *v;
            }
        if (key.empty()) continue;  // not a GPU machine type
        const YAML::Node cost = m["cost"];
        if (!cost.IsDefined() || !cost.IsMap()) {
            diags.warning({origin, it->first.Mark().line + 1, 1},
                          it->first.Scalar() + ": no cost map; skipped");
            continue;
        }
        for (auto r = cost.begin(); r != cost.end(); ++r) {
            if (!r->first.IsScalar() || !r->second.IsMap()) continue;
            GcpMachinePrice p;
            p.machine_type = it->first.Scalar();
            p.gpu_key = key;
            p.gpu_count = count;
            p.vcpus = number_of(m["cpu"]);
            p.ram_gib = number_of(m["ram"]);
            p.region = r->first.Scalar();
            const YAML::Node c = r->second;
            auto price = [&](const char* field) {
                const YAML::Node v = c[field];
                auto n = number_of(v);
                if (v.IsDefined() && !v.IsNull() && !n) {
                    ++list.invalid_prices;
                    diags.warning({origin, v.Mark().line + 1, v.Mark().column + 1},
                                  p.machine_type + " in " + p.region + ": " + field +
                                      " is not a price (a number of at least 0); ignored",
                                  DiagnosticKind::invalid_price);
                }
                return n;
            };
            p.hour = price("hour");
            p.hour_spot = price("hour_spot");
            p.month = price("month");
            p.month_1y = price("month_1y");
            p.month_3y = price("month_3y");
            p.month_spot = price("month_spot");
            p.line = r->first.Mark().line + 1;
            list.machines.push_back(std::move(p));
        }
    }
    return list;
}

void load_commitment_table(const TableRef& ref, std::string_view bytes, Catalog& catalog,
                           Diagnostics& diags) {
    if (ref.format == "gcp-pricing")
        load_gcp_pricing(ref, bytes, catalog, diags);
    else
        load_commitments_csv(ref, bytes, catalog, diags);
}

void attach_commitments(Catalog& catalog, const std::vector<DonorRange>& ranges) {
    if (ranges.empty()) return;
    // Donor rows are the tail of catalog.offers (the loader attaches each commitment table as it is read).
    std::size_t first_donor = catalog.offers.size();
    for (const auto& r : ranges) first_donor = std::min(first_donor, r.begin);
    std::vector<bool> remove(catalog.offers.size() - first_donor, false);
    auto drop = [&](std::size_t i) { remove[i - first_donor] = true; };
    auto dropped = [&](std::size_t i) { return static_cast<bool>(remove[i - first_donor]); };
    for (const auto& r : ranges) {
        if (r.begin >= r.end) continue;
        const std::string& provider = catalog.offers[r.begin].provider;  // one table, one provider
        std::vector<std::size_t> mine;  // the provider's offers of the offer tables
        for (std::size_t i = 0; i < first_donor; ++i)
            if (catalog.offers[i].provider == provider) mine.push_back(i);
        if (r.format == "gcp-pricing") {
            // provider|machine type|region -> donor
            std::unordered_map<std::string, std::size_t> by_key;
            for (std::size_t i = r.begin; i < r.end; ++i) {
                const Offer& d = catalog.offers[i];
                by_key.emplace(d.instance_type + "|" + d.region, i);
            }
            long different_basis = 0;
            std::unordered_map<std::string, bool>
                listed_types;  // machine types the offer tables list (any region)
            for (std::size_t i : mine) {
                Offer& o = catalog.offers[i];
                if (o.instance_type.empty()) continue;
                listed_types[o.instance_type] = true;
                auto it = by_key.find(o.instance_type + "|" + o.region);
                if (it == by_key.end()) continue;
                const Offer& d = catalog.offers[it->second];
                if (d.gpu != o.gpu || d.gpu_count != o.gpu_count) continue;
                drop(it->second);
                // Commitments are priced against the price list's on-demand; where the offer table's
                // on-demand differs, they are from another price basis and would mislead the break-even.
                if (d.on_demand_per_hour && o.on_demand_per_hour &&
                    std::fabs(*d.on_demand_per_hour - *o.on_demand_per_hour) > 0.05 * *o.on_demand_per_hour) {
                    ++different_basis;
                    continue;
                }
                for (const auto& c : d.commitments) o.commitments.push_back(c);
            }
            if (different_basis)
                count_skip(catalog, r.file,
                           "commitments not attached: on-demand differs from the offer table's by more than "
                           "5 % (another price basis)",
                           different_basis);
            // A machine type the offer table lists, but not in this region: the price list has a price
            // where the table says it is not offered; trust the table. Machine types the table does not
            // list at all (g2, g4) stay as offers of their own, with a note.
            long not_offered = 0;
            for (std::size_t i = r.begin; i < r.end; ++i) {
                if (dropped(i)) continue;
                Offer& d = catalog.offers[i];
                if (listed_types.count(d.instance_type)) {
                    drop(i);
                    ++not_offered;
                } else {
                    d.notes.push_back(
                        "price list row (machine type not in the provider's offer table): availability in "
                        "this region not checked");
                }
            }
            if (not_offered)
                count_skip(catalog, r.file, "machine type the offer table lists, but not in this region",
                           not_offered);
        } else if (catalog.offers[r.begin].commitments.size() == 1 &&
                   catalog.offers[r.begin].commitments.front().scope == kInstanceScope) {
            // The market-2026 layout: per instance type + region, priced against the row's own on-demand
            // (±5 % of the offer table's, as for GCP; a capacity block has none and is attached as is).
            std::unordered_map<std::string, std::vector<std::size_t>> by_key;
            for (std::size_t i = r.begin; i < r.end; ++i) {
                const Offer& d = catalog.offers[i];
                by_key[d.instance_type + "|" + d.region].push_back(i);
                drop(i);
            }
            std::vector<bool> used(r.end - r.begin, false);
            long different_basis = 0, other_currency = 0;
            for (std::size_t j : mine) {
                Offer& o = catalog.offers[j];
                if (o.instance_type.empty()) continue;
                auto it = by_key.find(o.instance_type + "|" + o.region);
                if (it == by_key.end()) continue;
                for (std::size_t i : it->second) {
                    const Offer& d = catalog.offers[i];
                    used[i - r.begin] = true;
                    if (d.currency != o.currency) {
                        ++other_currency;
                        continue;
                    }
                    if (d.gpu_count && d.gpu_count != o.gpu_count) continue;
                    if (d.on_demand_per_hour && o.on_demand_per_hour &&
                        std::fabs(*d.on_demand_per_hour - *o.on_demand_per_hour) >
                            0.05 * *o.on_demand_per_hour) {
                        ++different_basis;
                        continue;
                    }
                    for (const auto& c : d.commitments) o.commitments.push_back(c);
                }
            }
            long unmatched = 0;
            for (bool u : used) unmatched += u ? 0 : 1;
            if (unmatched)
                count_skip(catalog, r.file,
                           "no offer of this instance type in this region in the offer tables", unmatched);
            if (different_basis)
                count_skip(catalog, r.file,
                           "commitments not attached: on-demand differs from the offer table's by more than "
                           "5 % (another price basis)",
                           different_basis);
            if (other_currency)
                count_skip(catalog, r.file, "commitments not attached: another currency than the offer's",
                           other_currency);
        } else {
            // Per GPU model: offers whose instance type contains the row's instance_match text take
            // that row; the others of the GPU take the row without one.
            std::map<std::string, long> unmatched;
            for (std::size_t i = r.begin; i < r.end; ++i) {
                const Offer& d = catalog.offers[i];
                drop(i);
                long matched = 0;
                for (std::size_t j : mine) {
                    Offer& o = catalog.offers[j];
                    if (o.gpu != d.gpu) continue;
                    if (!d.region.empty() && o.region != d.region) continue;
                    if (!d.instance_type.empty() &&
                        o.instance_type.find(d.instance_type) == std::string::npos)
                        continue;
                    if (d.instance_type.empty()) {
                        // a more specific row of this table (instance_match) takes precedence
                        bool specific = false;
                        for (std::size_t k = r.begin; k < r.end; ++k) {
                            const Offer& e = catalog.offers[k];
                            if (e.gpu == d.gpu && !e.instance_type.empty() &&
                                o.instance_type.find(e.instance_type) != std::string::npos)
                                specific = true;
                        }
                        if (specific) continue;
                    }
                    for (Commitment c : d.commitments) {
                        c.price_per_month *= o.gpu_count;
                        o.commitments.push_back(std::move(c));
                    }
                    ++matched;
                }
                if (!matched)
                    ++unmatched["reserved price for a GPU with no offer of the provider in the catalog (" +
                                d.gpu + ")"];
            }
            for (const auto& [reason, n] : unmatched) count_skip(catalog, r.file, reason, n);
        }
    }
    std::size_t out = first_donor;
    for (std::size_t i = first_donor; i < catalog.offers.size(); ++i)
        if (!dropped(i)) {
            if (out != i) catalog.offers[out] = std::move(catalog.offers[i]);
            ++out;
        }
    catalog.offers.resize(out);
}

}  // namespace gpuadvise::io
