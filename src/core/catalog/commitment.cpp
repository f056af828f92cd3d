// Commitment plans: term labels.
#include "gpuadvise/catalog/commitment.hpp"

namespace gpuadvise {

std::string term_label(int months) {
    if (months > 0 && months % 12 == 0) return std::to_string(months / 12) + "-year";
    return std::to_string(months) + "-month";
}

std::string term_short(int months) {
    if (months > 0 && months % 12 == 0) return std::to_string(months / 12) + "y";
    return std::to_string(months) + "m";
}

}  // namespace gpuadvise
