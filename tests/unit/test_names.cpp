// Name tables: one list per enum drives printing, parsing, "did you mean" and CLI11 choices.
#include <catch2/catch.hpp>

#include "gpuadvise/advice/recommend.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/names.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_names {

using namespace gpuadvise;

namespace {

template <typename E, std::size_t N>
void check_round_trip(const NameTable<E, N>& table) {
    for (const auto& e : table.entries()) {
        CHECK(table.name(e.value) == e.name);
        REQUIRE(table.parse(e.name).has_value());
        CHECK(*table.parse(e.name) == e.value);
    }
    CHECK(table.names().size() == N);
    CHECK_FALSE(table.parse("no-such-name"));
}

}  // namespace

TEST_CASE("every name table reads back what it prints", "[core]") {
    check_round_trip(kPrecisionNames);
    check_round_trip(kPlanNames);
    check_round_trip(kPlanLabels);
    check_round_trip(kProviderKindNames);
    check_round_trip(kTimeBasisNames);
    check_round_trip(kObjectiveNames);
    check_round_trip(kDatasetNames);
    check_round_trip(kFindingKindNames);
    check_round_trip(kConstraintNames);
    check_round_trip(kWarningKindNames);
    CHECK(std::string(to_string(Plan::on_demand)) == "on_demand");
    CHECK(plan_label(Plan::on_demand) == "on-demand");
    CHECK(std::string(to_string(Constraint::budget)) == "budget");
    CHECK(std::string(to_string(FindingKind::explanation)) == "explanation");
    CHECK(kPrecisionNames.choices() == "fp32|tf32|fp16|bf16|fp8");
}

TEST_CASE("parse_plan reads the three plans and rejects every other word", "[core]") {
    CHECK(parse_plan("on-demand") == Plan::on_demand);
    CHECK(parse_plan("on_demand") == Plan::on_demand);
    CHECK(parse_plan("Reserved") == Plan::reserved);
    CHECK(parse_plan("spot") == Plan::spot);
    CHECK_FALSE(parse_plan("bogus"));  // was read as spot
    CHECK_FALSE(parse_plan(""));
    CHECK_FALSE(parse_plan("spot-ish"));
}

TEST_CASE("an unknown name is a usage error with did-you-mean and the choices", "[core]") {
    try {
        (void)kPrecisionNames.parse_or_throw("bf61", "--precision");
        FAIL("no error");
    } catch (const UsageError& e) {
        CHECK(std::string(e.what()) == "--precision: unknown value 'bf61'");
        CHECK(e.hint() == "did you mean 'bf16'? expected one of: fp32, tf32, fp16, bf16, fp8");
    }
    CHECK(kObjectiveNames.parse_or_throw("TIME", "--objective") == Objective::time);
}

TEST_CASE("a provider kind outside the table is kept as the catalog's own word", "[core]") {
    Provider p;
    set_kind(p, "placeholder");
    CHECK(p.kind == ProviderKind::placeholder);
    CHECK(kind_name(p) == "placeholder");
    set_kind(p, "private");
    CHECK(p.kind == ProviderKind::other);
    CHECK(kind_name(p) == "private");
    set_kind(p, "public");
    CHECK(p.kind == ProviderKind::public_prices);
    CHECK(p.custom_kind.empty());
}

}  // namespace unit_test_names
