#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/base/hash_index.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_hash_index {

using namespace gpuadvise;

// Keys by a hash the test chooses: every key of a group has the same hash (a collision of whole
// hashes), and groups differ only in the low bits, so that the tags (the top byte) are all equal too.
struct Keys {
    std::vector<std::string> text;
    std::vector<std::size_t> hash;
    HashIndex index;

    // The entry of `key` (with hash `h`), added when it is new; true when it was there.
    bool add(const std::string& key, std::size_t h) {
        index.reserve(index.size() + 1, [&](std::uint32_t e) { return hash[e]; });
        const HashIndex::Probe at =
            index.probe(h, [&](std::uint32_t e) { return hash[e] == h && text[e] == key; });
        if (at.found) {
            CHECK(text[index.entry(at)] == key);
            return true;
        }
        index.put(at, h, static_cast<std::uint32_t>(text.size()));
        text.push_back(key);
        hash.push_back(h);
        return false;
    }
};

TEST_CASE("HashIndex finds every key it was given, through whole-hash collisions, equal tags and growth",
          "[core]") {
    Keys keys;
    const std::size_t tag = std::size_t{0xAB} << 56;  // one tag byte for every key
    std::map<std::string, bool> seen;
    for (int round = 0; round < 2; ++round)
        for (int i = 0; i < 5000; ++i) {
            const std::string key = "k" + std::to_string(i);
            const std::size_t h = tag | static_cast<std::size_t>(i % 97);  // 97 hashes for 5,000 keys
            INFO(key << " round " << round);
            CHECK(keys.add(key, h) == (round == 1));
        }
    CHECK(keys.index.size() == 5000);
    CHECK(keys.text.size() == 5000);
    // A hash whose top byte is 0 is a key like any other (tag 0 marks an empty slot).
    CHECK_FALSE(keys.add("zero", 5));
    CHECK(keys.add("zero", 5));
    CHECK_FALSE(keys.add("zero-other", 5));
}

TEST_CASE("HashIndex reserved ahead places nothing again and stays at most three quarters full", "[core]") {
    Keys keys;
    keys.index.reserve(3000, [&](std::uint32_t e) { return keys.hash[e]; });
    for (int i = 0; i < 3000; ++i)
        CHECK_FALSE(keys.add(std::to_string(i), std::hash<int>{}(i)*0x9E3779B97F4A7C15ULL));
    for (int i = 0; i < 3000; ++i)
        CHECK(keys.add(std::to_string(i), std::hash<int>{}(i)*0x9E3779B97F4A7C15ULL));
}

TEST_CASE("TextMemo makes a text's value once, keeps references, and past its limit keeps nothing",
          "[core]") {
    TextMemo<std::string> memo;
    int made = 0;
    auto upper = [&](const std::string& t) {
        return [&made, t] {
            ++made;
            std::string u = t;
            for (char& c : u) c = static_cast<char>(c - 32 * (c >= 'a' && c <= 'z'));
            return u;
        };
    };
    const std::string& first = memo.get("abc", upper("abc"));
    CHECK(first == "ABC");
    for (int i = 0; i < 10000; ++i) memo.get("t" + std::to_string(i), upper("t" + std::to_string(i)));
    CHECK(made == 10001);
    CHECK(&memo.get("abc", upper("abc")) == &first);  // the same value, not made again, not moved
    CHECK(made == 10001);
    CHECK(memo.get("t9999", upper("t9999")) == "T9999");
    CHECK(made == 10001);

    // make() throws: nothing kept, the next get makes it.
    CHECK_THROWS_AS(memo.get("boom", []() -> std::string { throw std::runtime_error("no"); }),
                    std::runtime_error);
    CHECK(memo.get("boom", upper("boom")) == "BOOM");

    TextMemo<int> small(2);
    int calls = 0;
    auto count = [&] { return ++calls; };
    CHECK(small.get("a", count) == 1);
    CHECK(small.get("b", count) == 2);
    CHECK(small.get("a", count) == 1);  // kept
    CHECK(small.get("c", count) == 3);  // past the limit: made
    CHECK(small.get("c", count) == 4);  // and made again
    CHECK(small.size() == 2);
}

TEST_CASE("TextPool numbers each distinct text once, in order, and keeps its characters in place", "[core]") {
    TextPool pool;
    CHECK(pool.intern("us-east-1") == 0);
    CHECK(pool.intern("") == 1);
    CHECK(pool.intern("a long region name past the short-string buffer") == 2);
    const std::string_view kept = pool.text(2);
    const char* where = pool.text(0).data();
    for (int i = 0; i < 20000; ++i)
        CHECK(pool.intern("zone-" + std::to_string(i)) == 3u + static_cast<unsigned>(i));
    CHECK(pool.size() == 20003);
    CHECK(pool.intern("us-east-1") == 0);  // found, not added again
    CHECK(pool.intern("") == 1);
    CHECK(pool.intern("zone-19999") == 20002);
    CHECK(pool.text(0).data() == where);  // growing moved no text, short or long
    CHECK(pool.text(2) == kept);
    CHECK(pool.text(2).data() == kept.data());
    CHECK(pool.text(20002) == "zone-19999");
    CHECK(pool.size() == 20003);
    const TextPool::Lookup missing = pool.find("us-west-2");
    CHECK_FALSE(missing.at.found);
    CHECK(pool.add(missing, "us-west-2") == 20003);
    CHECK(pool.find("us-west-2").at.found);
    CHECK(pool.find("us-west-2").id == 20003);
}

}  // namespace unit_test_hash_index
