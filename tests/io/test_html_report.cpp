// The HTML report's pieces (issue 18): the SVG chart writer's ticks, labels, escaping and output, and
// the HTML renderer's escaping and structure. The report as a browser shows it: tests/report/.
#include <catch2/catch.hpp>

#include "io/html_report.hpp"
#include "io/svg_chart.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_html_report {

using namespace gpuadvise::io;

TEST_CASE("nice_scale picks 1-2-5 steps and widens the range to whole steps", "[io]") {
    auto s = svg::nice_scale(0, 87, 8);  // 87 / 8 = 10.9 a step: 20
    CHECK(s.step == Approx(20));
    CHECK(s.min == 0);
    CHECK(s.max == Approx(100));
    CHECK(s.ticks.size() == 6);
    s = svg::nice_scale(0, 80, 8);  // exactly 10 a step
    CHECK(s.step == Approx(10));
    CHECK(s.ticks.size() == 9);
    s = svg::nice_scale(0.3, 2.7, 10);
    CHECK(s.step == Approx(0.5));
    CHECK(s.min == 0);
    CHECK(s.max == Approx(3));
    s = svg::nice_scale(1200, 9100, 8);
    CHECK(s.step == Approx(1000));
    CHECK(s.min == Approx(1000));
    CHECK(s.max == Approx(10000));
    s = svg::nice_scale(5, 5, 8);  // one value: still a range with ticks
    CHECK(s.max > s.min);
    CHECK(s.ticks.size() >= 2);
}

TEST_CASE("tick labels carry the decimals the step needs and thousands separators", "[io]") {
    CHECK(svg::tick_label(1500, 500) == "1,500");
    CHECK(svg::tick_label(1234567, 1000) == "1,234,567");
    CHECK(svg::tick_label(0.25, 0.05) == "0.25");
    CHECK(svg::tick_label(2.5, 0.5) == "2.5");
    CHECK(svg::tick_label(20, 10) == "20");
    CHECK(svg::tick_label(-1000, 500) == "-1,000");
}

TEST_CASE("escape covers the five HTML specials", "[io]") {
    CHECK(svg::escape("<a href=\"x\">Tom & 'Jerry'</a>") ==
          "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;");
}

TEST_CASE(
    "a chart has its title, desc, axis labels, ticks, markers and escaped text, the same bytes every time",
    "[io]") {
    svg::Chart c;
    c.id = "c1";
    c.title = "Cost <per> month";
    c.desc = "what & why";
    c.x_label = "hours per run";
    c.y_label = "USD per month";
    c.series.push_back(
        {"on-demand", {{1, 100}, {2, 250}}, svg::Marker::circle, "#0072B2", "", false, true, 4});
    c.series.push_back(
        {"front <1>", {{1, 100}, {2, 250}}, svg::Marker::square, "#D55E00", "7 4", true, false, 4});
    c.labels.push_back({{1, 100}, "#1 alpha & co"});
    c.markers.push_back({1.5, "reserved takes over", "4 3"});
    const std::string out = svg::render(c);
    CHECK(out.find("<title id=\"c1-title\">Cost &lt;per&gt; month</title>") != std::string::npos);
    CHECK(out.find("<desc id=\"c1-desc\">what &amp; why</desc>") != std::string::npos);
    CHECK(out.find(">hours per run</text>") != std::string::npos);
    CHECK(out.find(">USD per month</text>") != std::string::npos);
    CHECK(out.find(">250</text>") != std::string::npos);  // a y tick (0..250 by 50)
    CHECK(out.find("stroke-dasharray=\"7 4\"") != std::string::npos);
    CHECK(out.find("<rect x=") != std::string::npos);  // the square markers
    CHECK(out.find("<circle") != std::string::npos);   // the circles
    CHECK(out.find("#1 alpha &amp; co") != std::string::npos);
    CHECK(out.find("front &lt;1&gt;") != std::string::npos);
    CHECK(out.find("reserved takes over") != std::string::npos);
    CHECK(out.find("<script") == std::string::npos);
    CHECK(svg::render(c) == out);
}

TEST_CASE("render_html escapes every text and is self-contained", "[io]") {
    TextDocument doc;
    doc.lead.push_back("Workload: <b>bold</b>");
    doc.lead.push_back({"assumed: a & b", ListMark::indent});
    TextTable t;
    t.title = "T <1>";
    t.columns = {{"NAME"}, {"N", Align::right}};
    t.rows.push_back({"<script>alert(1)</script>", "3"});
    doc.tables.push_back(t);
    doc.notes.push_back("note \"quoted\"");
    doc.notes.push_back({"an item \x1b]0;x\x07 of it", ListMark::indent_dash});
    const std::string html = render_html("gpuadvise", {"old <price>"}, doc);
    CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
    CHECK(html.find("<li>assumed: a &amp; b</li>") != std::string::npos);
    CHECK(html.find("<caption>T &lt;1&gt;</caption>") != std::string::npos);
    CHECK(html.find("<td class=\"num\">3</td>") != std::string::npos);
    CHECK(html.find("old &lt;price&gt;") != std::string::npos);
    // A list item of a note is a list nested in that note; its control characters are \xNN.
    CHECK(
        html.find("<li>note &quot;quoted&quot;\n<ul>\n<li>an item \\x1b]0;x\\x07 of it</li>\n</ul></li>\n") !=
        std::string::npos);
    CHECK(html.find("@media print") != std::string::npos);
    CHECK(html.find("<link") == std::string::npos);
}

TEST_CASE("the recommend report reads its typed view: plans by their enum, terms, one-off costs", "[io]") {
    RecommendReport r;
    r.model_name = "bert <large>";
    r.task = "finetune";
    r.precision = "mixed";
    r.objective = "cost";
    r.runs_per_week = 4;
    ReportOption top;
    top.rank = 1;
    top.provider = "alpha";
    top.gpu = "a100-80gb-sxm";
    top.gpu_count = 1;
    top.plan = gpuadvise::Plan::reserved;
    top.term_months = 12;
    top.hours_per_run = 2.5;
    top.cost = 1150;
    top.as_of = "2026-11-01";
    top.warnings = {"stale \x1b[31m"};
    r.recommendations.push_back(top);
    ReportOption spot = top;
    spot.rank = 2;
    spot.plan = gpuadvise::Plan::spot;
    spot.term_months.reset();
    r.feasible_points = {top, spot};
    r.crossovers.push_back({12.5, gpuadvise::Plan::on_demand, gpuadvise::Plan::reserved});
    r.what_if.push_back(
        {1, ReportPlanBest{"alpha", "t4", 1, std::nullopt, 10}, std::nullopt, std::nullopt, {}});
    const std::string html = render_html(r, TextDocument{});
    CHECK(html.find("GPU recommendation: bert &lt;large&gt;") != std::string::npos);
    CHECK(html.find("<strong>Top pick: alpha a100-80gb-sxm x1</strong>, reserved 1y, 2.50 h per run") !=
          std::string::npos);
    CHECK(html.find("1150.00 USD a month") != std::string::npos);
    CHECK(html.find("<li>#1: stale \\x1b[31m</li>") != std::string::npos);
    CHECK(html.find("At 12.50 runs a week reserved becomes cheaper than on-demand.") != std::string::npos);
    CHECK(html.find("<td>spot</td>") != std::string::npos);  // the chart data's plan column
    r.one_off = true;
    CHECK(render_html(r, TextDocument{}).find("1150.00 USD for the job") != std::string::npos);
    CHECK(html.find("src=") == std::string::npos);
    CHECK(html.rfind("</html>\n") == html.size() - 8);
}

}  // namespace io_test_html_report
