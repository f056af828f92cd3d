// Model presets: kinds, lookup by id or alias.
#include <algorithm>

#include "gpuadvise/base/text.hpp"
#include "gpuadvise/catalog/models.hpp"

namespace gpuadvise {

std::string_view to_string(ModelKind k) {
    switch (k) {
        case ModelKind::cnn: return "cnn";
        case ModelKind::transformer: return "transformer";
        case ModelKind::diffusion: return "diffusion";
        case ModelKind::speech: return "speech";
    }
    return "transformer";
}

std::optional<ModelKind> parse_model_kind(std::string_view text) {
    for (ModelKind k : {ModelKind::cnn, ModelKind::transformer, ModelKind::diffusion, ModelKind::speech})
        if (iequals(text, to_string(k))) return k;
    return std::nullopt;
}

bool ModelPreset::is_uncertain(std::string_view field) const {
    return std::find(uncertain.begin(), uncertain.end(), field) != uncertain.end();
}

bool CalibrationPoint::matches(Precision p) const {
    if (precision == "amp") return p == Precision::fp16 || p == Precision::bf16;
    return iequals(precision, to_string(p));
}

}  // namespace gpuadvise
