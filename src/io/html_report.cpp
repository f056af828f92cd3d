#include "io/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>

#include "io/svg_chart.hpp"

namespace gpuadvise::io {
namespace {

using svg::escape;

// Colours from the Okabe-Ito palette (distinct for colour-blind readers); every series also has its
// own marker shape and dash pattern, so the charts read in greyscale print too.
constexpr const char* kBlue = "#0072B2";
constexpr const char* kOrange = "#E69F00";
constexpr const char* kGreen = "#009E73";
constexpr const char* kVermilion = "#D55E00";
constexpr const char* kPurple = "#CC79A7";
constexpr const char* kSky = "#56B4E9";

constexpr std::string_view kCss = R"(
:root { color-scheme: light; }
body { margin: 0; background: #ffffff; color: #111111; font: 15px/1.45 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; }
main { max-width: 1000px; margin: 0 auto; padding: 16px 20px 40px; }
h1 { font-size: 24px; margin: 8px 0 4px; }
h2 { font-size: 18px; margin: 26px 0 8px; border-bottom: 2px solid #333333; padding-bottom: 2px; }
p.sub { margin: 0 0 10px; color: #444444; }
ul.lead, ul.notes { margin: 4px 0 8px; padding-left: 22px; }
.pick { border: 2px solid #111111; padding: 8px 12px; margin: 12px 0; background: #f4f4f4; }
figure { margin: 14px 0 20px; page-break-inside: avoid; break-inside: avoid; }
figcaption { font-size: 13px; color: #333333; margin-top: 4px; }
svg.chart { display: block; max-width: 100%; height: auto; border: 1px solid #cccccc; }
table { border-collapse: collapse; margin: 6px 0 14px; font-size: 13px; width: 100%; }
caption { text-align: left; font-weight: bold; padding: 4px 0; }
th, td { border: 1px solid #bbbbbb; padding: 3px 6px; vertical-align: top; text-align: left; }
th { background: #eeeeee; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.top td { font-weight: bold; }
.warning { color: #7a2e00; }
footer { margin-top: 30px; font-size: 12px; color: #555555; }
@media print {
  body { font-size: 10pt; }
  main { max-width: none; padding: 0; }
  h2 { page-break-after: avoid; break-after: avoid; }
  svg.chart { border: none; }
  table { font-size: 8.5pt; }
  tr { page-break-inside: avoid; break-inside: avoid; }
  .pick { background: none; }
}
)";

std::string label(Plan p) { return std::string(plan_label(p)); }

std::string term_label(const std::optional<int>& term) {
    if (!term) return {};
    const int m = *term;
    return m % 12 == 0 ? std::to_string(m / 12) + "y" : std::to_string(m) + "m";
}

std::string render_table(const TextTable& t, const std::string& id = {}, int highlight_row = -1) {
    std::string o = "<table" + (id.empty() ? std::string() : " id=\"" + escape(id) + "\"") + ">\n";
    if (!t.title.empty()) o += "<caption>" + escape(t.title) + "</caption>\n";
    o += "<thead><tr>";
    for (const auto& c : t.columns)
        o +=
            std::string(c.align == Align::right ? "<th class=\"num\">" : "<th>") + escape(c.header) + "</th>";
    o += "</tr></thead>\n<tbody>\n";
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
        o += static_cast<int>(r) == highlight_row ? "<tr class=\"top\">" : "<tr>";
        for (std::size_t i = 0; i < t.rows[r].size(); ++i) {
            const bool right = i < t.columns.size() && t.columns[i].align == Align::right;
            o += std::string(right ? "<td class=\"num\">" : "<td>") + escape(t.rows[r][i]) + "</td>";
        }
        o += "</tr>\n";
    }
    return o + "</tbody>\n</table>\n";
}

// Lead lines: paragraphs, and the list items below one ("assumed: …") as its list.
std::string render_lead(const std::vector<TextLine>& lines) {
    std::string o;
    bool in_list = false;
    for (const auto& l : lines) {
        if (l.item() && !in_list) o += "<ul class=\"lead\">\n", in_list = true;
        if (!l.item() && in_list) o += "</ul>\n", in_list = false;
        o += l.item() ? "<li>" + escape(l.text) + "</li>\n" : "<p>" + escape(l.text) + "</p>\n";
    }
    if (in_list) o += "</ul>\n";
    return o;
}

// The notes as a list; list items nested under the note above them.
std::string render_notes(const std::vector<TextLine>& notes) {
    if (notes.empty()) return {};
    std::string o = "<ul class=\"notes\">\n";
    bool open = false, nested = false;
    auto close = [&] {
        if (nested) o += "</ul>";
        if (open) o += "</li>\n";
        open = nested = false;
    };
    for (const auto& n : notes) {
        if (!n.item()) {
            close();
            o += "<li>" + escape(n.text);
            open = true;
            continue;
        }
        if (!open) o += "<li>", open = true;
        if (!nested) o += "\n<ul>\n", nested = true;
        o += "<li>" + escape(n.text) + "</li>\n";
    }
    close();
    return o + "</ul>\n";
}

std::string render_notes(const std::vector<std::string>& notes) {
    return render_notes(std::vector<TextLine>(notes.begin(), notes.end()));
}

std::string head(const std::string& title) {
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta "
           "name=\"generator\" content=\"gpuadvise\">\n"
           "<title>" +
           escape(title) + "</title>\n<style>" + std::string(kCss) + "</style>\n</head>\n<body>\n<main>\n";
}

constexpr const char* kFoot =
    "<footer>Written by gpuadvise (--format html). Times and costs are estimates from the catalog's prices "
    "and "
    "the throughput model; every price carries its as-of date. No script, no network: this file is all there "
    "is.</footer>\n"
    "</main>\n</body>\n</html>\n";

template <class Option>
std::string option_name(const Option& r) {
    return r.provider + " " + r.gpu + " x" + std::to_string(r.gpu_count);
}

// Chart 1: monthly cost against hours per run, every feasible option, the Pareto front, the top picks.
std::string cost_time_figure(const RecommendReport& report, const std::string& cur,
                             std::string& data_tables) {
    const auto& points = report.feasible_points;
    svg::Chart c;
    c.id = "chart-cost-time";
    c.title = "Cost per month against hours per run";
    c.x_label = "hours per run (billed, estimate)";
    const bool job = report.one_off;
    c.title = job ? "Cost of the job against hours per run" : c.title;
    c.y_label = cur + (job ? " for the job (one-off)" : " per month");
    c.x_from_zero = true;
    svg::Series od{"on-demand", {}, svg::Marker::circle, kBlue, "", false, false, 3.5};
    svg::Series rs{"reserved", {}, svg::Marker::square, kOrange, "", false, false, 3.5};
    svg::Series sp{"spot", {}, svg::Marker::triangle, kGreen, "", false, false, 3.5};
    svg::Series front{"Pareto front", {}, svg::Marker::diamond, kVermilion, "7 4", true, true, 4.5};
    TextTable t;
    t.title = "Chart data: every feasible option (" + std::to_string(points.size()) + " points)";
    t.columns = {{"RANK", Align::right},
                 {"PROVIDER"},
                 {"GPU x N"},
                 {"INSTANCE"},
                 {"REGION"},
                 {"PLAN"},
                 {"HOURS/RUN", Align::right},
                 {cur + (job ? "/JOB" : "/MONTH"), Align::right},
                 {"PARETO"}};
    for (const auto& p : points) {
        const svg::Point pt{p.hours_per_run, p.cost};
        if (!std::isfinite(pt.x) || !std::isfinite(pt.y)) continue;
        (p.plan == Plan::reserved ? rs : p.plan == Plan::spot ? sp : od).points.push_back(pt);
        if (p.pareto) front.points.push_back(pt);
        t.rows.push_back({std::to_string(p.rank), p.provider, p.gpu + " x" + std::to_string(p.gpu_count),
                          p.instance_type, p.region, label(p.plan), fmt_number(pt.x, 3), fmt_number(pt.y, 2),
                          p.pareto ? "yes" : ""});
    }
    std::sort(front.points.begin(), front.points.end(),
              [](const svg::Point& a, const svg::Point& b) { return a.x < b.x; });
    for (auto* s : {&od, &rs, &sp})
        if (!s->points.empty()) c.series.push_back(*s);
    c.series.push_back(front);
    for (const auto& r : report.recommendations) {
        const svg::Point pt{r.hours_per_run, r.cost};
        if (std::isfinite(pt.x) && std::isfinite(pt.y))
            c.labels.push_back({pt, "#" + std::to_string(r.rank) + " " + option_name(r)});
    }
    const bool capped = report.feasible_points_capped;
    c.desc = "Each mark is one feasible option (" + std::to_string(t.rows.size()) +
             (capped ? ", capped" : "") + "): its billed hours per run and " +
             (job ? "the cost of the job's runs" : std::string("its cost per month")) + " in " + cur +
             ", by pricing plan. The dashed line joins the Pareto "
             "front (no other option is both faster and cheaper); the labels are the top picks.";
    data_tables += render_table(t, "data-cost-time");
    if (capped)
        data_tables +=
            "<p>Only the first 500 options by rank and every Pareto option are listed (the JSON key "
            "feasible_points is capped the same way).</p>\n";
    return "<figure id=\"fig-cost-time\">\n" + svg::render(c) + "<figcaption>" + escape(c.desc) +
           " The points are listed under Chart data.</figcaption>\n</figure>\n";
}

// Chart 2: the best option's monthly cost per pricing plan against runs per week, crossovers marked.
std::string plans_figure(const RecommendReport& report, const std::string& cur, std::string& data_tables) {
    svg::Chart c;
    c.id = "chart-plans";
    c.title = "Monthly cost against runs per week, by pricing plan";
    c.x_label = "runs per week";
    c.y_label = cur + " per month (best option of the plan)";
    c.x_from_zero = true;
    svg::Series od{"on-demand", {}, svg::Marker::circle, kBlue, "", true, true, 3.5};
    svg::Series rs{"reserved (best term)", {}, svg::Marker::square, kOrange, "8 4", true, false, 3.5};
    svg::Series sp{"spot", {}, svg::Marker::triangle, kGreen, "2 3", true, true, 3.5};
    TextTable t;
    t.title = "Chart data: best option per plan at each runs-per-week point (" + cur + " per month)";
    t.columns = {{"RUNS/WEEK", Align::right},
                 {"ON-DEMAND", Align::right},
                 {"ON-DEMAND OPTION"},
                 {"RESERVED", Align::right},
                 {"TERM"},
                 {"RESERVED OPTION"},
                 {"SPOT", Align::right},
                 {"SPOT OPTION"}};
    std::vector<std::string> terms;  // "1m", "1y", "3y": first seen order (shortest first in the document)
    std::map<std::string, std::vector<svg::Point>> by_term;
    std::map<std::string, std::vector<std::string>> term_cells;
    for (const auto& p : report.what_if) {
        const double x = p.runs_per_week;
        std::vector<std::string> row{fmt_number(x, 2)};
        for (auto [plan, series] :
             {std::pair{Plan::on_demand, &od}, std::pair{Plan::reserved, &rs}, std::pair{Plan::spot, &sp}}) {
            const auto& b = plan == Plan::on_demand  ? p.on_demand
                            : plan == Plan::reserved ? p.reserved
                                                     : p.spot;
            if (!b) {
                row.insert(row.end(), plan == Plan::reserved ? std::size_t{3} : std::size_t{2},
                           std::string());
                continue;
            }
            series->points.push_back({x, b->cost_per_month});
            row.push_back(fmt_number(b->cost_per_month, 2));
            if (plan == Plan::reserved) row.push_back(term_label(b->term_months));
            row.push_back(option_name(*b));
        }
        for (const auto& b : p.reserved_by_term) {
            const std::string term = term_label(b.term_months);
            if (std::find(terms.begin(), terms.end(), term) == terms.end()) terms.push_back(term);
            by_term[term].push_back({x, b.cost_per_month});
            term_cells[term].resize(t.rows.size());
            term_cells[term].push_back(fmt_number(b.cost_per_month, 2) + " (" + option_name(b) + ")");
        }
        t.rows.push_back(row);
    }
    // One line per commitment term when the document has them (reserved_by_term), else the best term's.
    static constexpr svg::Marker kTermMarkers[] = {svg::Marker::square, svg::Marker::diamond,
                                                   svg::Marker::cross, svg::Marker::circle};
    static constexpr const char* kTermColors[] = {kOrange, kVermilion, kPurple, kSky};
    static constexpr const char* kTermDashes[] = {"8 4", "12 4 2 4", "4 4", "14 3"};
    std::vector<svg::Series> term_series;
    for (std::size_t i = 0; i < terms.size(); ++i)
        term_series.push_back({"reserved " + terms[i], by_term[terms[i]], kTermMarkers[i % 4],
                               kTermColors[i % 4], kTermDashes[i % 4], true, false, 3.5});
    if (!od.points.empty()) c.series.push_back(od);
    if (term_series.empty() && !rs.points.empty()) c.series.push_back(rs);
    for (const auto& s : term_series) c.series.push_back(s);
    if (!sp.points.empty()) c.series.push_back(sp);
    for (const auto& term : terms) {
        t.columns.push_back({"RESERVED " + term + " (OPTION)", Align::right});
        auto& cells = term_cells[term];
        cells.resize(t.rows.size());
        for (std::size_t r = 0; r < t.rows.size(); ++r) t.rows[r].push_back(cells[r]);
    }
    std::string crossings;
    for (const auto& x : report.crossovers) {
        const double at = x.runs_per_week;
        c.markers.push_back({at, label(x.to) + " takes over at " + fmt_number(at, 2) + " runs/week", "4 3"});
        crossings += "<li>At " + escape(fmt_number(at, 2)) + " runs a week " + escape(label(x.to)) +
                     " becomes cheaper than " + escape(label(x.from)) + ".</li>\n";
    }
    const double runs = report.runs_per_week;
    if (std::isfinite(runs))
        c.markers.push_back({runs, "this request: " + fmt_number(runs, 1) + " runs/week", "1 0"});
    c.desc = "For each runs-per-week value, the monthly cost in " + cur +
             " of the cheapest option on each pricing plan: on-demand "
             "(solid line, circles), reserved commitments (dashed lines, one per term, each with its own "
             "marker and dash pattern), "
             "spot (dotted line, triangles; only for --interruptible jobs). Vertical lines mark where the "
             "cheapest plan changes and this request's runs per week.";
    if (sp.points.empty()) c.desc += " No spot line: the job is not marked --interruptible.";
    if (rs.points.empty()) c.desc += " No reserved line: no option in the filters has a commitment price.";
    data_tables += render_table(t, "data-plans");
    return "<figure id=\"fig-plans\">\n" + svg::render(c) + "<figcaption>" + escape(c.desc) +
           "</figcaption>\n" +
           (crossings.empty() ? "<p>The cheapest plan is the same across the range.</p>\n"
                              : "<ul class=\"notes\">\n" + crossings + "</ul>\n") +
           "</figure>\n";
}

// --task serve: the month's cost of the cheapest option against the traffic (log scale: the points
// are 1-2-5 per decade), each point labelled with its replicas where the choice changes.
std::string service_figure(const RecommendReport& report, const std::string& cur, std::string& data_tables) {
    svg::Chart c;
    c.id = "chart-serving";
    c.title = "Monthly cost of the cheapest option against traffic (online service)";
    c.x_label = "requests a day, log10 (3 = 1k, 6 = 1M)";
    c.y_label = cur + " per month";
    svg::Series best{"cheapest option", {}, svg::Marker::circle, kBlue, "", true, true, 3.5};
    TextTable t;
    t.title = "Chart data: the cheapest option at each traffic point (" + cur + " per month)";
    t.columns = {{"REQUESTS/DAY", Align::right}, {"OPTION"},          {"PLAN"},
                 {"REPLICAS", Align::right},     {"COST/MONTH", Align::right}, {cur + "/M TOKENS", Align::right}};
    std::string last;
    for (const auto& p : report.service) {
        if (p.requests_per_day <= 0) continue;
        const double x = std::log10(p.requests_per_day);
        best.points.push_back({x, p.cost_per_month});
        if (p.option != last) c.labels.push_back({{x, p.cost_per_month}, p.option + " x" + std::to_string(p.replicas)});
        last = p.option;
        t.rows.push_back({fmt_number(p.requests_per_day, 0), p.option, label(p.plan), std::to_string(p.replicas),
                          fmt_number(p.cost_per_month, 2),
                          p.cost_per_million_tokens ? fmt_number(*p.cost_per_million_tokens, 3) : "-"});
    }
    c.series.push_back(best);
    if (report.requests_per_day && *report.requests_per_day > 0)
        c.markers.push_back({std::log10(*report.requests_per_day),
                             "this request: " + fmt_number(*report.requests_per_day, 0) + " requests a day", "1 0"});
    c.desc = "For each traffic point (requests a day, on a log10 axis), the monthly cost in " + cur +
             " of the cheapest option that carries its peak under the latency targets, over every plan; "
             "labels name the option and its replicas where the choice changes. The vertical line is this "
             "request's traffic.";
    data_tables += render_table(t, "data-serving");
    return "<figure id=\"fig-serving\">\n" + svg::render(c) + "<figcaption>" + escape(c.desc) +
           "</figcaption>\n</figure>\n";
}

const TextTable* find_table(const TextDocument& doc, TableRole role) {
    for (const auto& t : doc.tables)
        if (t.role == role) return &t;
    return nullptr;
}

std::string recommend_report(const RecommendReport& report, const TextDocument& doc) {
    const auto& recs = report.recommendations;
    const std::string cur = !recs.empty() ? report.currency : "USD";
    std::string o = head("gpuadvise: GPU recommendation for " + report.model_name);
    o += "<header>\n<h1>GPU recommendation: " + escape(report.model_name) + "</h1>\n<p class=\"sub\">" +
         escape(report.task + ", " + report.precision + " precision, " + fmt_number(report.runs_per_week, 1) +
                " runs a week, objective: " + report.objective) +
         ". Made by gpuadvise recommend --format html.</p>\n</header>\n";
    o += "<section id=\"workload\">\n<h2>Workload and assumptions</h2>\n" + render_lead(doc.lead) +
         "</section>\n";
    if (!recs.empty()) {
        const ReportOption& r = recs[0];
        o += "<p class=\"pick\" id=\"top-pick\"><strong>Top pick: " + escape(option_name(r)) + "</strong>, " +
             escape(label(r.plan) + (r.term_months ? " " + term_label(r.term_months) : "")) + ", " +
             escape(fmt_number(r.hours_per_run, 2)) + " h per run (estimate), " +
             escape(fmt_number(r.cost, 2)) + " " + escape(cur) +
             (report.one_off ? " for the job" : " a month") + "; price as of " + escape(r.as_of) + ".</p>\n";
    }
    std::string data_tables;
    o += "<section id=\"charts\">\n<h2>Charts</h2>\n";
    if (!report.feasible_points.empty()) o += cost_time_figure(report, cur, data_tables);
    if (!report.what_if.empty()) o += plans_figure(report, cur, data_tables);
    if (!report.service.empty()) o += service_figure(report, cur, data_tables);
    o += "</section>\n";
    if (const TextTable* t = find_table(doc, TableRole::recommendations))
        o += "<section id=\"options\">\n<h2>Ranked options</h2>\n" + render_table(*t, "ranked-options", 0) +
             "</section>\n";
    if (const TextTable* t = find_table(doc, TableRole::needs_analysis))
        o += "<section id=\"steps\">\n<h2>The four steps</h2>\n" + render_table(*t, "needs-analysis") +
             "</section>\n";
    o += "<section id=\"warnings\">\n<h2>Warnings and price dates</h2>\n";
    std::vector<std::string> warnings = report.warnings;
    for (const auto& r : recs)
        for (const auto& x : r.warnings) warnings.push_back("#" + std::to_string(r.rank) + ": " + x);
    if (warnings.empty())
        o += "<p>No warnings.</p>\n";
    else {
        o += "<ul class=\"notes warning\">\n";
        for (const auto& x : warnings) o += "<li>" + escape(x) + "</li>\n";
        o += "</ul>\n";
    }
    TextTable dates;
    dates.title = "Prices of the ranked options: as-of date and source";
    dates.columns = {{"#", Align::right}, {"OPTION"}, {"PRICE AS OF"}, {"SOURCE"}};
    for (const auto& r : recs)
        dates.rows.push_back({std::to_string(r.rank), option_name(r), r.as_of, r.source});
    if (!dates.rows.empty()) o += render_table(dates, "price-dates");
    for (const auto& rate : report.rates)
        o += "<p>Exchange rate: 1 " + escape(rate.currency) + " = " +
             escape(fmt_number(rate.usd_per_unit, 4)) + " USD, as of " + escape(rate.as_of) + ".</p>\n";
    o += "</section>\n";
    o += "<section id=\"notes\">\n<h2>Notes</h2>\n" + render_notes(doc.notes) + "</section>\n";
    if (!data_tables.empty())
        o += "<section id=\"chart-data\">\n<h2>Chart data</h2>\n" + data_tables + "</section>\n";
    return o + kFoot;
}

std::string generic_report(const std::string& title, const std::vector<std::string>& warnings,
                           const TextDocument& doc) {
    std::string o = head("gpuadvise: " + title);
    o += "<header>\n<h1>" + escape(title) + "</h1>\n</header>\n";
    if (!doc.lead.empty()) o += "<section id=\"lead\">\n" + render_lead(doc.lead) + "</section>\n";
    for (std::size_t i = 0; i < doc.tables.size(); ++i)
        o += "<section>\n" + render_table(doc.tables[i], "table-" + std::to_string(i + 1)) + "</section>\n";
    if (!warnings.empty())
        o += "<section id=\"warnings\">\n<h2>Warnings</h2>\n" + render_notes(warnings) + "</section>\n";
    if (!doc.notes.empty())
        o += "<section id=\"notes\">\n<h2>Notes</h2>\n" + render_notes(doc.notes) + "</section>\n";
    return o + kFoot;
}

}  // namespace

std::string render_html(const RecommendReport& report, const TextDocument& doc) {
    return recommend_report(report, doc);
}

std::string render_html(const std::string& title, const std::vector<std::string>& warnings,
                        const TextDocument& doc) {
    return generic_report(title, warnings, doc);
}

}  // namespace gpuadvise::io
