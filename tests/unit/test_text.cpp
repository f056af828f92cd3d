#include <catch2/catch.hpp>

#include "gpuadvise/text.hpp"

using namespace gpuadvise;

TEST_CASE("fold_name ignores case, spaces, dashes and underscores", "[core]") {
    CHECK(fold_name("RTX 6000-Ada") == fold_name("rtx6000ada"));
    CHECK(fold_name("A100-80GB") == "a10080gb");
}

TEST_CASE("closest_match suggests a near name and nothing for a far one", "[core]") {
    std::vector<std::string> names{"recommend", "compare", "offers", "gpus"};
    CHECK(closest_match("recomend", names) == std::optional<std::string>("recommend"));
    CHECK(closest_match("comprae", names) == std::optional<std::string>("compare"));
    CHECK_FALSE(closest_match("zzzzzzzzzz", names).has_value());
}
