// What an installed gpuadvise adds (issue 16): --version, the man pages and completion scripts
// generated from the command tree, the configuration file applied under the command line.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "run_cli.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace cli_test_install {

namespace {

using Run = gpuadvise::testing::CliResult;

Run run(const std::vector<std::string>& args) { return gpuadvise::testing::run_args(args); }

// GPUADVISE_CONFIG pointing at a file with `text` for the lifetime of this object.
struct ConfigFile {
    std::string path;
    explicit ConfigFile(const std::string& text) {
        path = (std::filesystem::temp_directory_path() /
                ("gpuadvise-test-config-" + std::to_string(::getpid()) + ".yaml"))
                   .string();
        std::ofstream(path) << text;
        ::setenv("GPUADVISE_CONFIG", path.c_str(), 1);
    }
    ~ConfigFile() {
        ::unsetenv("GPUADVISE_CONFIG");
        std::filesystem::remove(path);
    }
};

}  // namespace

TEST_CASE("version: --version names the version, the built-in catalog's date and the commit", "[cli]") {
    Run r = run({"--version"});
    REQUIRE(r.exit == 0);
    CHECK(std::regex_search(r.out, std::regex("^gpuadvise " GPUADVISE_VERSION_FOR_TESTS "\n")));
    CHECK(std::regex_search(r.out, std::regex("\nbuilt-in catalog: 20[0-9]{2}-[0-9]{2}-[0-9]{2} ")));
    CHECK(std::regex_search(r.out, std::regex("\ncommit: ([0-9a-f]{12}(-dirty)?|unknown)\n$")));
}

TEST_CASE("man pages: one per visible command, every section, every option of the command", "[cli]") {
    Run root = run({"man"});
    REQUIRE(root.exit == 0);
    for (const char* section :
         {".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH GLOBAL OPTIONS", ".SH COMMANDS",
          ".SH EXIT STATUS", ".SH ENVIRONMENT", ".SH FILES", ".SH EXAMPLES", ".SH SEE ALSO"})
        CHECK(root.out.find(section) != std::string::npos);
    for (const char* word : {"GPUADVISE_CATALOG", "GPUADVISE_CONFIG", "GPUADVISE_TODAY", "NO_COLOR",
                             "XDG_CONFIG_HOME", "config.yaml", "\\fB\\-\\-currency\\fR", "\\fBrecommend\\fR"})
        CHECK(root.out.find(word) != std::string::npos);
    CHECK(root.out.find("\\fBman\\fR") == std::string::npos);  // hidden commands have no page
    CHECK(root.out.find("__complete") == std::string::npos);

    Run rec = run({"man", "recommend"});
    REQUIRE(rec.exit == 0);
    CHECK(rec.out.find(".TH GPUADVISE\\-RECOMMEND 1") != std::string::npos);
    for (const char* opt : {"\\fB\\-\\-runs\\-per\\-week\\fR", "\\fB\\-m\\fR, \\fB\\-\\-model\\fR",
                            "\\fB\\-\\-objective\\fR", "\\fB\\-\\-no\\-grad\\-checkpointing\\fR"})
        CHECK(rec.out.find(opt) != std::string::npos);
    CHECK(rec.out.find("gpuadvise recommend \\-\\-model bert \\-\\-runs\\-per\\-week 4") !=
          std::string::npos);

    Run bad = run({"man", "recomend"});
    CHECK(bad.exit == 2);
    CHECK(bad.err.find("did you mean 'recommend'") != std::string::npos);
}

TEST_CASE("completion scripts come from the command table and the options' own choices", "[cli]") {
    Run bash = run({"completion", "bash"});
    REQUIRE(bash.exit == 0);
    CHECK(bash.out.find("complete -F _gpuadvise gpuadvise") != std::string::npos);
    CHECK(bash.out.find("'on-demand reserved reserved-1m reserved-1y reserved-3y spot'") !=
          std::string::npos);  // offers --plan's IsMember
    CHECK(bash.out.find("'train finetune lora qlora serve batch-inference inference'") !=
          std::string::npos);  // --task's type name
    CHECK(bash.out.find("\"|config\") return 0") != std::string::npos);
    CHECK(bash.out.find("\"|man\"") == std::string::npos);  // hidden
    Run zsh = run({"completion", "zsh"});
    CHECK(zsh.out.rfind("#compdef gpuadvise\n", 0) == 0);
    Run fish = run({"completion", "fish"});
    CHECK(fish.out.find("complete -c gpuadvise -l format -x -a 'table json csv tsv markdown html'") !=
          std::string::npos);
    Run bad = run({"completion", "tcsh"});
    CHECK(bad.exit == 2);
}

TEST_CASE("__complete lists the catalog's GPU names, presets and provider ids, one a line", "[cli]") {
    Run gpus = run({"__complete", "gpus"});
    REQUIRE(gpus.exit == 0);
    CHECK(gpus.out.find("\nA100\n") != std::string::npos);
    CHECK(gpus.out.find("\na100-80gb-sxm\n") != std::string::npos);
    CHECK(gpus.out.find("A100 80GB PCIe") == std::string::npos);  // names with spaces are not words
    Run models = run({"__complete", "models"});
    CHECK(models.out.find("\nllama-2-7b\n") != std::string::npos);
    Run providers = run({"__complete", "providers"});
    CHECK(providers.out.find("aws\n") != std::string::npos);
}

TEST_CASE("the configuration file sets defaults; the command line overrides them", "[cli]") {
    ConfigFile config("currency: CNY\nobjective: time\ntop: 2\n");
    Run r = run({"recommend", "--model", "bert", "--json"});
    REQUIRE(r.exit == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["workload"]["objective"] == "time");
    CHECK(j["recommendations"].size() == 2);
    CHECK(j["recommendations"][0]["currency"] == "CNY");
    r = run(
        {"recommend", "--model", "bert", "--json", "--currency", "USD", "--top", "3", "--objective", "cost"});
    REQUIRE(r.exit == 0);
    j = nlohmann::json::parse(r.out);
    CHECK(j["workload"]["objective"] == "cost");
    CHECK(j["recommendations"].size() == 3);
    CHECK(j["recommendations"][0]["currency"] == "USD");

    Run show = run({"--currency", "EUR", "config", "show", "--json"});
    REQUIRE(show.exit == 0);
    j = nlohmann::json::parse(show.out);
    CHECK(j["config_file"]["path"] == config.path);
    CHECK(j["config_file"]["from"] == "environment GPUADVISE_CONFIG");
    CHECK(j["settings"][0]["key"] == "currency");
    CHECK(j["settings"][0]["value"] == "EUR");
    CHECK(j["settings"][0]["from"] == "command line");
    CHECK(j["settings"][1]["key"] == "objective");
    CHECK(j["settings"][1]["from"] == "config");
    CHECK(j["settings"][1]["where"] == config.path + ":2:12");
    CHECK(j["settings"][3]["key"] == "providers");
    CHECK(j["settings"][3]["from"] == "default");
}

TEST_CASE("a bad configuration value is a located error, exit 1, for any command that reads it", "[cli]") {
    ConfigFile config("currency: CNY\ntop: 0\n");
    Run r = run({"gpus", "--gpu", "T4"});
    CHECK(r.exit == 1);
    CHECK(r.err.find(config.path + ":2:6: error: top: ") != std::string::npos);
    Run c = run({"completion", "bash"});  // the scripts never depend on it
    CHECK(c.exit == 0);
}

}  // namespace cli_test_install
