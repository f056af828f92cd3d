// Rule thresholds. They live in the catalog's `policy` section, not in code; the table in
// policy.cpp lists every known key with its default, unit and the source of the default.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuadvise {

struct PolicyKey {
    std::string_view name;
    double default_value;
    std::string_view meaning;  // one line, with the unit and where the default comes from
    double min = 0;            // the valid range, checked when a catalog sets the key (docs/catalog.md)
    double max = 1e12;
};

const std::vector<PolicyKey>& policy_keys();

class Policy {
public:
    // Value of a known key: the catalog's override or the default. Throws std::out_of_range for an
    // unknown key (a programming error: every key used in code is in policy_keys()).
    double get(std::string_view key) const;
    // Returns false if the key is unknown.
    bool set(std::string_view key, double value);
    const std::map<std::string, double, std::less<>>& overrides() const { return overrides_; }
    bool operator==(const Policy& other) const { return overrides_ == other.overrides_; }

private:
    std::map<std::string, double, std::less<>> overrides_;
    // get() is called in the cost model's inner loops with the same few literal keys: a small cache by the
    // key's address, each hit checked against the key's own name, so a reused buffer never reads a wrong value.
    struct CachedKey {
        const char* from = nullptr;
        std::string_view name;
        double value = 0;
    };
    mutable std::array<CachedKey, 64> cache_{};
};

}  // namespace gpuadvise
