// Tables and prose that fit the terminal (issue 18): wrapping, column priorities, the hidden-columns line.
#include <catch2/catch.hpp>

#include <sstream>

#include "io/text_table.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_text_table {

using namespace gpuadvise::io;

namespace {

std::size_t widest(const std::string& text) {
    std::istringstream in(text);
    std::size_t w = 0;
    for (std::string line; std::getline(in, line);) w = std::max(w, display_width(line));
    return w;
}

TextDocument sample() {
    TextDocument doc;
    doc.lead.push_back(
        "Workload: a long lead line that says what the job is, which model, which task, how many samples "
        "and how many epochs, far wider than any terminal");
    TextTable t;
    t.columns = {{"PROVIDER"},
                 {"GPU"},
                 {"REGION", Align::left, 2, true},
                 {"PRICE", Align::right},
                 {"USD/TFLOPS-H", Align::right, 5},
                 {"NOTES", Align::left, 1, true}};
    t.rows.push_back(
        {"vast", "rtx-4090 x1", "Romania, RO, EU", "0.28", "0.0035", "pareto, measured, 1 warning"});
    t.rows.push_back({"hyperstack", "a100-80gb-pcie x1", "CANADA-1", "1.35", "0.0043", "stale price"});
    doc.tables.push_back(t);
    doc.notes.push_back(
        {"an assumption listed with a bullet that is long enough to need wrapping at eighty columns or less",
         ListMark::indent_dash});
    return doc;
}

}  // namespace

TEST_CASE("display_width counts code points, not bytes", "[io]") {
    CHECK(display_width("x1") == 2);
    CHECK(display_width("\xC3\x97") == 1);        // ×
    CHECK(display_width("\xE2\x80\x93 a") == 3);  // – a
}

TEST_CASE("wrap_text wraps at spaces with a hanging indent and cuts overlong words", "[io]") {
    CHECK(wrap_text("one two three four five six", 10, 2) ==
          std::vector<std::string>{"one two", "  three", "  four", "  five six"});
    CHECK(wrap_text("one two three four", 14, 2) == std::vector<std::string>{"one two three", "  four"});
    CHECK(wrap_text("abcdefghijkl", 5, 0) == std::vector<std::string>{"abcde", "fghij", "kl"});
    CHECK(wrap_text("short", 80, 2) == std::vector<std::string>{"short"});
}

TEST_CASE("wrap_line keeps a line's own indent and adds two for its continuation lines", "[io]") {
    const auto lines = wrap_line("  - alpha beta gamma delta", 16);
    REQUIRE(lines.size() >= 2);
    CHECK(lines[0].rfind("  - alpha", 0) == 0);
    CHECK(lines[1].rfind("    ", 0) == 0);
}

TEST_CASE("render_table fits the width: wraps text columns, then hides the lowest-priority ones", "[io]") {
    const TextDocument doc = sample();
    const std::string wide = render_table(doc, false, 0);
    CHECK(widest(wide) > 100);
    CHECK(wide.find("Hidden to fit") == std::string::npos);
    for (std::size_t width : {50u, 60u, 80u, 100u, 120u}) {
        const std::string text = render_table(doc, false, width);
        INFO(text);
        CHECK(widest(text) <= width);
    }
    const std::string narrow = render_table(doc, false, 60);
    // Priority 5 goes first: the header line no longer has it, the note under the table names it.
    const std::size_t header = narrow.find("PROVIDER");
    CHECK(narrow.substr(header, narrow.find('\n', header) - header).find("USD/TFLOPS-H") ==
          std::string::npos);
    CHECK(narrow.find("USD/TFLOPS-H") > narrow.find("Hidden to fit"));
    CHECK(narrow.find("PROVIDER") != std::string::npos);  // priority 0 stays
    CHECK(narrow.find("Hidden to fit 60 columns: ") != std::string::npos);
    CHECK(narrow.find("--wide shows") != std::string::npos);
    // Nothing is hidden while wrapping is enough.
    const std::string roomy = render_table(doc, false, 100);
    CHECK(roomy.find("USD/TFLOPS-H") != std::string::npos);
    CHECK(roomy.find("Hidden") == std::string::npos);
}

TEST_CASE("render_table fits even a table with no priorities or wrapping columns", "[io]") {
    TextDocument doc;
    TextTable t;
    t.columns = {{"A"}, {"B"}, {"C", Align::right}};
    t.rows.push_back({std::string(40, 'a'), std::string(40, 'b'), std::string(30, '9')});
    doc.tables.push_back(t);
    CHECK(widest(render_table(doc, false, 80)) <= 80);
}

TEST_CASE("render_table never hides a column that tells two rows apart (#29)", "[io]") {
    TextDocument doc;
    TextTable t;
    // REGION would go first (priority 3), but the two rows differ only there: NOTE goes instead.
    t.columns = {{"PROVIDER"}, {"REGION", Align::left, 3}, {"PRICE", Align::right}, {"NOTE", Align::left, 1}};
    t.rows.push_back({"gcp", "europe-west1", "0.35", "a long note of twenty"});
    t.rows.push_back({"gcp", "us-central1", "0.35", "a long note of twenty"});
    doc.tables.push_back(t);
    const std::string text = render_table(doc, false, 40);
    INFO(text);
    CHECK(text.find("europe-west1") != std::string::npos);
    CHECK(text.find("us-central1") != std::string::npos);
    CHECK(text.find("Hidden to fit 40 columns: NOTE") != std::string::npos);
    // Rows that differ in another shown column too: REGION may go, the highest priority first.
    doc.tables[0].rows[1][2] = "0.36";
    const std::string other = render_table(doc, false, 40);
    INFO(other);
    CHECK(other.find("Hidden to fit 40 columns: REGION") != std::string::npos);
}

TEST_CASE("render_table counts rows that repeat once when it tells rows apart (#32)", "[io]") {
    TextDocument doc;
    TextTable t;
    t.columns = {{"PROVIDER"}, {"REGION", Align::left, 3}, {"PRICE", Align::right}, {"NOTE", Align::left, 1}};
    // Two rows alike in every cell, and one that differs in REGION alone: REGION still tells rows apart.
    for (const char* region : {"europe-west1", "europe-west1", "us-central1"})
        t.rows.push_back({"gcp", region, "0.35", "a long note of twenty"});
    doc.tables.push_back(t);
    const std::string text = render_table(doc, false, 40);
    INFO(text);
    CHECK(text.find("us-central1") != std::string::npos);
    CHECK(text.find("Hidden to fit 40 columns: NOTE") != std::string::npos);
}

}  // namespace io_test_text_table
