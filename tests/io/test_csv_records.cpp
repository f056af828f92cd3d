// read_csv_records splits plain lines itself and hands every other line to libcsv: the records
// and errors must be what libcsv alone gives (these expectations were checked with the fast path
// switched off).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "io/skypilot_records.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_csv_records {

using namespace gpuadvise;

namespace {

struct Read {
    std::vector<std::vector<std::string>> records;
    std::vector<int> lines;
    std::vector<std::string> errors;
    bool ok = false;
};

Read read(const std::string& bytes) {
    Read r;
    Diagnostics diags;
    r.ok = io::read_csv_records(
        bytes, "t.csv",
        [&](const io::CsvRecord& rec) {
            r.records.emplace_back(rec.fields.begin(), rec.fields.end());
            r.lines.push_back(rec.line);
            return true;
        },
        diags);
    for (const auto& d : diags.all()) r.errors.push_back(format_diagnostic(d));
    return r;
}

using Fields = std::vector<std::string>;

}  // namespace

TEST_CASE("csv records: plain and quoted fields, empty fields, CRLF", "[io]") {
    auto r = read("a,b,c\nx,\"1,2\",y\r\n\"\",,\"z\"\na,b,\n");
    REQUIRE(r.ok);
    REQUIRE(r.records.size() == 4);
    CHECK(r.records[0] == Fields{"a", "b", "c"});
    CHECK(r.records[1] == Fields{"x", "1,2", "y"});
    CHECK(r.records[2] == Fields{"", "", "z"});
    CHECK(r.records[3] == Fields{"a", "b", ""});
    CHECK(r.lines == std::vector<int>{1, 2, 3, 4});
}

TEST_CASE("csv records: doubled quotes, blanks around fields, fields over several lines, blank lines",
          "[io]") {
    auto r = read("\"a\"\"b\",c\n a , b\t\n\"multi\nline\",d\n\nlast,\"  kept  \"");
    REQUIRE(r.ok);
    REQUIRE(r.records.size() == 4);
    CHECK(r.records[0] == Fields{"a\"b", "c"});
    CHECK(r.records[1] == Fields{"a", "b"});  // libcsv trims blanks around unquoted fields
    CHECK(r.records[2] == Fields{"multi\nline", "d"});
    CHECK(r.records[3] == Fields{"last", "  kept  "});
    CHECK(r.lines == std::vector<int>{1, 2, 3, 6});
}

TEST_CASE("csv records: plain lines between irregular ones keep their line numbers and fields", "[io]") {
    std::string bytes = "h1,h2\n";
    for (int i = 0; i < 50; ++i)
        bytes += i % 7 == 3 ? "\"q\"\"\",\"x\ny\"\n" : "p" + std::to_string(i) + ",\"g,i\"\n";
    auto r = read(bytes);
    REQUIRE(r.ok);
    REQUIRE(r.records.size() == 51);
    int line = 2;
    for (int i = 0; i < 50; ++i) {
        CHECK(r.lines[static_cast<std::size_t>(i + 1)] == line);
        if (i % 7 == 3) {
            CHECK(r.records[static_cast<std::size_t>(i + 1)] == Fields{"q\"", "x\ny"});
            line += 2;
        } else {
            CHECK(r.records[static_cast<std::size_t>(i + 1)] == Fields{"p" + std::to_string(i), "g,i"});
            line += 1;
        }
    }
}

TEST_CASE("csv records: a stray quote, text after a closing quote and an unclosed quote are located errors",
          "[io]") {
    auto stray = read("a,b\nc\"d,e\n");
    CHECK_FALSE(stray.ok);
    REQUIRE(stray.errors.size() == 1);
    CHECK(stray.errors[0].rfind("t.csv:2: error: malformed CSV", 0) == 0);
    CHECK(stray.records.size() == 1);

    auto after = read("a,b\n\"c\"d,e\n");
    CHECK_FALSE(after.ok);
    REQUIRE(after.errors.size() == 1);
    CHECK(after.errors[0].rfind("t.csv:2: error: malformed CSV", 0) == 0);

    auto open = read("a,b\nc,\"never closed\nmore\n");
    CHECK_FALSE(open.ok);
    REQUIRE(open.errors.size() == 1);
    CHECK(open.errors[0].rfind(
              "t.csv:2: error: malformed CSV: the quoted field that starts on this line is never closed",
              0) == 0);
}

}  // namespace io_test_csv_records
