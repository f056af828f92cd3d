// The names of recommend's request and result types (recommendation.hpp).
#include "gpuadvise/advice/recommendation.hpp"

namespace gpuadvise {

const char* to_string(Objective o) { return kObjectiveNames.name(o).data(); }

const char* to_string(Dataset d) {
    return d == Dataset::unspecified ? "unspecified" : kDatasetNames.name(d).data();
}

std::optional<Dataset> parse_dataset(std::string_view text) { return kDatasetNames.parse(text); }

}  // namespace gpuadvise
