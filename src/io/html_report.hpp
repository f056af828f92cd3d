// --format html: one self-contained HTML document (inline CSS and SVG; no script, no network, no
// external font). `recommend` gets the report of docs/report.md (workload, charts, ranked options,
// the four steps, warnings with as-of dates, the charts' data as tables), rendered from a typed view
// of its result; every other command gets its tables and notes as HTML.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/catalog/offer.hpp"
#include "io/text_table.hpp"

namespace gpuadvise::io {

// What the recommend report shows, as the command computed it (cli/cmd_recommend.cpp builds it
// from the core result, with the rounding its JSON has).
struct ReportOption {  // a ranked option or one point of the cost/time chart
    int rank = 0;
    std::string provider, gpu, instance_type, region;
    int gpu_count = 0;
    Plan plan = Plan::on_demand;
    std::optional<int> term_months;  // a reserved option's
    double hours_per_run = 0;        // billed, estimate
    double cost = 0;                 // what the ranking reads: per month, or a one-off job's runs
    bool pareto = false;
    std::string as_of, source;          // ranked options: the price's
    std::vector<std::string> warnings;  // ranked options: theirs
};

struct ReportPlanBest {  // the cheapest option of one plan at one runs-per-week point
    std::string provider, gpu;
    int gpu_count = 0;
    std::optional<int> term_months;  // reserved
    double cost_per_month = 0;
};

struct ReportWhatIfPoint {
    double runs_per_week = 0;
    std::optional<ReportPlanBest> on_demand, reserved, spot;
    std::vector<ReportPlanBest> reserved_by_term;  // shortest term first
};

struct ReportCrossover {
    double runs_per_week = 0;
    Plan from = Plan::on_demand, to = Plan::reserved;
};

struct ReportServicePoint {  // an online service: the cheapest option at one traffic point
    double requests_per_day = 0;
    std::string option;  // "provider gpu xN"
    Plan plan = Plan::on_demand;
    int replicas = 0;
    double cost_per_month = 0;
    std::optional<double> cost_per_million_tokens;
};

struct ReportRate {
    std::string currency;
    double usd_per_unit = 0;
    std::string as_of;
};

struct RecommendReport {
    std::string model_name, task, precision, objective;
    double runs_per_week = 0;
    bool one_off = false;
    std::string currency = "USD";
    std::vector<ReportOption> recommendations;
    std::vector<ReportOption> feasible_points;
    bool feasible_points_capped = false;
    std::vector<ReportWhatIfPoint> what_if;
    std::vector<ReportCrossover> crossovers;
    std::vector<ReportServicePoint> service;  // --task serve: cost per month against traffic
    std::optional<double> requests_per_day;   // --task serve: this request's traffic
    std::vector<std::string> warnings;  // the request's (price ages, exchange rates …)
    std::vector<ReportRate> rates;
};

std::string render_html(const RecommendReport& report, const TextDocument& doc);

// Every other command: its lead, tables and notes, and its warnings, under `title`.
std::string render_html(const std::string& title, const std::vector<std::string>& warnings,
                        const TextDocument& doc);

}  // namespace gpuadvise::io
