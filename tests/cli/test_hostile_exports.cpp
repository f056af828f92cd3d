// Nothing hostile gets through an export (issue #31, class 1 items 5 and 6, and ESC/OSC): every
// command that exports, in every format, on a catalog and a jobs file whose every text field carries
// markup, markdown syntax, a spreadsheet formula and control characters
// (tests/fixtures/hostile/). No raw control character anywhere; no `<` from data unescaped where
// markup means something (markdown, HTML); no CSV or TSV cell a spreadsheet would run; JSON exact.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "run_cli.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace cli_test_hostile_exports {

namespace {

const std::string kDir = std::string(GPUADVISE_SOURCE_DIR) + "/tests/fixtures/";
const std::string kGpu = "evil<script>alert(1)</script>";
const std::string kProvider = "=cmd|' /C calc'!A0<script>alert(1)</script>";

using Run = gpuadvise::testing::CliResult;

Run run(const std::vector<std::string>& args) {
    std::vector<std::string> all{"--no-default-catalog",
                                 "--catalog",
                                 kDir + "hostile/catalog.yaml",
                                 "--catalog",
                                 kDir + "frozen/models.yaml",
                                 "--catalog",
                                 kDir + "frozen/compat.yaml",
                                 "--wide",
                                 "-q"};
    all.insert(all.end(), args.begin(), args.end());
    return gpuadvise::testing::run_args(all);
}

// The first raw control character (C0 but tab, newline and CR; DEL; C1 as UTF-8), or npos.
std::size_t raw_control(const std::string& s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) return i;
        if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
            static_cast<unsigned char>(s[i + 1]) <= 0x9F)
            return i;
    }
    return std::string::npos;
}

// What a spreadsheet would take for a formula: a first character of = + - @, tab or CR, unless the
// cell is a plain number or "-".
bool formula_leading(const std::string& cell) {
    if (cell.empty() || std::string_view("=+-@\t\r").find(cell.front()) == std::string_view::npos)
        return false;
    if (cell == "-") return false;
    const char* first = cell.data() + (cell.front() == '+' ? 1 : 0);
    double v = 0;
    const auto [end, error] = std::from_chars(first, cell.data() + cell.size(), v);
    return error != std::errc() || end != cell.data() + cell.size() || !std::isfinite(v);
}

// RFC 4180 fields (quotes doubled inside quoted fields), every row's.
std::vector<std::string> csv_cells(const std::string& s) {
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false, in_quotes = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (in_quotes) {
            if (c == '"' && i + 1 < s.size() && s[i + 1] == '"')
                cell += '"', ++i;
            else if (c == '"')
                in_quotes = false;
            else
                cell += c;
        } else if (c == '"' && cell.empty() && !quoted) {
            in_quotes = quoted = true;
        } else if (c == ',' || c == '\n') {
            if (c == '\n' && !cell.empty() && cell.back() == '\r') cell.pop_back();
            cells.push_back(cell);
            cell.clear();
            quoted = false;
        } else {
            cell += c;
        }
    }
    CHECK_FALSE(in_quotes);
    if (!cell.empty()) cells.push_back(cell);
    return cells;
}

std::vector<std::string> tsv_cells(const std::string& s) {
    std::vector<std::string> cells;
    std::string cell;
    for (char c : s) {
        if (c == '\t' || c == '\n') {
            cells.push_back(cell);
            cell.clear();
        } else {
            cell += c;
        }
    }
    return cells;
}

// The section names of a command's CSV (from the usage error that lists them).
std::vector<std::string> sections(std::vector<std::string> args) {
    args.insert(args.end(), {"--format", "csv", "--section", "no-such-section"});
    const Run r = run(args);
    REQUIRE(r.exit == 2);
    const std::string marker = "this command's sections: ";
    const auto at = r.err.find(marker);
    REQUIRE(at != std::string::npos);
    std::string list = r.err.substr(at + marker.size());
    list = list.substr(0, list.find('\n'));
    std::vector<std::string> names;
    for (std::size_t from = 0; from <= list.size();) {
        const auto comma = list.find(", ", from);
        names.push_back(list.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
        if (comma == std::string::npos) break;
        from = comma + 2;
    }
    return names;
}

const std::vector<std::vector<std::string>>& commands() {
    static const std::vector<std::vector<std::string>> all{
        {"offers"},
        {"gpus"},
        {"compare", kGpu},
        {"estimate", "--model", "bert", "--task", "finetune", "--gpu", kGpu},
        {"recommend", "--model", "bert", "--task", "finetune", "--runs-per-week", "4"},
        {"plan", kDir + "hostile/jobs.yaml"},
    };
    return all;
}

}  // namespace

TEST_CASE("hostile names: no export writes a raw control character, markup or a formula from data",
          "[cli][export][hostile]") {
    for (const auto& command : commands()) {
        for (const std::string format : {"table", "json", "csv", "tsv", "markdown", "html"}) {
            std::vector<std::vector<std::string>> runs;
            if (format == "csv" || format == "tsv")
                for (const auto& section : sections(command)) {
                    auto args = command;
                    args.insert(args.end(), {"--format", format, "--section", section});
                    runs.push_back(args);
                }
            else {
                auto args = command;
                args.insert(args.end(), {"--format", format});
                runs.push_back(args);
            }
            for (const auto& args : runs) {
                INFO(command.front() << " --format " << format << " (" << args.back() << ")");
                const Run r = run(args);
                INFO(r.err);
                if (r.exit == 2 && r.err.find("this output has none") != std::string::npos)
                    continue;  // a section this run has no rows for (what_if without --what-if)
                REQUIRE(r.exit == 0);
                // The hostile data is there (the checks below look at something)...
                if (args.back() == format) CHECK(r.out.find("alert(1)") != std::string::npos);
                // ...and no raw control character came with it, on stdout or stderr.
                const auto control = raw_control(r.out);
                INFO("near: " << r.out.substr(control == std::string::npos ? 0 : control, 40));
                CHECK(control == std::string::npos);
                CHECK(raw_control(r.err) == std::string::npos);
                if (format == "markdown") {
                    CHECK(r.out.find('<') == std::string::npos);  // every < is from data here: &lt;
                    for (const char* raw : {"*b*", "_i_", "[l](", "`c`", " & "})
                        CHECK(r.out.find(raw) == std::string::npos);
                }
                if (format == "html")
                    for (const char* tag : {"<script", "<img", "<b>", "</b>"})
                        CHECK(r.out.find(tag) == std::string::npos);
                if (format == "csv" || format == "tsv")
                    for (const auto& cell : format == "csv" ? csv_cells(r.out) : tsv_cells(r.out)) {
                        INFO("cell: " << cell);
                        CHECK_FALSE(formula_leading(cell));
                    }
                if (format == "json") {  // exact: the names as the catalog wrote them
                    const auto j = nlohmann::json::parse(r.out);
                    const bool names_providers = command.front() != "gpus" && command.front() != "compare" &&
                                                 command.front() != "estimate";
                    if (names_providers)
                        CHECK(j.dump().find(nlohmann::json(kProvider).dump()) != std::string::npos);
                    CHECK(j.dump().find(nlohmann::json(kGpu).dump()) != std::string::npos);
                }
            }
        }
    }
}

TEST_CASE("csv-raw writes text cells exactly, and numbers are never prefixed", "[cli][export][hostile]") {
    const Run safe = run({"offers", "--format", "csv"});
    REQUIRE(safe.exit == 0);
    CHECK(safe.out.find("'" + kProvider) != std::string::npos);
    const Run raw = run({"offers", "--format", "csv", "--csv-raw"});
    REQUIRE(raw.exit == 0);
    bool exact = false;
    for (const auto& cell : csv_cells(raw.out)) exact = exact || cell == kProvider;
    CHECK(exact);
    CHECK(raw.out.find("'" + kProvider) == std::string::npos);
    // Control characters stay escaped with --csv-raw too.
    CHECK(raw_control(raw.out) == std::string::npos);
    const Run table = run({"offers", "--csv-raw"});
    CHECK(table.exit == 2);
    CHECK(table.err.find("--csv-raw applies to --format csv or tsv") != std::string::npos);
}

TEST_CASE("a negative number stays a number in CSV, a text cell that starts with - gets a '",
          "[cli][export][hostile]") {
    // The instance type is "-cmd ...": text, prefixed. Prices are JSON numbers, never prefixed.
    const Run r = run({"offers", "--format", "csv"});
    REQUIRE(r.exit == 0);
    bool prefixed = false;
    for (const auto& cell : csv_cells(r.out)) prefixed = prefixed || cell.starts_with("'-cmd *b*");
    CHECK(prefixed);
    CHECK(r.out.find(",2.5,") != std::string::npos);
}

}  // namespace cli_test_hostile_exports
