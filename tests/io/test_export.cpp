// The CSV, TSV and markdown renderers of io/output.hpp, from hand-made documents ([io]).
#include <catch2/catch.hpp>

#include <sstream>

#include "io/output.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_export {

using gpuadvise::io::Delimited;
using gpuadvise::io::ExportSection;
using gpuadvise::io::JsonItems;
using gpuadvise::io::render_delimited;
using gpuadvise::io::render_json;
using Json = nlohmann::ordered_json;

namespace {

Json sample() {
    return Json::parse(R"({
      "schema_version": 1,
      "items": [
        {"name": "a, \"b\"", "price": 0.1234567, "count": 3, "ok": true, "missing": null,
         "nested": {"x": 1.5, "y": {"z": "deep"}}, "tags": ["p", "q"],
         "subs": [{"plan": "spot", "cost": 2}, {"plan": "on_demand", "cost": 3.25}]},
        {"name": "line\nbreak\ttab\\slash", "price": 1e-07, "count": 0, "ok": false, "extra": "only here",
         "nested": {"x": 2}, "tags": [], "subs": []}
      ],
      "one": {"k": "v", "n": 2},
      "words": ["first", "second"]
    })");
}

}  // namespace

TEST_CASE("csv: one row per item, flattened key names, raw numbers, empty for null, RFC 4180 quoting",
          "[io]") {
    const std::string out = render_delimited(sample(), {"items", "/items", "", {}}, Delimited::csv);
    CHECK(out ==
          "name,price,count,ok,missing,nested.x,nested.y.z,tags,subs,extra\r\n"
          "\"a, \"\"b\"\"\",0.1234567,3,true,,1.5,deep,\"[\"\"p\"\",\"\"q\"\"]\","
          "\"[{\"\"plan\"\":\"\"spot\"\",\"\"cost\"\":2},{\"\"plan\"\":\"\"on_demand\"\",\"\"cost\"\":3.25}]"
          "\",\r\n"
          "\"line\nbreak\ttab\\slash\",1e-07,0,false,,2,,[],[],only here\r\n");
}

TEST_CASE("tsv: tabs, no quoting, tab/newline/CR/backslash escaped", "[io]") {
    const std::string out = render_delimited(sample(), {"items", "/items", "", {}}, Delimited::tsv);
    CHECK(out.find('"' + std::string("a")) == std::string::npos);
    CHECK(out.find("a, \"b\"\t0.1234567\t3\ttrue\t\t1.5\tdeep\t[\"p\",\"q\"]\t") != std::string::npos);
    CHECK(out.find("line\\nbreak\\ttab\\\\slash\t1e-07\t0\tfalse") != std::string::npos);
    CHECK(out.find('\r') == std::string::npos);
}

TEST_CASE(
    "export sections: an exploded array keeps the item's keys; an object is one row; strings one column",
    "[io]") {
    CHECK(render_delimited(sample(), {"subs", "/items", "subs", {"name", "count"}}, Delimited::csv) ==
          "name,count,subs.plan,subs.cost\r\n\"a, \"\"b\"\"\",3,spot,2\r\n\"a, "
          "\"\"b\"\"\",3,on_demand,3.25\r\n");
    CHECK(render_delimited(sample(), {"one", "/one", "", {}}, Delimited::csv) == "k,n\r\nv,2\r\n");
    CHECK(render_delimited(sample(), {"words", "/words", "", {}}, Delimited::csv) ==
          "words\r\nfirst\r\nsecond\r\n");
    CHECK(
        render_delimited(Json::parse(R"({"none": []})"), {"none", "/none", "", {}}, Delimited::csv).empty());
    CHECK_THROWS(render_delimited(sample(), {"absent", "/absent", "", {}}, Delimited::csv));
}

// The document's "items" made one at a time (io::JsonItems), as `offers` writes its listing; `made`
// counts the calls.
JsonItems items_of(const Json& doc, int& made) {
    const Json& items = doc.at("items");
    return {"items", items.size(), [&items, &made](std::size_t i) {
                ++made;
                return items.at(i);
            }};
}

TEST_CASE("export: an array written an item at a time is the same bytes as the whole document (#32)",
          "[io]") {
    Json doc = sample();
    // DEL and a C1 control in an item (written \u007f, \u0085), an item with a nested array of objects.
    doc["items"][1]["name"] = "del\x7f c1\xc2\x85";
    doc["after"] = {{"k", Json::array({1, 2})}};
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}}) {
        Json part = doc;
        part["items"] = Json::array();
        for (std::size_t i = 0; i < n; ++i) part["items"].push_back(doc["items"][i]);
        int made = 0;
        std::ostringstream json;
        gpuadvise::io::write_json(json, part, items_of(part, made));
        INFO(json.str());
        CHECK(json.str() == render_json(part));
        CHECK(made == static_cast<int>(n));
        for (const ExportSection& section : {ExportSection{"items", "/items", "", {}},
                                             ExportSection{"subs", "/items", "subs", {"name", "count"}}})
            for (Delimited kind : {Delimited::csv, Delimited::tsv})
                for (bool exact : {false, true}) {
                    made = 0;
                    std::ostringstream rows;
                    gpuadvise::io::write_delimited(rows, items_of(part, made), section, kind, exact);
                    CHECK(rows.str() == render_delimited(part, section, kind, exact));
                    CHECK(made == static_cast<int>(2 * n));  // once for the columns, once for the rows
                }
    }
    // The items' place in the document is kept, whatever stands there in the document given.
    Json other = doc;
    other["items"] = "ignored";
    int made = 0;
    std::ostringstream json;
    gpuadvise::io::write_json(json, other, items_of(doc, made));
    CHECK(json.str() == render_json(doc));
}

TEST_CASE("export: control characters from a catalog cannot reach the terminal raw", "[io]") {
    const Json doc = Json::parse(R"({"rows": [{"note": "red\u001b[31m"}]})");
    CHECK(render_delimited(doc, {"rows", "/rows", "", {}}, Delimited::csv) == "note\r\nred\\x1b[31m\r\n");
}

TEST_CASE("markdown: the lead as paragraphs and lists, notes as a list, prose escaped", "[io]") {
    gpuadvise::io::TextDocument doc;
    using gpuadvise::io::ListMark;
    doc.lead = {"Workload: bert_large, 4 runs a week",
                {"assumed: batch *32*", ListMark::indent},
                {"assumed: fp16", ListMark::indent},
                "Times are estimates."};
    doc.tables.push_back({"Top options", {{"RANK", gpuadvise::io::Align::right}, {"GPU"}}, {{"1", "a|b"}}});
    doc.notes = {"Assumptions:",
                 {"seq <512>", ListMark::indent_dash},
                 {"install: torch", ListMark::dash},
                 "#1 warning: [x]"};
    CHECK(gpuadvise::io::render_markdown(doc) ==
          "Workload: bert\\_large, 4 runs a week\n"
          "\n"
          "- assumed: batch \\*32\\*\n"
          "- assumed: fp16\n"
          "\n"
          "Times are estimates.\n"
          "\n"
          "### Top options\n"
          "\n"
          "| RANK | GPU |\n"
          "|---:|---|\n"
          "| 1 | a\\|b |\n"
          "\n"
          "- Assumptions:\n"
          "  - seq &lt;512&gt;\n"
          "  - install: torch\n"
          "- #1 warning: \\[x\\]\n");
}

}  // namespace io_test_export
