// What `catalog update` refuses before it replaces a cached file (issue 31): the ECB rates parser
// (io::ecb_rates_yaml) and the YAML guards run before yaml-cpp sees a downloaded file.
#include <catch2/catch.hpp>

#include <string>

#include "io/update_cache.hpp"
#include "io/yaml_context.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_update_checks {

using namespace gpuadvise;

namespace {

const std::string kEcb =
    "<?xml version=\"1.0\"?><gesmes:Envelope><Cube><Cube time='2026-11-27'>\n"
    "<Cube currency='USD' rate='1.0500'/><Cube currency=\"JPY\" rate=\"160.10\"/>\n"
    "</Cube></Cube></gesmes:Envelope>\n";

std::string ecb_error(const std::string& xml) {
    std::string as_of, error;
    long currencies = 0;
    io::ecb_rates_yaml(xml, "http://x/e.xml", as_of, currencies, error);
    return error;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
    return text;
}

}  // namespace

TEST_CASE("ecb_rates_yaml: the daily file gives USD per unit of each currency", "[io]") {
    std::string as_of, error;
    long currencies = 0;
    const std::string yaml = io::ecb_rates_yaml(kEcb, "http://x/e.xml\nrates: []", as_of, currencies, error);
    CHECK(error.empty());
    CHECK(as_of == "2026-11-27");
    CHECK(currencies == 2);  // EUR and JPY
    CHECK(yaml.find("{currency: EUR, usd_per_unit: 1.05,") != std::string::npos);
    CHECK(yaml.find("{currency: JPY, usd_per_unit: 0.006558") != std::string::npos);
    CHECK(yaml.find("e.xml?rates") != std::string::npos);  // a line break in the URL cannot end the comment
}

TEST_CASE("ecb_rates_yaml: a broken or implausible file is refused with the reason", "[io]") {
    CHECK(ecb_error(kEcb.substr(0, kEcb.find("rate=\"160"))).find("does not close") != std::string::npos);
    CHECK(ecb_error(replaced(kEcb, "160.10", "1e-300")).find("JPY: the rate '1e-300' is not a number") !=
          std::string::npos);
    CHECK(ecb_error(replaced(kEcb, "160.10", "-1")).find("JPY: the rate '-1'") != std::string::npos);
    CHECK(ecb_error(replaced(kEcb, "160.10", "abc")).find("JPY: the rate 'abc'") != std::string::npos);
    CHECK(ecb_error(replaced(kEcb, "1.0500", "50")).find("USD: 1 EUR = 50") != std::string::npos);
    CHECK(ecb_error(replaced(kEcb, "2026-11-27", "2026-02-30")).find("not a real date") != std::string::npos);
    CHECK(ecb_error(replaced(kEcb, "2026-11-27", "2999-01-01")).find("in the future") != std::string::npos);
    CHECK(ecb_error(replaced(kEcb, "JPY", "USD")).find("USD: given twice") != std::string::npos);
    CHECK(ecb_error(replaced(kEcb, "JPY", "jpy")).find("'jpy' is not a currency code") != std::string::npos);
    CHECK(ecb_error(replaced(kEcb, "currency='USD'", "currency='CHF'")).find("no USD rate") !=
          std::string::npos);
    CHECK(ecb_error("<html></html>").find("no reference date") != std::string::npos);
    CHECK(ecb_error(replaced(kEcb, "<Cube currency='USD'", "<Cube currency='USD' time='2026-11-28'"))
              .find("more than one reference date") != std::string::npos);
}

TEST_CASE("ecb_rates_yaml: one pass, also over tags that never close", "[io]") {
    // 200,000 "<Cube " and no '>': each tag ends at the next '<' (the old search for '>' from every
    // "<Cube" read the rest of the file each time). The work is measured in bench/bounds.py.
    std::string xml;
    for (int i = 0; i < 200000; ++i) xml += "<Cube ";
    CHECK(ecb_error(xml).find("does not close") != std::string::npos);
    std::string attrs = "<Cube time='2026-11-27' ";
    for (int i = 0; i < 200000; ++i) attrs += "rate rate ";
    CHECK(ecb_error(attrs + ">").find("no USD rate") != std::string::npos);
}

TEST_CASE("YAML guards: nesting and aliases are found before yaml-cpp builds anything", "[io]") {
    SourceLocation where{"f.yml", 0, 0};
    CHECK_FALSE(io::yaml_nesting_too_deep("a:\n  b:\n    c: [1, {d: 2}]\n", where));
    CHECK(io::yaml_nesting_too_deep(std::string(100000, '['), where));
    CHECK(where.line == 1);
    CHECK_FALSE(io::yaml_has_alias("a: 1\nb: '*not an alias'\nc: 2 * 3\n", where));
    CHECK(io::yaml_has_alias("a: &x [1, 2]\nb: [*x, *x]\n", where));
    CHECK(where.line == 2);
    CHECK(where.column == 5);
}

}  // namespace io_test_update_checks
