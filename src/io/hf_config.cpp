// Reader for Hugging Face config.json files (docs/usage.md "--model-config", the fields per
// model_type in docs/methodology.md). Keys are the transformers library's own names; a key the
// reader needs but the file lacks is either filled with the library's default (said in
// `defaults`) or a located error; wrong types and absurd sizes are located errors.
#include "io/hf_config.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/format.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/model/model_shape.hpp"
#include "io/catalog_loader.hpp"

namespace gpuadvise::io {
namespace {

using nlohmann::json;

enum class MoeStyle { none, mixtral, qwen, deepseek, gpt_oss };
// Which layers use the sliding window: none; all (Mistral v0.1, Phi-3); Qwen's use_sliding_window;
// every other layer (Gemma 2); all but every sliding_window_pattern-th (Gemma 3).
enum class SlidingStyle { none, all, qwen, alternate, pattern };

struct Family {
    std::string_view type;
    bool tied = false;  // tie_word_embeddings default of the transformers config class
    int norms = 2;
    bool qkv_bias = false;
    bool qk_norm = false;
    MoeStyle moe = MoeStyle::none;
    bool mla = false;
    SlidingStyle sliding = SlidingStyle::none;
};

constexpr Family kFamilies[] = {
    {"llama", false, 2, false, false, MoeStyle::none, false, SlidingStyle::none},
    {"mistral", false, 2, false, false, MoeStyle::none, false, SlidingStyle::all},
    {"mixtral", false, 2, false, false, MoeStyle::mixtral, false, SlidingStyle::all},
    {"qwen2", false, 2, true, false, MoeStyle::none, false, SlidingStyle::qwen},
    {"qwen2_moe", false, 2, true, false, MoeStyle::qwen, false, SlidingStyle::qwen},
    {"qwen3", false, 2, false, true, MoeStyle::none, false, SlidingStyle::qwen},
    {"qwen3_moe", false, 2, false, true, MoeStyle::qwen, false, SlidingStyle::qwen},
    {"gemma", true, 2, false, false, MoeStyle::none, false, SlidingStyle::none},
    {"gemma2", true, 4, false, false, MoeStyle::none, false, SlidingStyle::alternate},
    {"gemma3", true, 4, false, true, MoeStyle::none, false, SlidingStyle::pattern},
    {"gemma3_text", true, 4, false, true, MoeStyle::none, false, SlidingStyle::pattern},
    {"phi3", false, 2, false, false, MoeStyle::none, false, SlidingStyle::all},
    {"deepseek_v2", false, 2, false, false, MoeStyle::deepseek, true, SlidingStyle::none},
    {"deepseek_v3", false, 2, false, false, MoeStyle::deepseek, true, SlidingStyle::none},
    {"gpt_oss", false, 2, true, false, MoeStyle::gpt_oss, false, SlidingStyle::none},
};

const Family* find_family(std::string_view type) {
    for (const Family& f : kFamilies)
        if (f.type == type) return &f;
    return nullptr;
}

// The architectures class names of the families, for files without model_type.
constexpr std::pair<std::string_view, std::string_view> kArchitectures[] = {
    {"LlamaForCausalLM", "llama"},
    {"MistralForCausalLM", "mistral"},
    {"MixtralForCausalLM", "mixtral"},
    {"Qwen2ForCausalLM", "qwen2"},
    {"Qwen2MoeForCausalLM", "qwen2_moe"},
    {"Qwen3ForCausalLM", "qwen3"},
    {"Qwen3MoeForCausalLM", "qwen3_moe"},
    {"GemmaForCausalLM", "gemma"},
    {"Gemma2ForCausalLM", "gemma2"},
    {"Gemma3ForCausalLM", "gemma3_text"},
    {"Gemma3ForConditionalGeneration", "gemma3"},
    {"Phi3ForCausalLM", "phi3"},
    {"DeepseekV2ForCausalLM", "deepseek_v2"},
    {"DeepseekV3ForCausalLM", "deepseek_v3"},
    {"GptOssForCausalLM", "gpt_oss"},
};

constexpr int kMaxDepth = 64;  // nesting of a real config is 3-4

const char* type_name(const json& v) {
    switch (v.type()) {
        case json::value_t::null: return "null";
        case json::value_t::boolean: return "a boolean";
        case json::value_t::string: return "a string";
        case json::value_t::array: return "an array";
        case json::value_t::object: return "an object";
        case json::value_t::number_float: return "a fractional number";
        default: return "a number";
    }
}

std::string quoted(const json& v) {
    std::string s = v.dump(-1, ' ', true, json::error_handler_t::replace);
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return s;
}

class Reader {
public:
    Reader(const json& obj, std::string origin, std::string prefix, std::vector<std::string>& defaults)
        : obj_(obj), origin_(std::move(origin)), prefix_(std::move(prefix)), defaults_(defaults) {}

    [[noreturn]] void fail(std::string_view key, const std::string& problem, std::string hint = {}) const {
        if (hint.empty())
            hint =
                "fix the value in the file, or describe the model with the shape flags (--layers, "
                "--hidden, --heads, --kv-heads, --ffn, --vocab)";
        throw DataError(origin_ + ": " + prefix_ + std::string(key) + ": " + problem, hint);
    }
    const json* find(std::string_view key) const {
        auto it = obj_.find(key);
        if (it == obj_.end() || it->is_null()) return nullptr;
        return &*it;
    }
    bool has(std::string_view key) const { return find(key) != nullptr; }

    std::optional<long long> integer(std::string_view key, long long min, long long max) const {
        const json* v = find(key);
        if (!v) return std::nullopt;
        long long n = 0;
        if (v->is_number_integer() || v->is_number_unsigned()) {
            if (v->is_number_unsigned() &&
                v->get<unsigned long long>() > static_cast<unsigned long long>(max))
                fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) +
                              ", not " + quoted(*v));
            n = v->get<long long>();
        } else if (v->is_number_float()) {
            const double d = v->get<double>();
            if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(min) ||
                d > static_cast<double>(max))
                fail(key, "must be a whole number between " + std::to_string(min) + " and " +
                              std::to_string(max) + ", not " + quoted(*v));
            n = static_cast<long long>(d);
        } else {
            fail(key, std::string("must be a number, not ") + type_name(*v) + " (" + quoted(*v) + ")");
        }
        if (n < min || n > max)
            fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", not " +
                          std::to_string(n));
        return n;
    }
    int need_int(std::string_view key, long long min, long long max) const {
        auto v = integer(key, min, max);
        if (!v) fail(key, "missing; the parameter count needs it");
        return static_cast<int>(*v);
    }
    int int_or(std::string_view key, long long min, long long max, int fallback, const std::string& why) {
        if (auto v = integer(key, min, max)) return static_cast<int>(*v);
        if (!why.empty()) defaults_.push_back(prefix_ + std::string(key) + " absent: " + why);
        return fallback;
    }
    std::optional<bool> boolean(std::string_view key) const {
        const json* v = find(key);
        if (!v) return std::nullopt;
        if (!v->is_boolean())
            fail(key, std::string("must be true or false, not ") + type_name(*v) + " (" + quoted(*v) + ")");
        return v->get<bool>();
    }
    std::optional<std::string> text(std::string_view key) const {
        const json* v = find(key);
        if (!v) return std::nullopt;
        if (!v->is_string())
            fail(key, std::string("must be a string, not ") + type_name(*v) + " (" + quoted(*v) + ")");
        return v->get<std::string>();
    }
    // A list of strings (layer_types, modules_to_not_convert, architectures).
    std::optional<std::vector<std::string>> strings(std::string_view key, std::size_t max_size) const {
        const json* v = find(key);
        if (!v) return std::nullopt;
        if (!v->is_array()) fail(key, std::string("must be a list, not ") + type_name(*v));
        if (v->size() > max_size)
            fail(key, "has " + std::to_string(v->size()) + " entries, more than expected");
        std::vector<std::string> out;
        for (std::size_t i = 0; i < v->size(); ++i) {
            if (!(*v)[i].is_string())
                fail(std::string(key) + "[" + std::to_string(i) + "]",
                     std::string("must be a string, not ") + type_name((*v)[i]));
            out.push_back((*v)[i].get<std::string>());
        }
        return out;
    }
    std::optional<std::vector<long long>> integers(std::string_view key, long long max,
                                                   std::size_t max_size) const {
        const json* v = find(key);
        if (!v) return std::nullopt;
        if (!v->is_array()) fail(key, std::string("must be a list of numbers, not ") + type_name(*v));
        if (v->size() > max_size)
            fail(key, "has " + std::to_string(v->size()) + " entries, more than expected");
        std::vector<long long> out;
        for (std::size_t i = 0; i < v->size(); ++i) {
            const json& e = (*v)[i];
            if (!e.is_number_integer() && !e.is_number_unsigned())
                fail(std::string(key) + "[" + std::to_string(i) + "]",
                     std::string("must be a whole number, not ") + type_name(e));
            if (e.is_number_unsigned() && e.get<unsigned long long>() > static_cast<unsigned long long>(max))
                fail(std::string(key) + "[" + std::to_string(i) + "]", "out of range");
            const long long n = e.get<long long>();
            if (n < 0 || n > max) fail(std::string(key) + "[" + std::to_string(i) + "]", "out of range");
            out.push_back(n);
        }
        return out;
    }
    const json& object() const { return obj_; }
    const std::string& prefix() const { return prefix_; }
    void note(std::string text) { defaults_.push_back(std::move(text)); }

private:
    const json& obj_;
    std::string origin_;
    std::string prefix_;
    std::vector<std::string>& defaults_;
};

// Refuses nesting deeper than kMaxDepth before nlohmann builds the tree (a hostile "[[[[…" file).
void check_depth(std::string_view text, const std::string& origin) {
    int depth = 0;
    bool in_string = false, escaped = false;
    std::size_t line = 1;
    for (char c : text) {
        if (c == '\n') ++line;
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"')
            in_string = true;
        else if (c == '[' || c == '{') {
            if (++depth > kMaxDepth)
                throw DataError(origin + ":" + std::to_string(line) + ": nested more than " +
                                    std::to_string(kMaxDepth) + " levels deep; not a model config",
                                "give the model's config.json");
        } else if (c == ']' || c == '}')
            --depth;
    }
}

json parse_json(std::string_view text, const std::string& origin) {
    check_depth(text, origin);
    try {
        return json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        // The byte offset as line:column.
        std::size_t line = 1, col = 1;
        const std::size_t end = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
        for (std::size_t i = 0; i < end; ++i) {
            if (text[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        throw DataError(origin + ":" + std::to_string(line) + ":" + std::to_string(col) +
                            ": not valid JSON (the parser: " + e.what() + ")",
                        "give a Hugging Face config.json (a JSON object)");
    } catch (const json::exception& e) {
        // A number past double's range (1e400) and the parser's other limits: no position given.
        throw DataError(origin + ": not valid JSON (the parser: " + e.what() + ")",
                        "give a Hugging Face config.json (a JSON object)");
    }
}

std::string family_list() {
    std::vector<std::string> names;
    for (const Family& f : kFamilies) names.emplace_back(f.type);
    return join(names, ", ");
}

// model_type, else the architectures class, else the keys only one family has (stated).
const Family& resolve_family(Reader& r, const std::string& origin) {
    if (auto type = r.text("model_type")) {
        if (const Family* f = find_family(*type)) return *f;
        throw DataError(origin + ": " + r.prefix() + "model_type: '" + *type +
                            "' is not a model type gpuadvise reads (it reads " + family_list() + ")",
                        "describe the model with the shape flags: --layers (num_hidden_layers), --hidden "
                        "(hidden_size), --heads (num_attention_heads), --kv-heads (num_key_value_heads), "
                        "--head-dim, --ffn (intermediate_size), --vocab (vocab_size), and --experts, "
                        "--active-experts, --moe-ffn for a mixture of experts");
    }
    if (auto archs = r.strings("architectures", 16))
        for (const auto& a : *archs)
            for (const auto& [cls, type] : kArchitectures)
                if (a == cls) {
                    r.note(r.prefix() + "model_type absent: " + std::string(type) + ", from architectures " +
                           a);
                    return *find_family(type);
                }
    std::string_view type = "llama";
    std::string why = "a dense decoder laid out like Llama (no model_type or known architectures)";
    if (r.has("kv_lora_rank") || r.has("n_routed_experts")) {
        type = "deepseek_v3";
        why = "from its keys kv_lora_rank / n_routed_experts";
    } else if (r.has("attn_logit_softcapping") || r.has("query_pre_attn_scalar")) {
        type = "gemma2";
        why = "from its keys attn_logit_softcapping / query_pre_attn_scalar";
    } else if (r.has("num_local_experts")) {
        type = "mixtral";
        why = "from its key num_local_experts";
    } else if (r.has("num_experts") && r.has("moe_intermediate_size")) {
        type = "qwen3_moe";
        why = "from its keys num_experts / moe_intermediate_size";
    }
    r.note(r.prefix() + "model_type absent: read as " + std::string(type) + ", " + why);
    return *find_family(type);
}

void read_weights(Reader& r, const Family& fam, TransformerShape& s, ModelPreset& m) {
    // Torch dtype (transformers >= 4.56 writes "dtype").
    std::optional<std::string> dtype = r.text("torch_dtype");
    if (!dtype) dtype = r.text("dtype");
    if (dtype) {
        if (*dtype == "bfloat16")
            m.weights = WeightFormat::bf16;
        else if (*dtype == "float16")
            m.weights = WeightFormat::fp16;
        else if (*dtype == "float32")
            r.note(
                "torch_dtype float32: served and fine-tuned in 16-bit, as usual; the weights follow "
                "--precision");
        else
            r.fail(r.has("torch_dtype") ? "torch_dtype" : "dtype",
                   "'" + *dtype + "' is not bfloat16, float16 or float32");
    } else {
        r.note(r.prefix() + "torch_dtype absent: 16-bit weights (following --precision)");
    }
    const json* q = r.find("quantization_config");
    if (!q) return;
    if (!q->is_object())
        r.fail("quantization_config", std::string("must be an object, not ") + type_name(*q));
    std::vector<std::string> unused;
    Reader qr(*q, "", "", unused);
    std::string origin_key = "quantization_config.";
    auto sub_fail = [&](std::string_view key, const std::string& problem) {
        r.fail(origin_key + std::string(key), problem,
               "give the weight format yourself with --weights bf16|fp16|fp8|int8|int4|nf4|mxfp4|nvfp4");
    };
    std::optional<std::string> method;
    try {
        method = qr.text("quant_method");
    } catch (const DataError&) {
        sub_fail("quant_method", "must be a string");
    }
    if (!method) sub_fail("quant_method", "missing");
    const std::string mth = to_lower(*method);
    auto bits = [&]() -> long long {
        try {
            if (auto b = qr.integer("bits", 1, 64)) return *b;
            if (auto b = qr.integer("w_bit", 1, 64)) return *b;
        } catch (const DataError&) {
            sub_fail("bits", "must be a whole number from 1 to 64");
        }
        return 4;
    };
    if (mth == "fp8" || mth == "fbgemm_fp8") {
        m.weights = WeightFormat::fp8;
    } else if (mth == "mxfp4") {
        m.weights = WeightFormat::mxfp4;
        // gpt-oss: only the experts are MXFP4 (modules_to_not_convert: attention, router,
        // embeddings, lm_head stay BF16).
        bool attention_kept = s.moe();
        try {
            if (auto keep = qr.strings("modules_to_not_convert", 4096))
                attention_kept = std::any_of(keep->begin(), keep->end(), [](const std::string& k) {
                    return k.find("self_attn") != std::string::npos || k.find("attn") != std::string::npos;
                });
            else if (s.moe())
                r.note(
                    "quantization_config.modules_to_not_convert absent: MXFP4 on the experts only, as "
                    "gpt-oss");
        } catch (const DataError&) {
            sub_fail("modules_to_not_convert", "must be a list of module names");
        }
        if (attention_kept && s.moe()) m.weights_scope = QuantScope::experts;
    } else if (mth == "awq" || mth == "gptq" || mth == "autoround" || mth == "auto-round") {
        const long long b = bits();
        if (b == 4)
            m.weights = WeightFormat::int4;
        else if (b == 8)
            m.weights = WeightFormat::int8;
        else
            sub_fail("bits", std::to_string(b) + "-bit " + mth + " is not a format gpuadvise sizes (4 or 8)");
    } else if (mth == "bitsandbytes") {
        bool four = false, eight = false;
        try {
            four = qr.boolean("load_in_4bit").value_or(false);
            eight = qr.boolean("load_in_8bit").value_or(false);
        } catch (const DataError&) {
            sub_fail("load_in_4bit", "must be true or false");
        }
        if (four)
            m.weights = WeightFormat::nf4;
        else if (eight)
            m.weights = WeightFormat::int8;
        else
            sub_fail("load_in_4bit", "neither load_in_4bit nor load_in_8bit is true");
    } else if (mth == "modelopt") {
        std::optional<std::string> algo;
        try {
            algo = qr.text("quant_algo");
        } catch (const DataError&) {
            sub_fail("quant_algo", "must be a string");
        }
        const std::string a = to_lower(algo.value_or(""));
        if (a == "fp8")
            m.weights = WeightFormat::fp8;
        else if (a == "nvfp4")
            m.weights = WeightFormat::nvfp4;
        else
            sub_fail("quant_algo", "'" + algo.value_or("") + "' is not FP8 or NVFP4");
    } else {
        sub_fail("quant_method", "'" + *method +
                                     "' is not a method gpuadvise reads (fp8, mxfp4, awq, gptq, "
                                     "bitsandbytes, modelopt)");
    }
    (void)fam;
}

void read_shape(Reader& r, const Family& fam, TransformerShape& s) {
    s.decoder = true;
    s.layers = r.need_int("num_hidden_layers", 1, 10000);
    s.hidden = r.need_int("hidden_size", 1, 1000000);
    s.heads = r.need_int("num_attention_heads", 1, 100000);
    s.kv_heads =
        r.int_or("num_key_value_heads", 1, 100000, s.heads,
                 std::to_string(s.heads) + ", one per head (multi-head attention, the transformers default)");
    if (s.kv_heads > s.heads || s.heads % s.kv_heads != 0)
        r.fail("num_key_value_heads", std::to_string(s.kv_heads) + " does not divide num_attention_heads " +
                                          std::to_string(s.heads));
    if (r.has("head_dim")) {
        s.head_dim = r.need_int("head_dim", 1, 100000);
    } else if (!fam.mla) {
        if (s.hidden % s.heads != 0)
            r.fail("head_dim", "missing, and hidden_size " + std::to_string(s.hidden) +
                                   " is not a multiple of num_attention_heads " + std::to_string(s.heads));
        r.note(r.prefix() +
               "head_dim absent: hidden_size / num_attention_heads = " + std::to_string(s.hidden / s.heads));
    }
    s.ffn = r.need_int("intermediate_size", 1, 10000000);
    s.vocab = r.need_int("vocab_size", 1, 100000000);
    if (auto tied = r.boolean("tie_word_embeddings"))
        s.tied_embeddings = *tied;
    else {
        s.tied_embeddings = fam.tied;
        r.note(r.prefix() + "tie_word_embeddings absent: " + (fam.tied ? "true" : "false") + ", the " +
               std::string(fam.type) + " default");
    }
    s.norms_per_layer = fam.norms;
    s.qkv_bias = fam.qkv_bias;
    s.qk_norm = fam.qk_norm;
    if (fam.type != "qwen2" && fam.type != "qwen2_moe")
        if (auto bias = r.boolean("attention_bias")) s.qkv_bias = s.o_bias = *bias;
    if (fam.type == "gpt_oss") s.attention_sinks = true;
    // Sliding windows.
    const int window = static_cast<int>(r.integer("sliding_window", 1, 100000000).value_or(0));
    if (auto types = r.strings("layer_types", 10000)) {
        if (static_cast<int>(types->size()) != s.layers)
            r.fail("layer_types", "has " + std::to_string(types->size()) + " entries for " +
                                      std::to_string(s.layers) + " layers");
        s.sliding_layers = static_cast<int>(std::count(types->begin(), types->end(), "sliding_attention"));
    } else if (window > 0) {
        switch (fam.sliding) {
            case SlidingStyle::none: break;
            case SlidingStyle::all: s.sliding_layers = s.layers; break;
            case SlidingStyle::qwen:
                if (r.boolean("use_sliding_window").value_or(false))
                    s.sliding_layers =
                        s.layers -
                        std::min(s.layers, static_cast<int>(
                                               r.integer("max_window_layers", 0, 10000).value_or(s.layers)));
                break;
            case SlidingStyle::alternate: s.sliding_layers = (s.layers + 1) / 2; break;
            case SlidingStyle::pattern: {
                const int pattern = r.int_or("sliding_window_pattern", 1, 10000, 6,
                                             "6 (5 sliding-window layers per global one, Gemma 3)");
                s.sliding_layers = s.layers - s.layers / pattern;
                break;
            }
        }
    }
    if (s.sliding_layers > 0) {
        if (window <= 0) r.fail("sliding_window", "missing, and layer_types names sliding_attention layers");
        s.sliding_window = window;
    }
    // Mixture of experts.
    const int active = static_cast<int>(r.integer("num_experts_per_tok", 1, 100000)
                                            .value_or(r.integer("experts_per_token", 1, 100000).value_or(0)));
    switch (fam.moe) {
        case MoeStyle::none: break;
        case MoeStyle::mixtral:
        case MoeStyle::gpt_oss:
            s.experts = r.need_int("num_local_experts", 1, 100000);
            s.moe_ffn = s.ffn;
            s.expert_bias = fam.moe == MoeStyle::gpt_oss;
            break;
        case MoeStyle::qwen: {
            s.experts = static_cast<int>(r.integer("num_experts", 0, 100000).value_or(0));
            if (s.experts == 0) break;  // Qwen MoE classes without experts are dense
            s.moe_ffn = r.need_int("moe_intermediate_size", 1, 10000000);
            const int step = r.int_or("decoder_sparse_step", 1, 10000, 1, "1 (every layer is an MoE layer)");
            std::vector<long long> mlp_only =
                r.integers("mlp_only_layers", 10000, 10000).value_or(std::vector<long long>{});
            int moe = 0;
            for (int i = 0; i < s.layers; ++i)
                if (std::find(mlp_only.begin(), mlp_only.end(), i) == mlp_only.end() && (i + 1) % step == 0)
                    ++moe;
            s.dense_layers = s.layers - moe;
            if (fam.type == "qwen2_moe") {
                s.shared_ffn =
                    static_cast<int>(r.integer("shared_expert_intermediate_size", 0, 10000000).value_or(0));
                if (s.shared_ffn > 0) {
                    s.shared_experts = 1;
                    s.shared_expert_gate = true;
                }
            }
            break;
        }
        case MoeStyle::deepseek: {
            s.experts = static_cast<int>(r.integer("n_routed_experts", 0, 100000).value_or(0));
            if (s.experts == 0) break;
            s.moe_ffn = r.need_int("moe_intermediate_size", 1, 10000000);
            s.shared_experts = r.int_or("n_shared_experts", 0, 1000, 0, "0 shared experts");
            const int first = r.int_or("first_k_dense_replace", 0, 10000, 0, "0 (no dense layers first)");
            const int freq = r.int_or("moe_layer_freq", 1, 10000, 1, "");
            int moe = 0;
            for (int i = 0; i < s.layers; ++i)
                if (i >= first && i % freq == 0) ++moe;
            s.dense_layers = s.layers - moe;
            s.router_score_bias = fam.type == "deepseek_v3";
            break;
        }
    }
    if (s.experts > 0) {
        if (active <= 0) r.fail("num_experts_per_tok", "missing; a mixture of experts needs it");
        if (active > s.experts)
            r.fail("num_experts_per_tok",
                   std::to_string(active) + " is more than the " + std::to_string(s.experts) + " experts");
        s.active_experts = active;
    }
    // Multi-head latent attention.
    if (fam.mla) {
        s.kv_lora_rank = r.need_int("kv_lora_rank", 1, 1000000);
        s.q_lora_rank = static_cast<int>(r.integer("q_lora_rank", 1, 1000000).value_or(0));
        s.qk_rope_dim = r.need_int("qk_rope_head_dim", 1, 100000);
        s.qk_nope_dim = r.need_int("qk_nope_head_dim", 1, 100000);
        s.v_head_dim = r.need_int("v_head_dim", 1, 100000);
        s.head_dim = s.qk_nope_dim + s.qk_rope_dim;
    }
}

}  // namespace

std::vector<std::string> hf_model_types() {
    std::vector<std::string> out;
    for (const Family& f : kFamilies) out.emplace_back(f.type);
    return out;
}

HfConfig parse_hf_config(std::string_view text, const std::string& origin, const std::string& id) {
    const json root = parse_json(text, origin);
    if (!root.is_object())
        throw DataError(origin + ": the file is " + type_name(root) + ", not a JSON object",
                        "give a Hugging Face config.json (a JSON object)");
    HfConfig out;
    ModelPreset& m = out.preset;
    // Multimodal configs (Gemma 3) nest the language model under text_config.
    const json* model = &root;
    std::string prefix;
    if (auto it = root.find("text_config"); it != root.end() && !it->is_null()) {
        if (!it->is_object())
            throw DataError(origin + ": text_config: must be an object, not " + std::string(type_name(*it)),
                            "give a Hugging Face config.json");
        if (!root.contains("hidden_size")) {
            model = &*it;
            prefix = "text_config.";
            out.defaults.push_back(
                "the text model of a multimodal config (text_config); a vision tower is not counted");
        }
    }
    Reader top(root, origin, "", out.defaults);
    Reader r(*model, origin, prefix, out.defaults);
    const Family& fam = prefix.empty() ? resolve_family(r, origin) : [&]() -> const Family& {
        // text_config's own model_type, else the outer one's.
        if (r.has("model_type")) return resolve_family(r, origin);
        return resolve_family(top, origin);
    }();
    TransformerShape& s = m.shape;
    read_shape(r, fam, s);
    read_weights(r.has("torch_dtype") || r.has("dtype") || r.has("quantization_config") ? r : top, fam, s, m);
    const ParamCount c = count_params(s);
    if (!(c.total() > 0) || c.total() > 1e15)
        throw DataError(origin + ": the shape gives " + format_count(c.total()) +
                            " parameters, more than 10^15; not a real model",
                        "check hidden_size, intermediate_size, num_hidden_layers and vocab_size");
    m.id = id;
    m.name = id + " (config.json)";
    m.kind = ModelKind::transformer;
    m.unit = "tokens";
    m.params = c.total();
    m.params_active = s.moe() ? c.active() : 0;
    m.flops_per_token = 2 * c.active_compute();
    m.max_seq_len = static_cast<int>(r.integer("max_position_embeddings", 1, 100000000).value_or(0));
    if (m.max_seq_len == 0)
        out.defaults.push_back(prefix + "max_position_embeddings absent: no context limit checked");
    m.reference_seq_len = m.max_seq_len > 0 ? std::min(m.max_seq_len, 4096) : 4096;
    m.default_job.task = "finetune";
    m.default_job.samples = 50000;
    m.default_job.epochs = 1;
    m.default_job.batch_size = 4;
    m.default_job.seq_len = m.max_seq_len > 0 ? std::min(m.max_seq_len, 2048) : 2048;
    m.default_job.grad_checkpointing = true;
    m.default_job.description =
        "50,000 sequences of " + std::to_string(m.default_job.seq_len) + " tokens, 1 epoch";
    m.source = origin + " (model_type " + std::string(fam.type) + ")";
    m.where.file = origin;
    return out;
}

HfConfig load_hf_config(const std::string& path) {
    std::string id = path;
    if (auto slash = id.find_last_of('/'); slash != std::string::npos) id = id.substr(slash + 1);
    if (id.size() > 5 && id.substr(id.size() - 5) == ".json") id.resize(id.size() - 5);
    if (id.empty() || id == "config") id = "config";
    return parse_hf_config(read_file(path), path, id);
}

}  // namespace gpuadvise::io
