// The configuration file reader (io/user_config.hpp): keys, types and located errors.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "gpuadvise/base/errors.hpp"
#include "io/user_config.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_user_config {

using namespace gpuadvise;

namespace {

std::vector<std::string> errors_of(const std::string& text) {
    try {
        io::parse_user_config(text, "config.yaml");
    } catch (const DataError& e) {
        std::vector<std::string> out;
        for (const auto& d : e.details()) out.push_back(format_diagnostic(d));
        return out;
    }
    return {};
}

}  // namespace

TEST_CASE("config: every key, scalars and lists, with the place of each value", "[io]") {
    const auto c = io::parse_user_config(
        "currency: CNY\nobjective: time\ntop: 3\nproviders: [aws, gcp]\n"
        "exclude_providers: vast\n",
        "config.yaml");
    REQUIRE(c.settings.size() == 5);
    CHECK(c.find("currency")->values == std::vector<std::string>{"CNY"});
    CHECK(c.find("currency")->where.line == 1);
    CHECK(c.find("currency")->where.column == 11);
    CHECK(c.find("top")->values == std::vector<std::string>{"3"});
    CHECK(c.find("providers")->values == std::vector<std::string>{"aws", "gcp"});
    CHECK(c.find("exclude_providers")->values ==
          std::vector<std::string>{"vast"});  // one id without brackets
    CHECK(c.find("exclude_providers")->where.line == 5);
}

TEST_CASE("config: an empty file or only comments means every default", "[io]") {
    CHECK(io::parse_user_config("", "config.yaml").settings.empty());
    CHECK(io::parse_user_config("# nothing yet\n", "config.yaml").settings.empty());
}

TEST_CASE("config: unknown keys, wrong types and broken YAML are located errors", "[io]") {
    auto e = errors_of("currency: CNY\ncurency: EUR\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0].rfind("config.yaml:2:1: error:", 0) == 0);
    CHECK(e[0].find("did you mean 'currency'") != std::string::npos);

    e = errors_of("top: [1, 2]\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0].rfind("config.yaml:1:6: error: top:", 0) == 0);

    e = errors_of("providers: {aws: 1}\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0].rfind("config.yaml:1:12: error: providers:", 0) == 0);

    e = errors_of("currency: CNY\n  objective: [time\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0].rfind("config.yaml:", 0) == 0);
    CHECK(e[0].find("invalid YAML") != std::string::npos);

    e = errors_of("- currency\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0].find("expected a mapping") != std::string::npos);

    e = errors_of("objective:\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0].rfind("config.yaml:1:", 0) == 0);
}

TEST_CASE("config: where the file is looked for", "[io]") {
    ::setenv("GPUADVISE_CONFIG", "/tmp/x.yaml", 1);
    CHECK(io::user_config_location()->path == "/tmp/x.yaml");
    CHECK(io::user_config_location()->from == io::ConfigSource::gpuadvise_config);
    ::unsetenv("GPUADVISE_CONFIG");
    const char* old_xdg = std::getenv("XDG_CONFIG_HOME");
    const std::string saved = old_xdg ? old_xdg : "";
    ::setenv("XDG_CONFIG_HOME", "/etc/xdg-test", 1);
    CHECK(io::user_config_location()->path == "/etc/xdg-test/gpuadvise/config.yaml");
    ::setenv("XDG_CONFIG_HOME", "relative/dir", 1);  // not absolute: ignored (XDG base directory spec)
    const auto fallback = io::user_config_location();
    CHECK((!fallback || fallback->from == io::ConfigSource::home));
    if (old_xdg)
        ::setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
    else
        ::unsetenv("XDG_CONFIG_HOME");
}

}  // namespace io_test_user_config
