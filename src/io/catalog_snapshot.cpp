// The built-in catalog snapshot: BuiltinCatalog as a cereal binary archive behind a magic header.
// One serialize function per struct, used for both directions; they are free functions here so the
// core stays standard-library only (they sit in the structs' namespaces for cereal's lookup).
// Each aggregate's member count is checked at compile time: a new member fails the build until
// its serialize function (and the round-trip test) list it.
#include <algorithm>
#include <array>
#include <cereal/archives/binary.hpp>
#include <cereal/types/map.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>
#include <cstdint>
#include <cstring>

#include <sstream>
#include <unordered_map>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "io/builtin_catalog.hpp"

namespace gpuadvise {
namespace io {
class MemoryInputArchive;
}
// The offers and their commitments read straight from the built-in snapshot (the same bytes that
// serialize writes through cereal, field by field without its dispatch): defined below the archive.
void read_offer(io::MemoryInputArchive& ar, Offer& x);
void read_commitment(io::MemoryInputArchive& ar, Commitment& x);
void read_shared_text(io::MemoryInputArchive& ar, SharedText& x);

namespace snapshot_detail {

// Counts the members of an aggregate: the most initializers `T{...}` accepts.
struct AnyMember {
    template <typename T>
    operator T() const;  // never defined: only used in unevaluated requires-expressions
};

template <typename T, typename... Members>
constexpr std::size_t member_count() {
    if constexpr (requires { T{Members{}..., AnyMember{}}; })
        return member_count<T, Members..., AnyMember>();
    else
        return sizeof...(Members);
}

}  // namespace snapshot_detail

// A shared string is written once, the first time it occurs, and after that as its number: the snapshot's
// rows repeat a few per-table texts (provider, currency, dates, sources, a commitment's scope and note)
// thousands of times, and read back they share one allocation again. The numbering is per archive: the
// read and write functions below start each with empty tables.
namespace snapshot_detail {
struct SharedTexts {
    std::unordered_map<std::string, std::uint32_t> written;
    std::vector<SharedText> read;
};
inline SharedTexts& shared_texts() {
    thread_local SharedTexts texts;
    return texts;
}
}  // namespace snapshot_detail

template <class Archive>
void save(Archive& ar, const SharedText& x) {
    auto& written = snapshot_detail::shared_texts().written;
    const auto [it, first] = written.emplace(x.str(), static_cast<std::uint32_t>(written.size()));
    ar(it->second);
    if (first) ar(x.str());
}
// Read by read_shared below, as the offers' texts are (the only input archive is MemoryInputArchive).
template <class Archive>
void load(Archive& ar, SharedText& x) {
    read_shared_text(ar, x);
}

#define GPUADVISE_MEMBERS(T, n)                              \
    static_assert(snapshot_detail::member_count<T>() == (n), \
                  #T " changed: update its serialize function below")

GPUADVISE_MEMBERS(SourceLocation, 3);
template <class Archive>
void serialize(Archive& ar, SourceLocation& x) {
    ar(x.file, x.line, x.column);
}

GPUADVISE_MEMBERS(DenseTflops, 5);
template <class Archive>
void serialize(Archive& ar, DenseTflops& x) {
    ar(x.fp32, x.tf32, x.fp16, x.bf16, x.fp8);
}

GPUADVISE_MEMBERS(Gpu, 23);
template <class Archive>
void serialize(Archive& ar, Gpu& x) {
    ar(x.id, x.family, x.name, x.vendor, x.architecture, x.compute_capability, x.memory_gb,
       x.memory_bandwidth_gb_per_s, x.tflops, x.tdp_w, x.form_factor, x.interconnect, x.nvlink_domain,
       x.pcie_generation, x.intra_node_busbw_gb_per_s, x.year, x.aliases, x.uncertain, x.source, x.notes,
       x.family_default, x.devices_per_package, x.devices_source);
}

GPUADVISE_MEMBERS(BillingTerms, 4);
template <class Archive>
void serialize(Archive& ar, BillingTerms& x) {
    ar(x.increment_seconds, x.minimum_seconds, x.stopped_bills_storage, x.source);
}

GPUADVISE_MEMBERS(Provider, 20);
template <class Archive>
void serialize(Archive& ar, Provider& x) {
    ar(x.id, x.name, x.currency, x.kind, x.network_gbps, x.rdma, x.rdma_gbps, x.images, x.features,
       x.driver_version, x.as_of, x.source, x.where, x.custom_kind, x.origin, x.billing, x.pue, x.pue_source,
       x.marketplace, x.single_node);
}

GPUADVISE_MEMBERS(Commitment, 11);
template <class Archive>
void serialize(Archive& ar, Commitment& x) {
    if constexpr (std::is_same_v<Archive, io::MemoryInputArchive>)
        read_commitment(ar, x);
    else
        ar(x.term_months, x.price_per_month, x.discount, x.upfront, x.scope, x.source, x.as_of, x.note,
           x.kind, x.payment, x.upfront_total);
}

GPUADVISE_MEMBERS(Offer, 19);
template <class Archive>
void serialize(Archive& ar, Offer& x) {
    if constexpr (std::is_same_v<Archive, io::MemoryInputArchive>)
        read_offer(ar, x);
    else
        ar(x.provider, x.gpu, x.gpu_count, x.region, x.instance_type, x.currency, x.on_demand_per_hour,
           x.reserved_per_month, x.spot_per_hour, x.vcpus, x.ram_gb, x.local_disk_gb, x.as_of, x.source,
           x.notes, x.where, x.commitments, x.variant_assumed, x.price_complete);
}

GPUADVISE_MEMBERS(ExchangeRate, 4);
template <class Archive>
void serialize(Archive& ar, ExchangeRate& x) {
    ar(x.currency, x.usd_per_unit, x.as_of, x.source);
}

GPUADVISE_MEMBERS(SkipSummary, 5);
template <class Archive>
void serialize(Archive& ar, SkipSummary& x) {
    ar(x.file, x.rows_by_reason, x.rows_by_kind, x.reason_kinds, x.strict_reasons);
}

GPUADVISE_MEMBERS(Diagnostic, 4);
template <class Archive>
void serialize(Archive& ar, Diagnostic& x) {
    ar(x.severity, x.where, x.message, x.kind);
}

// Policy and Diagnostics keep their data private: written through their accessors, read back
// through the setters that the YAML reader uses.
template <class Archive>
void save(Archive& ar, const Policy& x) {
    ar(x.overrides());
}
template <class Archive>
void load(Archive& ar, Policy& x) {
    std::map<std::string, double, std::less<>> overrides;
    ar(overrides);
    for (const auto& [key, value] : overrides)
        if (!x.set(key, value)) throw DataError("unknown policy key '" + key + "'");
}

template <class Archive>
void save(Archive& ar, const Diagnostics& x) {
    ar(x.all());
}
template <class Archive>
void load(Archive& ar, Diagnostics& x) {
    std::vector<Diagnostic> all;
    ar(all);
    for (auto& d : all) x.add(std::move(d));
}

GPUADVISE_MEMBERS(TransformerShape, 31);
template <class Archive>
void serialize(Archive& ar, TransformerShape& x) {
    ar(x.layers, x.hidden, x.heads, x.kv_heads, x.vocab, x.patch_size, x.decoder);
    ar(x.head_dim, x.ffn, x.tied_embeddings, x.sliding_window, x.sliding_layers, x.norms_per_layer,
       x.qkv_bias, x.o_bias, x.qk_norm, x.attention_sinks);
    ar(x.experts, x.active_experts, x.moe_ffn, x.shared_experts, x.shared_ffn, x.shared_expert_gate,
       x.dense_layers, x.expert_bias, x.router_score_bias);
    ar(x.kv_lora_rank, x.q_lora_rank, x.qk_rope_dim, x.qk_nope_dim, x.v_head_dim);
}

GPUADVISE_MEMBERS(DefaultJob, 8);
template <class Archive>
void serialize(Archive& ar, DefaultJob& x) {
    ar(x.task, x.samples, x.epochs, x.batch_size, x.seq_len, x.image_size, x.grad_checkpointing,
       x.description);
}

GPUADVISE_MEMBERS(ModelPreset, 23);
template <class Archive>
void serialize(Archive& ar, ModelPreset& x) {
    ar(x.id, x.aliases, x.name, x.kind, x.unit, x.params, x.flops_per_token, x.flops_per_sample,
       x.reference_image_size, x.reference_seq_len, x.max_seq_len, x.activation_mb_per_image,
       x.activation_basis, x.shape, x.inference_passes, x.default_job, x.uncertain, x.weights,
       x.weights_scope, x.params_active, x.source, x.notes, x.where);
}

GPUADVISE_MEMBERS(CalibrationPoint, 12);
template <class Archive>
void serialize(Archive& ar, CalibrationPoint& x) {
    ar(x.model, x.gpu, x.precision, x.throughput, x.throughput_high, x.unit, x.gpu_count, x.batch_size,
       x.seq_len, x.image_size, x.source, x.where);
}

GPUADVISE_MEMBERS(PytorchRelease, 4);
template <class Archive>
void serialize(Archive& ar, PytorchRelease& x) {
    ar(x.series, x.wheels, x.notes, x.source);
}

GPUADVISE_MEMBERS(ToolkitDriver, 3);
template <class Archive>
void serialize(Archive& ar, ToolkitDriver& x) {
    ar(x.cuda, x.min_driver, x.source);
}

GPUADVISE_MEMBERS(MinorCompatFloor, 3);
template <class Archive>
void serialize(Archive& ar, MinorCompatFloor& x) {
    ar(x.cuda_major, x.min_driver, x.source);
}

GPUADVISE_MEMBERS(WheelArchs, 6);
template <class Archive>
void serialize(Archive& ar, WheelArchs& x) {
    ar(x.wheel, x.pytorch_from, x.pytorch_to, x.archs, x.notes, x.source);
}

GPUADVISE_MEMBERS(PrecisionRule, 4);
template <class Archive>
void serialize(Archive& ar, PrecisionRule& x) {
    ar(x.precision, x.min_compute_capability, x.fallback, x.source);
}

GPUADVISE_MEMBERS(GpuDriverFloor, 4);
template <class Archive>
void serialize(Archive& ar, GpuDriverFloor& x) {
    ar(x.compute_capability, x.min_driver, x.gpus, x.source);
}

GPUADVISE_MEMBERS(CompatTables, 7);
template <class Archive>
void serialize(Archive& ar, CompatTables& x) {
    ar(x.releases, x.toolkit_drivers, x.minor_compat, x.wheel_archs, x.precision_rules, x.source,
       x.gpu_drivers);
}

GPUADVISE_MEMBERS(InstanceNetwork, 5);
template <class Archive>
void serialize(Archive& ar, InstanceNetwork& x) {
    ar(x.provider, x.instance_type, x.gbps, x.kind, x.source);
}

GPUADVISE_MEMBERS(GridIntensity, 4);
template <class Archive>
void serialize(Archive& ar, GridIntensity& x) {
    ar(x.provider, x.region, x.g_co2e_per_kwh, x.source);
}

GPUADVISE_MEMBERS(Catalog, 13);
template <class Archive>
void serialize(Archive& ar, Catalog& x) {
    ar(x.gpus, x.providers, x.offers, x.rates, x.policy, x.models, x.calibration, x.compat, x.networks,
       x.files, x.grid_carbon, x.skipped, x.warnings);
}

namespace io {

GPUADVISE_MEMBERS(TableRef, 6);
template <class Archive>
void serialize(Archive& ar, TableRef& x) {
    ar(x.provider, x.format, x.path, x.resolved_path, x.builtin, x.where);
}

GPUADVISE_MEMBERS(BuiltinTable, 6);
template <class Archive>
void serialize(Archive& ar, BuiltinTable& x) {
    ar(x.ref, x.provider_as_of, x.provider_source, x.offers, x.skipped, x.diagnostics);
}

GPUADVISE_MEMBERS(JoinedTables, 5);
template <class Archive>
void serialize(Archive& ar, JoinedTables& x) {
    ar(x.stamps, x.offers, x.skipped, x.diagnostics, x.undated_lint);
}

// BuiltinCatalog (6 members) is written in two archives, by write_builtin_snapshot below: base,
// diagnostics and joined, then the tables, so that a start-up that has no use for the tables skips them
// (tables_bytes and store_key are not stored).
GPUADVISE_MEMBERS(BuiltinCatalog, 6);

namespace {

// Names the format; bump the digits when the layout changes without a struct changing.
constexpr std::string_view kMagic("gpuadvise-snapshot-5\n", 21);

}  // namespace
}  // namespace io
}  // namespace gpuadvise

// cereal's binary input format read straight from the compiled-in bytes: BinaryInputArchive reads
// every field through std::istream and a virtual streambuf call (a third of a `recommend` went to
// the catalog's read, most of it there); this is the same layout with each field one bounds check
// and a memcpy. The output side stays cereal::BinaryOutputArchive.
namespace gpuadvise::io {
class MemoryInputArchive : public cereal::InputArchive<MemoryInputArchive, cereal::AllowEmptyClassElision> {
public:
    explicit MemoryInputArchive(std::string_view bytes)
        : cereal::InputArchive<MemoryInputArchive, cereal::AllowEmptyClassElision>(this),
          at_(bytes.data()),
          end_(bytes.data() + bytes.size()) {}
    void loadBinary(void* data, std::size_t size) {
        if (size > static_cast<std::size_t>(end_ - at_)) short_read(size);
        std::memcpy(data, at_, size);
        at_ += size;
    }
    // A number: a fixed-size copy the compiler turns into one load.
    template <class T>
    __attribute__((always_inline)) void load_value(T& t) {
        if (sizeof(T) > static_cast<std::size_t>(end_ - at_)) short_read(sizeof(T));
        std::memcpy(std::addressof(t), at_, sizeof(T));
        at_ += sizeof(T);
    }
    std::size_t remaining() const { return static_cast<std::size_t>(end_ - at_); }
    template <class T>
    T number() {
        T t;
        load_value(t);
        return t;
    }
    // cereal's std::string: its size (cereal::size_type), then its bytes.
    void text(std::string& s) {
        const auto size = number<cereal::size_type>();
        if (size > static_cast<std::size_t>(end_ - at_)) short_read(static_cast<std::size_t>(size));
        s.clear();  // then append: into a string's own buffer without assign's checks for overlap (the
        s.append(at_, static_cast<std::size_t>(size));  // offers' 7,500 texts: 0.65 M -> 0.46 M)
        at_ += size;
    }
    // cereal's bool: a byte (any other value than 0 read as true, as a damaged byte must not become a bool
    // holding neither).
    bool flag() { return number<std::uint8_t>() != 0; }
    // cereal's std::optional: whether it is empty, then the value when it is not.
    template <class T>
    void optional(std::optional<T>& x) {
        if (flag())
            x.reset();
        else
            x = number<T>();
    }

private:
    [[noreturn]] __attribute__((noinline)) void short_read(std::size_t size) const {
        throw cereal::Exception("Failed to read " + std::to_string(size) + " bytes from input stream! Read " +
                                std::to_string(end_ - at_));
    }
    const char* at_;
    const char* end_;
};

// cereal pairs each input archive with an output archive (its checks of load_minimal against
// save_minimal ask for one); the pair of this one is never written with.
class MemoryOutputArchive
    : public cereal::OutputArchive<MemoryOutputArchive, cereal::AllowEmptyClassElision> {
public:
    MemoryOutputArchive()
        : cereal::OutputArchive<MemoryOutputArchive, cereal::AllowEmptyClassElision>(this) {}
};

template <class T>
inline void prologue(MemoryInputArchive&, const T&) {}
template <class T>
inline void epilogue(MemoryInputArchive&, const T&) {}
template <class T>
inline std::enable_if_t<std::is_arithmetic_v<T>, void> CEREAL_LOAD_FUNCTION_NAME(MemoryInputArchive& ar,
                                                                                 T& t) {
    ar.load_value(t);
}
template <class T>
inline void CEREAL_SERIALIZE_FUNCTION_NAME(MemoryInputArchive& ar, cereal::NameValuePair<T>& t) {
    ar(t.value);
}
template <class T>
inline void CEREAL_SERIALIZE_FUNCTION_NAME(MemoryInputArchive& ar, cereal::SizeTag<T>& t) {
    ar(t.size);
}
template <class T>
inline void CEREAL_LOAD_FUNCTION_NAME(MemoryInputArchive& ar, cereal::BinaryData<T>& b) {
    ar.loadBinary(b.data, static_cast<std::size_t>(b.size));
}
}  // namespace gpuadvise::io

CEREAL_REGISTER_ARCHIVE(gpuadvise::io::MemoryInputArchive)
CEREAL_SETUP_ARCHIVE_TRAITS(gpuadvise::io::MemoryInputArchive, gpuadvise::io::MemoryOutputArchive)

namespace gpuadvise {

// The built-in snapshot holds thousands of offers and commitments: decoding them through cereal's
// generic calls was 4.6 M of the common question's 27 M instructions. These read the same layout as
// serialize above writes (the snapshot round-trip tests compare every field), field by field.
namespace {
// A text not read before (or a number past them: a damaged snapshot).
__attribute__((noinline)) void read_new_shared(io::MemoryInputArchive& ar, std::vector<SharedText>& read,
                                               SharedText& x, std::uint32_t id) {
    if (id != read.size())
        throw DataError("a shared text refers to text " + std::to_string(id) + " of " +
                        std::to_string(read.size()));
    std::string text;
    ar.text(text);
    read.emplace_back(std::move(text));
    x = read.back();
}
__attribute__((always_inline)) inline void read_shared(io::MemoryInputArchive& ar,
                                                       std::vector<SharedText>& read, SharedText& x) {
    const auto id = ar.number<std::uint32_t>();
    if (id < read.size())
        x = read[id];
    else
        read_new_shared(ar, read, x, id);
}
}  // namespace

void read_shared_text(io::MemoryInputArchive& ar, SharedText& x) {
    read_shared(ar, snapshot_detail::shared_texts().read, x);
}

namespace {
template <class E>
E read_enum(io::MemoryInputArchive& ar) {
    return static_cast<E>(ar.number<std::underlying_type_t<E>>());
}
__attribute__((always_inline)) inline std::size_t read_size(io::MemoryInputArchive& ar) {
    const auto size = ar.number<cereal::size_type>();
    // Each element takes at least a byte: a larger count is a damaged snapshot, not a huge allocation.
    if (size > ar.remaining())
        throw cereal::Exception("a count of " + std::to_string(size) + " is past the end");
    return static_cast<std::size_t>(size);
}
}  // namespace

void read_commitment(io::MemoryInputArchive& ar, Commitment& x) {
    auto& read = snapshot_detail::shared_texts().read;
    x.term_months = ar.number<int>();
    x.price_per_month = ar.number<double>();
    ar.optional(x.discount);
    x.upfront = ar.number<double>();
    read_shared(ar, read, x.scope);
    read_shared(ar, read, x.source);
    read_shared(ar, read, x.as_of);
    read_shared(ar, read, x.note);
    x.kind = read_enum<CommitmentKind>(ar);
    x.payment = read_enum<Payment>(ar);
    ar.optional(x.upfront_total);
}

void read_offer(io::MemoryInputArchive& ar, Offer& x) {
    auto& read = snapshot_detail::shared_texts().read;
    read_shared(ar, read, x.provider);
    ar.text(x.gpu);
    x.gpu_count = ar.number<int>();
    ar.text(x.region);
    ar.text(x.instance_type);
    read_shared(ar, read, x.currency);
    ar.optional(x.on_demand_per_hour);
    ar.optional(x.reserved_per_month);
    ar.optional(x.spot_per_hour);
    ar.optional(x.vcpus);
    ar.optional(x.ram_gb);
    ar.optional(x.local_disk_gb);
    read_shared(ar, read, x.as_of);
    read_shared(ar, read, x.source);
    x.notes.resize(read_size(ar));
    for (SharedText& n : x.notes) read_shared(ar, read, n);
    read_shared(ar, read, x.where.file);
    x.where.line = ar.number<int>();
    x.where.column = ar.number<int>();
    x.commitments.resize(read_size(ar));
    for (Commitment& c : x.commitments) read_commitment(ar, c);
    x.variant_assumed = ar.flag();
    x.price_complete = ar.flag();
}

}  // namespace gpuadvise

namespace gpuadvise {
namespace io {

std::string write_builtin_snapshot(const BuiltinCatalog& builtin) {
    std::ostringstream out(std::ios::binary);
    out << kMagic;
    {
        cereal::BinaryOutputArchive archive(out);
        snapshot_detail::shared_texts() = {};
        archive(builtin.base, builtin.diagnostics, builtin.joined);
    }
    // The tables: their count, then each as its own archive (its texts numbered on their own) behind its
    // size, so that a load decodes only the tables it reads (index_snapshot_tables).
    std::string tables;
    const auto put_size = [&tables](std::uint64_t v) {
        char bytes[sizeof v];
        std::memcpy(bytes, &v, sizeof v);
        tables.append(bytes, sizeof v);
    };
    put_size(builtin.tables.size());
    for (const BuiltinTable& t : builtin.tables) {
        std::ostringstream one(std::ios::binary);
        {
            cereal::BinaryOutputArchive archive(one);
            snapshot_detail::shared_texts() = {};
            archive(t);
        }
        const std::string bytes = std::move(one).str();
        put_size(bytes.size());
        tables += bytes;
    }
    snapshot_detail::shared_texts() = {};
    out << tables;
    return std::move(out).str();
}

namespace {

const char* const kSnapshotHint = "rebuild gpuadvise (the snapshot is made from data/ at build time)";

// Reads `read` from the whole of `bytes` (a DataError if they are short, damaged or longer).
template <typename Read>
void read_snapshot_part(std::string_view bytes, Read&& read) {
    snapshot_detail::shared_texts() = {};
    try {
        MemoryInputArchive archive(bytes);
        read(archive);
    } catch (const DataError&) {
        snapshot_detail::shared_texts() = {};
        throw;
    } catch (
        const std::exception& e) {  // cereal::Exception (truncated), bad_alloc, length_error, a policy key
        snapshot_detail::shared_texts() = {};
        throw DataError(std::string("the built-in catalog snapshot is corrupt: ") + e.what(), kSnapshotHint);
    }
    snapshot_detail::shared_texts() = {};
}

void no_bytes_left(const MemoryInputArchive& archive) {
    if (archive.remaining() != 0)
        throw DataError("the built-in catalog snapshot is corrupt: " + std::to_string(archive.remaining()) +
                            " bytes after its end",
                        kSnapshotHint);
}

}  // namespace

BuiltinCatalog read_builtin_snapshot(std::string_view bytes, bool tables_now) {
    if (bytes.substr(0, kMagic.size()) != kMagic)
        throw DataError("the built-in catalog snapshot is not in the format this gpuadvise reads",
                        kSnapshotHint);
    BuiltinCatalog builtin;
    read_snapshot_part(bytes.substr(kMagic.size()), [&](MemoryInputArchive& archive) {
        archive(builtin.base, builtin.diagnostics, builtin.joined);
        builtin.tables_bytes = bytes.substr(bytes.size() - archive.remaining());
    });
    if (tables_now) {
        builtin.tables = read_snapshot_tables(builtin.tables_bytes);
        builtin.tables_bytes = {};
    }
    return builtin;
}

std::vector<SnapshotTablePart> index_snapshot_tables(std::string_view tables_bytes) {
    const auto corrupt = [](const std::string& why) {
        return DataError("the built-in catalog snapshot is corrupt: " + why, kSnapshotHint);
    };
    std::uint64_t count = 0;
    if (tables_bytes.size() < sizeof count) throw corrupt("no table count");
    std::memcpy(&count, tables_bytes.data(), sizeof count);
    std::size_t at = sizeof count;
    std::vector<SnapshotTablePart> parts;
    for (std::uint64_t i = 0; i < count; ++i) {
        std::uint64_t size = 0;
        if (tables_bytes.size() - at < sizeof size)
            throw corrupt("table " + std::to_string(i) + " has no size");
        std::memcpy(&size, tables_bytes.data() + at, sizeof size);
        at += sizeof size;
        if (tables_bytes.size() - at < size) throw corrupt("table " + std::to_string(i) + " is cut short");
        SnapshotTablePart& part = parts.emplace_back();
        part.bytes = tables_bytes.substr(at, size);
        at += size;
        // The ref is the table's first member: read alone from the front of its archive.
        read_snapshot_part(part.bytes, [&](MemoryInputArchive& archive) { archive(part.ref); });
    }
    if (at != tables_bytes.size())
        throw corrupt(std::to_string(tables_bytes.size() - at) + " bytes after its end");
    return parts;
}

BuiltinTable read_snapshot_table(const SnapshotTablePart& part) {
    BuiltinTable table;
    read_snapshot_part(part.bytes, [&](MemoryInputArchive& archive) {
        archive(table);
        no_bytes_left(archive);
    });
    return table;
}

std::vector<BuiltinTable> read_snapshot_tables(std::string_view tables_bytes) {
    std::vector<BuiltinTable> tables;
    for (const SnapshotTablePart& part : index_snapshot_tables(tables_bytes))
        tables.push_back(read_snapshot_table(part));
    return tables;
}

// ---- the cache's table stores

namespace {

constexpr std::string_view kStoreMagic("gpuadvise-table-store-1\n", 24);
constexpr std::size_t kStoreHeader = kStoreMagic.size() + 5 * sizeof(std::uint64_t);

void put_u64(std::string& out, std::uint64_t v) {
    char bytes[sizeof v];
    std::memcpy(bytes, &v, sizeof v);
    out.append(bytes, sizeof v);
}

std::uint64_t get_u64(std::string_view bytes, std::size_t at) {
    std::uint64_t v = 0;
    std::memcpy(&v, bytes.data() + at, sizeof v);
    return v;
}

}  // namespace

std::string write_table_store(const BuiltinTable& table, const TableStoreKey& key) {
    std::ostringstream payload(std::ios::binary);
    {
        cereal::BinaryOutputArchive archive(payload);
        snapshot_detail::shared_texts() = {};
        archive(table);
        snapshot_detail::shared_texts() = {};
    }
    const std::string body = std::move(payload).str();
    std::string out(kStoreMagic);
    out.reserve(kStoreHeader + body.size());
    put_u64(out, key.build);
    put_u64(out, key.csv_hash);
    put_u64(out, key.csv_size);
    put_u64(out, body.size());
    put_u64(out, hash_text(body));
    out += body;
    return out;
}

std::optional<BuiltinTable> read_table_store(std::string_view bytes, const TableStoreKey& key,
                                             std::string& why) {
    if (bytes.size() < kStoreHeader || bytes.substr(0, kStoreMagic.size()) != kStoreMagic) {
        why = bytes.substr(0, kStoreMagic.size() - 2) == kStoreMagic.substr(0, kStoreMagic.size() - 2)
                  ? "stale: written in another store format"
                  : "corrupt: not a gpuadvise table store";
        return std::nullopt;
    }
    const std::size_t at = kStoreMagic.size();
    if (get_u64(bytes, at) != key.build) {
        why = "stale: written by another gpuadvise build";
        return std::nullopt;
    }
    if (get_u64(bytes, at + 8) != key.csv_hash || get_u64(bytes, at + 16) != key.csv_size) {
        why = "stale: vms.csv changed after it was written";
        return std::nullopt;
    }
    const std::string_view body = bytes.substr(kStoreHeader);
    if (get_u64(bytes, at + 24) != body.size() || get_u64(bytes, at + 32) != hash_text(body)) {
        why = "corrupt: its size or checksum does not match its contents";
        return std::nullopt;
    }
    BuiltinTable table;
    try {
        read_snapshot_part(body, [&](MemoryInputArchive& archive) {
            archive(table);
            no_bytes_left(archive);
        });
    } catch (const DataError& e) {
        why = std::string("corrupt: ") + e.what();
        return std::nullopt;
    }
    return table;
}

}  // namespace io
}  // namespace gpuadvise
