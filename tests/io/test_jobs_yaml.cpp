// The jobs file reader of `gpuadvise plan` (io/jobs_yaml.hpp): fields, schedules, pools and located errors.
#include <catch2/catch.hpp>

#include "gpuadvise/base/errors.hpp"
#include "io/catalog_loader.hpp"
#include "io/jobs_yaml.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_jobs_yaml {

using namespace gpuadvise;

namespace {

const Catalog& builtin() {
    static const Catalog c = io::load_catalog(io::CatalogOptions{});
    return c;
}

std::vector<std::string> errors_of(const std::string& text) {
    try {
        io::parse_jobs_yaml(text, "jobs.yaml", builtin(), "USD");
    } catch (const DataError& e) {
        std::vector<std::string> out;
        for (const auto& d : e.details()) out.push_back(format_diagnostic(d));
        return out;
    }
    return {};
}

}  // namespace

TEST_CASE("jobs file: each job's workload, constraints, schedule and pool", "[io]") {
    const auto jobs = io::parse_jobs_yaml(
        "jobs:\n"
        "  - {name: a, team: nlp, model: bert, runs_per_week: 3, schedule: night, gpu: A100, interruptible: "
        "true}\n"
        "  - {model: resnet50, schedule: 8-18, days: weekdays, pool: vision, deadline_hours: 12}\n",
        "jobs.yaml", builtin(), "USD");
    REQUIRE(jobs.size() == 2);
    CHECK(jobs[0].name == "a");
    CHECK(jobs[0].team == "nlp");
    CHECK(jobs[0].request.runs_per_week == 3);
    CHECK(jobs[0].request.interruptible);
    CHECK(jobs[0].request.workload.model_id == "bert-large");
    CHECK_FALSE(jobs[0].request.gpu.names.empty());
    CHECK(jobs[0].schedule.slots() == 84);
    CHECK(jobs[0].pool == "default");
    CHECK(jobs[1].name == "job-2");
    CHECK(jobs[1].pool == "vision");
    CHECK(jobs[1].schedule.slots() == 50);
    CHECK(jobs[1].request.deadline_hours == 12);
    CHECK(jobs[1].request.runs_per_week == 1);
}

TEST_CASE("jobs file: errors are located at the key or value, with the fix", "[io]") {
    const auto e = errors_of(
        "jobs:\n  - name: x\n    modle: bert\n  - model: bertt\n  - model: bert\n    schedule: 9-9\n");
    REQUIRE(e.size() == 4);
    CHECK(e[0] == "jobs.yaml:3:5: error: jobs[0].modle: unknown key 'modle'; did you mean 'model'?");
    CHECK(e[1].rfind("jobs.yaml:2:5: error: jobs[0]: missing required key 'model'", 0) == 0);
    CHECK(e[2].rfind("jobs.yaml:4:12: error: jobs[1].model: unknown model 'bertt'; did you mean 'bert'?",
                     0) == 0);
    CHECK(e[3].rfind("jobs.yaml:6:15: error: jobs[2].schedule: '9-9' is not an hour range", 0) == 0);
    CHECK(errors_of("jobs:\n  - {name: a, model: bert}\n  - {name: a, model: bert}\n").size() ==
          1);  // duplicate name
    CHECK(errors_of("").size() == 1);
    CHECK(errors_of("jobs: []\n").size() == 1);
}

TEST_CASE("jobs file: a duplicated name is one error, however many jobs share it", "[io]") {
    std::string text = "jobs:\n";
    for (int i = 0; i < 3000; ++i) text += "  - {name: same, model: bert}\n";
    text += "  - {name: other, model: bert}\n  - {name: other, model: bert}\n";
    const auto e = errors_of(text);
    REQUIRE(e.size() == 2);
    CHECK(e[0] ==
          "jobs.yaml:3:12: error: jobs[1].name: duplicate job name 'same' (also jobs[0] and 2998 more "
          "jobs); give each job its own name");
    CHECK(e[1] ==
          "jobs.yaml:3003:12: error: jobs[3001].name: duplicate job name 'other' (also jobs[3000]); "
          "give each job its own name");
    // A long name is not echoed whole.
    const std::string name(5000, 'n');
    const auto l =
        errors_of("jobs:\n  - {name: " + name + ", model: bert}\n  - {name: " + name + ", model: bert}\n");
    REQUIRE(l.size() == 1);
    CHECK(l[0].size() < 300);
}

TEST_CASE("jobs file: a 2 MB gpu value is one short error", "[io]") {
    const auto e = errors_of("jobs:\n  - {name: a, model: bert, gpu: " + std::string(2 << 20, 'g') + "}\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0].rfind("jobs.yaml:2:33: error: jobs[0].gpu: unknown GPU 'ggg", 0) == 0);
    CHECK(e[0].size() < 500);
}

TEST_CASE("jobs file: nesting past 64 levels is refused before yaml-cpp recurses into it", "[io]") {
    const auto e = errors_of("jobs:\n" + std::string(100000, '['));
    REQUIRE(e.size() == 1);
    CHECK(e[0] == "jobs.yaml:2:65: error: nesting deeper than 64 levels; a jobs file nests at most 4 deep");
}

TEST_CASE("jobs file: an error located at a value does not change the job it is in", "[io]") {
    // `at = v` on a YAML::Node overwrote the job with the value; the duplicate check then threw.
    const auto e = errors_of("jobs:\n  - {name: x, model: bertt}\n  - {name: x, model: bertt}\n");
    REQUIRE(e.size() == 3);
    CHECK(e[2].find("duplicate job name 'x'") != std::string::npos);
}

TEST_CASE("jobs file: jobs that differ only in name, team and pool share their options key", "[io]") {
    const auto jobs = io::parse_jobs_yaml(
        "jobs:\n"
        "  - {name: a, team: nlp, pool: p, model: bert, runs_per_week: 3}\n"
        "  - {name: b, model: bert, runs_per_week: 3}\n"
        "  - {name: c, model: bert, runs_per_week: 4}\n"
        "  - {name: d, model: bert, runs_per_week: 3, schedule: night}\n"
        "  - {name: e, model: bert, runs_per_week: '3'}\n"
        "  - {name: f, model: bert, runs_per_week: 3, provider: [aws, gcp]}\n"
        "  - {name: g, model: bert, runs_per_week: 3, provider: [gcp, aws]}\n",
        "jobs.yaml", builtin(), "USD");
    REQUIRE(jobs.size() == 7);
    CHECK_FALSE(jobs[0].options_key.empty());
    CHECK(jobs[0].options_key == jobs[1].options_key);
    for (std::size_t i = 2; i < jobs.size(); ++i)
        for (std::size_t k = 0; k < i; ++k)
            if (k != 0 || i != 1) CHECK(jobs[i].options_key != jobs[k].options_key);
}

TEST_CASE("jobs file: at most 10,000 jobs and 8 MiB, refused before any job is read", "[io]") {
    std::string text = "jobs:\n";
    for (std::size_t i = 0; i <= io::kMaxJobs; ++i)
        text += "  - {name: j" + std::to_string(i) + ", model: bertt}\n";
    const auto e = errors_of(text);  // 10,001 unknown models, but only the bound is reported
    REQUIRE(e.size() == 1);
    CHECK(e[0].find(
              "jobs.yaml:10002:5: error: jobs[10000]: the file has 10001 jobs, more than the 10000 a plan "
              "takes") == 0);
    const std::string big = "jobs:\n  - {name: a, model: bert}\n" + std::string(io::kMaxJobsFileBytes, '#');
    CHECK_THROWS_WITH(io::parse_jobs_yaml(big, "jobs.yaml", builtin(), "USD"),
                      Catch::Contains("more than the 8 MiB a jobs file may hold"));
}

}  // namespace io_test_jobs_yaml
