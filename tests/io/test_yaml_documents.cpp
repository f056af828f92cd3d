// What yaml-cpp lets through, refused alike by the catalog, jobs and configuration readers
// (io/yaml_context.hpp load_yaml_document, invalid_utf8_message; issue #31): a quoted value left open at
// the end of the file, a second YAML document, text that is not UTF-8; CR-only line ends are read as
// line ends. Plus the jobs file's empty values and the catalog's provider ids.
#include <catch2/catch.hpp>

#include "gpuadvise/base/errors.hpp"
#include "io/catalog_loader.hpp"
#include "io/commitment_tables.hpp"
#include "io/jobs_yaml.hpp"
#include "io/user_config.hpp"
#include "io/yaml_context.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_yaml_documents {

using namespace gpuadvise;

namespace {

const Catalog& builtin() {
    static const Catalog c = io::load_catalog(io::CatalogOptions{});
    return c;
}

std::vector<std::string> details(const DataError& e) {
    std::vector<std::string> out;
    for (const auto& d : e.details()) out.push_back(format_diagnostic(d));
    return out;
}

std::vector<std::string> jobs_errors(const std::string& text) {
    try {
        io::parse_jobs_yaml(text, "jobs.yaml", builtin(), "USD");
    } catch (const DataError& e) {
        return details(e);
    }
    return {};
}

std::vector<std::string> config_errors(const std::string& text) {
    try {
        io::parse_user_config(text, "config.yaml");
    } catch (const DataError& e) {
        return details(e);
    }
    return {};
}

std::vector<std::string> catalog_errors(const std::string& yaml) {
    Catalog c;
    std::vector<io::TableRef> tables;
    Diagnostics d;
    io::parse_catalog_yaml(yaml, "t.yaml", false, ".", c, tables, d);
    std::vector<std::string> out;
    for (const auto& x : d.all())
        if (x.severity == Severity::error) out.push_back(format_diagnostic(x));
    return out;
}

bool starts(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

TEST_CASE("yaml: a quoted value open at the end of the file is located at its opening quote", "[io]") {
    // yaml-cpp alone takes `name: "abc` plus a line break as the value "abc".
    auto e = jobs_errors("jobs:\n  - model: bert\n    name: \"abc\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0] ==
          "jobs.yaml:3:11: error: the quoted value that starts here (\") is not closed before the end of the "
          "file; add its closing \"");
    e = jobs_errors("jobs:\n  - model: bert\n    name: 'abc\n\n# more\n");  // it runs over the lines after it
    REQUIRE(e.size() == 1);
    CHECK(starts(e[0], "jobs.yaml:3:11: error: the quoted value that starts here (') is not closed"));
    e = jobs_errors("jobs:\n  - model: bert\n    name: \"abc");  // no line break at the end
    REQUIRE(e.size() == 1);
    CHECK(starts(e[0], "jobs.yaml:3:11: error: the quoted value that starts here (\")"));

    e = catalog_errors("gpus:\n  - id: \"x\n");
    REQUIRE(e.size() == 1);
    CHECK(starts(e[0], "t.yaml:2:9: error: the quoted value that starts here (\") is not closed"));
    e = config_errors("currency: 'EUR\n");
    REQUIRE(e.size() == 1);
    CHECK(starts(e[0], "config.yaml:1:11: error: the quoted value that starts here (')"));

    // Closed quotes, and quotes inside values, are untouched.
    const auto jobs = io::parse_jobs_yaml("jobs:\n  - {name: \"a b\", model: bert, team: 'it''s'}\n",
                                          "jobs.yaml", builtin(), "USD");
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].name == "a b");
    CHECK(jobs[0].team == "it's");
    CHECK(io::parse_user_config("currency: \"EUR\"\n", "config.yaml").find("currency")->values[0] == "EUR");
    // Other errors at the end of the file keep yaml-cpp's message and place (the end of the file).
    e = config_errors("providers: [aws, gcp\n");
    REQUIRE(e.size() == 1);
    CHECK(starts(e[0], "config.yaml:2:1: error: invalid YAML: "));
    CHECK(e[0].find("invalid YAML") != std::string::npos);
}

TEST_CASE("yaml: a second document is an error naming its line", "[io]") {
    auto e = jobs_errors("jobs:\n  - {name: a, model: bert}\n---\njobs:\n  - {name: b, model: bert}\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0] ==
          "jobs.yaml:3:1: error: a second YAML document starts here ('---'); the file holds one document: "
          "remove the line (and merge what follows it into the first document)");
    e = jobs_errors("jobs:\n  - {name: a, model: bert}\n...\n# end\njobs: []\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0] ==
          "jobs.yaml:5:1: error: text after the end of the document ('...' on line 3) is a second YAML "
          "document; the file holds one document: remove the '...' line");
    e = catalog_errors("schema_version: 1\n--- \ngpus: []\n");
    REQUIRE(e.size() == 1);
    CHECK(starts(e[0], "t.yaml:2:1: error: a second YAML document starts here ('---')"));
    e = config_errors("currency: EUR\n---\n");  // an empty second document too
    REQUIRE(e.size() == 1);
    CHECK(starts(e[0], "config.yaml:2:1: error: a second YAML document starts here"));

    // One document with its markers is fine: comments and a directive before '---', '...' at the end.
    CHECK(io::parse_jobs_yaml("# jobs\n%YAML 1.2\n---\njobs:\n  - {model: bert}\n...\n# done\n", "jobs.yaml",
                              builtin(), "USD")
              .size() == 1);
    // '---' inside a value is no marker.
    CHECK(io::parse_jobs_yaml("jobs:\n  - {name: a---b, model: bert}\n  - {name: '---', model: bert}\n",
                              "jobs.yaml", builtin(), "USD")
              .size() == 2);
}

TEST_CASE("yaml: the GCP price file and yaml-cpp's own depth limit go through the same loader", "[io]") {
    Diagnostics d;
    io::read_gcp_pricing("about: {generated: x}\n---\ncompute: {}\n", "pricing.yml", d);
    REQUIRE(d.error_count() == 1);
    CHECK(starts(format_diagnostic(d.all()[0]),
                 "pricing.yml:2:1: error: the GCP price file: a second YAML document starts here ('---')"));
    // Behind the readers' nesting guard (64) yaml-cpp's limit is never reached; called directly it
    // names the depth instead of yaml-cpp's "bad file".
    io::YamlLoadError error;
    CHECK_FALSE(
        io::load_yaml_document(std::string(600, '[') + std::string(600, ']') + "\n", "deep.yaml", error));
    CHECK(error.where.file.str() == "deep.yaml");
    CHECK(error.message == "nesting deeper than 500 levels (the YAML reader's limit); flatten the file");
}

TEST_CASE("yaml: CR-only line ends are line ends (YAML's b-break), CRLF too", "[io]") {
    // yaml-cpp alone reads a CR-only file as one line: "unknown key 'jobs:\x0d...'".
    const auto cr = io::parse_jobs_yaml("jobs:\r  - {name: a, model: bert}\r  - name: b\r    model: bert\r",
                                        "jobs.yaml", builtin(), "USD");
    REQUIRE(cr.size() == 2);
    CHECK(cr[0].name == "a");
    CHECK(cr[1].name == "b");
    const auto crlf =
        io::parse_jobs_yaml("jobs:\r\n  - {name: a, model: bert}\r\n", "jobs.yaml", builtin(), "USD");
    REQUIRE(crlf.size() == 1);
    CHECK(crlf[0].name == "a");
    // Errors are located on the lines the CRs end.
    const auto e = jobs_errors("jobs:\r  - name: a\r    modle: bert\r");
    REQUIRE(e.size() == 2);
    CHECK(starts(e[0], "jobs.yaml:3:5: error: jobs[0].modle: unknown key 'modle'"));
    CHECK(io::parse_user_config("currency: EUR\rtop: 3\r", "config.yaml").settings.size() == 2);
    // The nesting guard counts CR-only lines too (yaml-cpp would recurse once per level).
    std::string deep = "a:\r";
    for (int i = 1; i < 200; ++i) deep += std::string(static_cast<std::size_t>(i), ' ') + "a:\r";
    const auto d = config_errors(deep);
    REQUIRE(d.size() == 1);
    CHECK(d[0].find("nesting deeper than 64 levels") != std::string::npos);
}

TEST_CASE("yaml: text that is not UTF-8 is a located error in jobs and configuration files", "[io]") {
    auto e = jobs_errors("jobs:\n  - {name: caf\xE9, model: bert}\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0] ==
          "jobs.yaml:2:15: error: invalid UTF-8 (byte 0xE9); save the file as UTF-8 (a Latin-1 or "
          "Windows-1252 file needs converting, e.g. with iconv)");
    e = jobs_errors("jobs:\r  - {name: caf\xE9, model: bert}\r");  // CR-only lines are counted too
    REQUIRE(e.size() == 1);
    CHECK(starts(e[0], "jobs.yaml:2:15: error: invalid UTF-8 (byte 0xE9)"));
    e = config_errors("currency: EUR\ntop: \xFF\n");
    REQUIRE(e.size() == 1);
    CHECK(starts(e[0], "config.yaml:2:6: error: invalid UTF-8 (byte 0xFF)"));
    e = catalog_errors("gpus:\n  - id: \xC0\xAF\n");  // an overlong form, as before
    REQUIRE(e.size() == 1);
    CHECK(starts(e[0], "t.yaml:2:9: error: invalid UTF-8 (byte 0xC0)"));
    // UTF-8 names are fine.
    CHECK(io::parse_jobs_yaml("jobs:\n  - {name: café, model: bert}\n", "jobs.yaml", builtin(), "USD")[0]
              .name == "café");
}

TEST_CASE("jobs file: an empty name, pool, days, region, provider, gpu or schedule is a located error",
          "[io]") {
    const auto e = jobs_errors(
        "jobs:\n"
        "  - {name: '', model: bert}\n"
        "  - {name: ' ', model: bert}\n"
        "  - {name: c, pool: '', model: bert}\n"
        "  - {name: d, days: '', model: bert}\n"
        "  - {name: e, region: '', model: bert}\n"
        "  - {name: f, region: [us-east-1, ''], model: bert}\n"
        "  - {name: g, provider: '', model: bert}\n"
        "  - {name: h, gpu: '', schedule: '', model: bert}\n");
    REQUIRE(e.size() == 9);
    CHECK(e[0] ==
          "jobs.yaml:2:12: error: jobs[0].name: the value is empty; give one, or remove the 'name:' line");
    CHECK(starts(e[1], "jobs.yaml:3:12: error: jobs[1].name: the value is empty"));
    CHECK(starts(e[2], "jobs.yaml:4:21: error: jobs[2].pool: the value is empty"));
    CHECK(starts(e[3], "jobs.yaml:5:21: error: jobs[3].days: the value is empty"));
    CHECK(e[4] == "jobs.yaml:6:23: error: jobs[4].region: an empty region; give one, or remove it");
    CHECK(starts(e[5], "jobs.yaml:7:35: error: jobs[5].region[1]: an empty region"));
    CHECK(starts(e[6], "jobs.yaml:8:25: error: jobs[6].provider: an empty provider"));
    CHECK(starts(e[7], "jobs.yaml:9:20: error: jobs[7].gpu: the value is empty"));
    CHECK(starts(e[8], "jobs.yaml:9:34: error: jobs[7].schedule: the value is empty"));
}

TEST_CASE("catalog: provider ids are unique ignoring case and not empty, within a file and over the built-in",
          "[io]") {
    const std::string p = ", as_of: 2026-11-01, source: test}\n";
    auto e = catalog_errors("providers:\n  - {id: lab" + p + "  - {id: LAB" + p + "  - {id: lab" + p +
                            "  - {id: ''" + p);
    REQUIRE(e.size() == 3);
    CHECK(e[0] ==
          "t.yaml:3:10: error: providers[1].id: 'LAB' is already the id of an earlier provider in this file "
          "(providers[0], 'lab'; ids match ignoring case); give each provider its own id, or merge the two");
    CHECK(
        starts(e[1], "t.yaml:4:10: error: providers[2].id: 'lab' is already the id of an earlier provider"));
    CHECK(e[2] ==
          "t.yaml:5:10: error: providers[3].id: the provider id is empty; give the id used in --provider");

    // 'AWS' in a user file beside the built-in 'aws': one provider nothing could select, so an error.
    const std::string file = std::string(GPUADVISE_SOURCE_DIR) + "/tests/fixtures/provider-id-case.yaml";
    io::CatalogOptions options;
    options.files = {file};
    try {
        io::load_catalog(options);
        FAIL("expected a DataError");
    } catch (const DataError& x) {
        const auto d = details(x);
        bool found = false;
        for (const auto& line : d)
            found = found || starts(line, file +
                                              ":2:5: error: provider id 'AWS' differs from the earlier "
                                              "provider 'aws' (");
        CHECK(found);
    }
    // The exact id replaces the built-in provider, as before.
    options.files = {std::string(GPUADVISE_SOURCE_DIR) + "/tests/fixtures/override.yaml"};
    options.builtin = false;
    options.files.insert(options.files.begin(),
                         std::string(GPUADVISE_SOURCE_DIR) + "/tests/fixtures/mini.yaml");
    CHECK(io::load_catalog(options).find_provider("cheapco"));
}

}  // namespace io_test_yaml_documents
