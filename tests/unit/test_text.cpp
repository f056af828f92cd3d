#include <catch2/catch.hpp>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "gpuadvise/base/source_location.hpp"
#include "gpuadvise/base/text.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_text {

using namespace gpuadvise;

TEST_CASE("SharedText copies share one text; moves, assignments and the last holder release it", "[core]") {
    SharedText a(std::string("us-east-1"));
    SharedText b = a;  // a copy shares the storage
    CHECK(b.same_storage(a));
    CHECK(b == "us-east-1");
    SharedText c(std::string("us-east-1"));
    CHECK(c == a);  // equal by content, not by storage
    CHECK_FALSE(c.same_storage(a));
    c = a;
    CHECK(c.same_storage(a));
    const SharedText& self = c;
    c = self;  // assigning a text to itself keeps it
    CHECK(c == "us-east-1");
    SharedText d = std::move(b);  // a move leaves the source empty
    CHECK(d.same_storage(a));
    CHECK(b.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is what is tested
    CHECK(b == std::string());
    a = SharedText();
    c = std::move(d);
    CHECK(c == "us-east-1");  // still held after the first holder let go
    std::vector<SharedText> many(1000, c);
    many.erase(many.begin(), many.begin() + 500);
    CHECK(many.back().same_storage(c));
    c = "eu-west-1";  // the old text lives on in `many`; the sanitizer build checks nothing leaks or dangles
    CHECK(many.front() == "us-east-1");
    CHECK(SharedText(std::string()).empty());
    CHECK(SharedText("").size() == 0);
}

TEST_CASE("same_folded_name agrees with comparing fold_name results", "[core]") {
    const std::vector<std::pair<std::string, std::string>> pairs{{"RTX 6000-Ada", "rtx6000ada"},
                                                                 {"A100-80GB", "a100_80gb"},
                                                                 {"h100", "H100 "},
                                                                 {"-", ""},
                                                                 {"a100", "a10"},
                                                                 {"v100", "v1000"},
                                                                 {"t4", "t-5"},
                                                                 {"", ""}};
    for (const auto& [a, b] : pairs) {
        INFO(a << " vs " << b);
        CHECK(same_folded_name(a, b) == (fold_name(a) == fold_name(b)));
        CHECK(same_folded_name(b, a) == (fold_name(a) == fold_name(b)));
    }
    CHECK(same_folded_name("RTX 6000-Ada", "rtx6000ada"));
    CHECK_FALSE(same_folded_name("a100", "a10"));
}

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

TEST_CASE("edit_distance counts a swap of neighbouring letters as one edit", "[core]") {
    CHECK(edit_distance("bret", "bert") == 1);
    CHECK(edit_distance("bret", "unet") == 2);
    CHECK(edit_distance("kitten", "sitting") == 3);
    CHECK(edit_distance("", "abc") == 3);
    CHECK(edit_distance("A1OO", "a100") == 0);
}

TEST_CASE("did you mean ranks by edit distance: --model bret suggests bert before unet", "[core]") {
    // Model ids and aliases in the order the catalog lists them: unet comes first.
    std::vector<std::string> names{"resnet50", "unet", "u-net", "bert-base", "bert-large", "bert", "roberta"};
    CHECK(closest_match("bret", names) == std::optional<std::string>("bert"));
}

// hash_text keys the zone-merge tables of the table reader, where two offer keys of equal 64-bit hash are
// taken as the same key: every length path (0-3, 4-7, 8 and longer, overlapping tails) must tell apart
// keys that differ in one byte anywhere, and equal text must hash equal wherever it is stored. Up to 140
// bytes, a GpuInfo text's length.
TEST_CASE("hash_text tells apart keys that differ in one byte, at every length", "[core]") {
    std::unordered_set<std::size_t> seen;
    std::size_t keys = 0;
    for (std::size_t length = 0; length <= 140; ++length) {
        const std::string base(length, 'a');
        CHECK(hash_text(base) == hash_text(std::string_view(std::string(base))));
        seen.insert(hash_text(base));
        ++keys;
        for (std::size_t at = 0; at < length; ++at)
            for (char c : {'b', 'A', '0', '\0', '\xff'}) {
                std::string other = base;
                other[at] = c;
                seen.insert(hash_text(other));
                ++keys;
            }
    }
    // Offer-key-like texts: instance types, regions and counts of a million-row table.
    for (int i = 0; i < 200000; ++i) {
        seen.insert(hash_text("p4d." + std::to_string(i % 97) + "xlarge|us-east-" + std::to_string(i)));
        ++keys;
    }
    CHECK(seen.size() == keys);
}

}  // namespace unit_test_text
