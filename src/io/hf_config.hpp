// A Hugging Face config.json (read offline from a local file) as a model preset: the shape
// (layers, hidden, heads, KV heads, head_dim, MLP width, vocabulary, sliding windows, experts, MLA),
// the checkpoint's weight format (torch_dtype, quantization_config) and the parameters counted from
// the shape (count_params). Bad input is a located DataError, never a crash (fuzz/hf_config.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog/models.hpp"

namespace gpuadvise::io {

struct HfConfig {
    ModelPreset preset;
    // Every default the reader filled in for a missing key, as a sentence ("num_key_value_heads
    // absent: 32, one per head (multi-head attention)").
    std::vector<std::string> defaults;
};

// `origin` names the text in messages (the file's path); `id` becomes the preset id.
HfConfig parse_hf_config(std::string_view text, const std::string& origin, const std::string& id);
// Reads `path` (io::read_file) and parses it; the id is the file name without ".json".
HfConfig load_hf_config(const std::string& path);

// The model_type values the reader knows, for messages and docs.
std::vector<std::string> hf_model_types();

}  // namespace gpuadvise::io
