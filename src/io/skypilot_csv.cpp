// SkyPilot vms.csv tables -> offers. Columns are found by header name (their order differs per
// cloud). Rows become one offer per (instance type, GPU, count, region): zone duplicates merge,
// keeping the lowest prices. GCP's accelerator rows are priced with the host VM row of the same
// zone (data/skypilot/PROVENANCE.md, "GCP pricing representation"). What cannot be used is
// counted per reason in Catalog::skipped; malformed input is a located error.
#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

#include "gpuadvise/base/dates.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/hash_index.hpp"
#include "gpuadvise/base/numbers.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"
#include "gpuadvise/market/catalog_lint.hpp"
#include "io/catalog_loader.hpp"
#include "io/huge_pages.hpp"
#include "io/offer_tables.hpp"
#include "io/skypilot_gpu_names.hpp"
#include "io/skypilot_records.hpp"

namespace gpuadvise::io {
namespace {

constexpr int kMaxErrorsPerFile = 20;
// GCP writes 700.0 for TPU slices that a zone does not offer (PROVENANCE.md, caveats).
constexpr double kGcpSentinelPrice = 700.0;
constexpr double kMaxTableNumber = 1e7;

// Room for `n` elements, at least doubling the capacity: a tree of 10,000 one-row clouds grew the
// catalog's offers by an exact reserve per table, copying them all each time (10,000 clouds: 17 s).
template <class V>
void reserve_geometric(V& v, std::size_t n) {
    if (n > v.capacity()) v.reserve(std::max(n, 2 * v.capacity()));
}

struct Columns {
    int instance = -1, accelerator = -1, count = -1, vcpus = -1, memory = -1, gpu_info = -1, price = -1,
        spot = -1, region = -1, zone = -1, notes = -1;  // Notes: written by `catalog import`
};

struct Row {
    std::string_view instance, accelerator, region, zone;
    const GpuInfoFacts* info = nullptr;  // the GpuInfo column, scanned (once per distinct text)
    double count = 0;
    std::optional<double> on_demand, spot, vcpus, ram_gb;
    bool on_demand_empty = false;
    int line = 0;
    std::size_t source = 0;
    std::string_view notes;
    std::string_view gpu_info;  // the GpuInfo column, kept only in a batch not keyed when read
    // Its offer key, worked out by key_row (a row with an instance type, an accelerator and a whole
    // count): the GPU it maps to, the key's hash, whether the filter drops it.
    const GpuMapping* mapping = nullptr;
    std::size_t hash = 0;
    bool dropped = false;
};

constexpr std::size_t kBatchRows = 2048;
constexpr std::size_t kBatchText = std::size_t{512} << 10;

// Rows from the read stage to the offer stage. A streamed table's piece is gone once the next is
// read, so its fields are copied into `text`, which never reallocates while the batch fills: a
// record that would not fit ends the batch first (fits()). A table in memory is read in one
// thread, each row handed over as it is read (copy false): its fields stay views into the table, or
// into libcsv's buffer for a quoted record, valid until the next record.
struct RowBatch {
    std::string text;
    std::vector<Row> rows;
    std::size_t piece_bytes = 0;  // > 0: a piece of the table ends with this batch (its size)
    bool copy = true;
    // The rows' GpuInfo facts and keys worked out as they were read; false: by the offer stage (a
    // streamed table's read stage leaves them to it while it waits for rows: the two stages balance).
    bool keyed = true;

    bool fits(const CsvRecord& rec) {
        if (!copy) return true;
        std::size_t bytes = 0;
        for (std::string_view f : rec.fields) bytes += f.size();
        if (rows.empty() && text.size() + bytes > text.capacity()) {
            text.clear();  // an empty batch: nothing points into it yet (a new one: only SSO room)
            text.reserve(std::max(kBatchText, bytes));
        }
        return text.size() + bytes <= text.capacity();
    }
    std::string_view keep(std::string_view field) {
        if (!copy) return field;
        const std::size_t at = text.size();
        text.append(field);
        return std::string_view(text).substr(at, field.size());
    }
    void clear() {
        text.clear();
        rows.clear();
        piece_bytes = 0;
    }
};

// A bounded hand-over of batches between two threads; used batches come back to be refilled
// (their buffers keep their capacity: no page faults per batch).
class RowPipe {
public:
    RowBatch take() {
        std::lock_guard lock(mutex_);
        if (spare_.empty()) return RowBatch();
        RowBatch b = std::move(spare_.back());
        spare_.pop_back();
        b.clear();
        return b;
    }
    // False once cancelled. `drained`: no batch was waiting (the offer stage keeps up with the reader).
    bool push(RowBatch&& batch, bool& drained) {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return cancelled_ || full_.size() < kDepth; });
        if (cancelled_) return false;
        drained = full_.empty();
        full_.push_back(std::move(batch));
        changed_.notify_all();
        return true;
    }
    std::optional<RowBatch> pop() {  // nullopt once the reader is done and every batch taken
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return closed_ || !full_.empty(); });
        if (full_.empty()) return std::nullopt;
        RowBatch b = std::move(full_.front());
        full_.pop_front();
        changed_.notify_all();
        return b;
    }
    void give_back(RowBatch&& batch) {
        std::lock_guard lock(mutex_);
        spare_.push_back(std::move(batch));
    }
    void close(std::exception_ptr failure) {
        std::lock_guard lock(mutex_);
        closed_ = true;
        failure_ = std::move(failure);
        changed_.notify_all();
    }
    void cancel() {
        std::lock_guard lock(mutex_);
        cancelled_ = true;
        changed_.notify_all();
    }
    void rethrow() {
        std::lock_guard lock(mutex_);
        if (failure_) std::rethrow_exception(failure_);
    }

private:
    static constexpr std::size_t kDepth = 2;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<RowBatch> full_;
    std::vector<RowBatch> spare_;
    bool closed_ = false, cancelled_ = false;
    std::exception_ptr failure_;
};

std::string_view trim_region(std::string_view r) {
    while (!r.empty() && (r.front() == ' ' || r.front() == ',')) r.remove_prefix(1);
    while (!r.empty() && (r.back() == ' ' || r.back() == ',')) r.remove_suffix(1);
    return r;
}

// What makes rows one offer: instance type, GPU, count, region (zones merge).
struct OfferKey {
    std::string_view machine, gpu, region;
    int count = 0;
    bool operator==(const OfferKey&) const = default;
};

// The hash of an offer key (machine, GPU, region, count), from the hashes of the instance type and the
// GPU id (worked out once per run of rows and per kind of row: TableReader::key_row_kind).
std::size_t hash_key(std::size_t machine, std::size_t gpu, std::string_view region, int count) {
    return hash_combine(hash_combine(hash_combine(machine, gpu), hash_text(region)),
                        static_cast<std::size_t>(count));
}

// A price kept as a double with NaN for none (PrunedKey, the pending rows, host rows) as an optional.
std::optional<double> price_or_none(double v) {
    return std::isnan(v) ? std::nullopt : std::optional<double>(v);
}

OfferKey offer_key(const Offer& o) { return {o.instance_type, o.gpu, o.region, o.gpu_count}; }

// The host machine type SkyPilot pairs with a GCP accelerator; "" = an N1/G2 host with no row here.
std::string gcp_host_type(std::string_view accelerator, double count) {
    if (!(count >= 1 && count <= 4096)) return "";  // keeps the int conversion below defined
    const std::string n = std::to_string(static_cast<int>(count));
    if (accelerator == "A100") return count == 16 ? "a2-megagpu-16g" : "a2-highgpu-" + n + "g";
    if (accelerator == "A100-80GB") return "a2-ultragpu-" + n + "g";
    if (accelerator == "H100") return "a3-highgpu-" + n + "g";
    if (accelerator == "H100-MEGA") return "a3-megagpu-8g";
    if (accelerator == "H200") return "a3-ultragpu-8g";
    if (accelerator == "B200") return "a4-highgpu-8g";
    return "";
}

// N1-attached GPUs (T4, V100, P100, P4, K80) have no fixed host: SkyPilot's default for one GPU is an
// n1 host of 8 vCPUs and at least 4 GiB per vCPU, n1-highmem-8 (sky/catalog/gcp_catalog.py:
// _DEFAULT_HOST_VM_FAMILY, _DEFAULT_NUM_VCPUS = 8, _DEFAULT_MEMORY_CPU_RATIO = 4). Scaled to 8 vCPUs per
// GPU for several (an estimate of the host a user would pick; within GCP's vCPU limit per GPU count).
std::string gcp_n1_host_type(std::string_view accelerator, double count) {
    if (!(count >= 1 && count <= 8)) return "";
    if (accelerator != "T4" && accelerator != "V100" && accelerator != "P100" && accelerator != "P4" &&
        accelerator != "K80")
        return "";
    return "n1-highmem-" + std::to_string(8 * static_cast<int>(count));
}

class TableReader {
    // A GCP accelerator row (no instance type), priced once every host row is known (56 bytes).
    struct PendingAccelerator {
        const GpuInfoFacts* info;
        double count;
        double on_demand, spot;                    // NaN = none (kNone)
        std::uint32_t accelerator, region, place;  // texts_ ids; place: the zone, else the region
        int line;
        std::uint32_t source : 31;
        bool on_demand_empty : 1;
    };
    struct RowKind {
        const GpuMapping* mapping;  // in a mapper's memo: valid while the reader lives
        const Gpu* gpu;             // with a filter: the catalog GPU the id resolves to (nullptr: none)
        std::size_t gpu_hash;       // hash_text of the GPU id
    };
    // What keying rows looks up, with the memos that make it one lookup a row (key_row). GpuInfo
    // texts repeat across rows (one per GPU model and count): each is scanned once. At most 65,536
    // row kinds are kept (a table of as many GPU descriptions).
    struct Keyer {
        explicit Keyer(const Catalog& catalog) : mapper(catalog) {}
        SkypilotGpuMapper mapper;
        TextMemo<GpuInfoFacts> gpu_info;
        TextMemo<const Gpu*> resolved;
        TextMemo<bool> region_ok;
        TextMemo<RowKind> row_kinds{std::size_t{1} << 16};
        struct {  // the last instance type keyed: its form-factor hint and hash
            std::string text;
            std::string_view hint;
            std::size_t hash = 0;
            bool known = false;
        } machine;
        std::string kind_key;
        struct {  // rows of a kind come in runs: the last kind, its parts compared without a key or hash
            std::string_view hint;  // form_factor_hint's: a literal
            const GpuInfoFacts* info = nullptr;
            double count = -1;
            std::string accelerator;
            RowKind kind{};
        } last;
    };

public:
    TableReader(const std::vector<TableSource>& sources, Catalog& catalog, Diagnostics& diags,
                const OfferFilter* filter, std::vector<PrunedOffers>* pruned)
        : pruned_out_(pruned),
          sources_(sources),
          catalog_(catalog),
          diags_(diags),
          out_(&diags),
          read_keyer_(catalog),
          offer_keyer_(catalog),
          tallies_(sources.size()),
          strict_reasons_(sources.size()) {
        provider_ = sources.front().ref.provider;
        if (sources.size() > kMaxSources) throw std::length_error("more than 2^30 tables of one provider");
        // One offer per data row at most: reserve once (untouched capacity costs no memory).
        std::size_t lines = 0;
        bool streamed = false;
        for (const auto& s : sources) {
            display_names_.push_back(table_display_name(s.ref));
            if (s.stream) {
                // Lines estimated from the first piece's, with a quarter more: running past the
                // reservation would double the offers (both copies held at once: 1M offers, +300 MB).
                streamed = true;
                const std::string_view head = s.stream->peek();
                const auto head_lines = static_cast<double>(count_newlines(head) + 1);
                lines +=
                    static_cast<std::size_t>(1.25 * static_cast<double>(s.stream->size()) * head_lines /
                                             static_cast<double>(std::max<std::size_t>(1, head.size()))) +
                    1;
                continue;
            }
            for (const char *p = s.bytes.data(), *end = p + s.bytes.size();
                 p != end &&
                 (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p))));
                 ++p)
                ++lines;
            ++lines;
        }
        // What the load and a recommend allocate per row after this point, rounded up to 1 KB: the
        // Offer (sizeof 312; its per-table strings are shared, not allocated per row), the zone index
        // (~40), a recommend Option (104) and its ranking arrays (~100). Address space only: what is
        // not used is never touched. Measured without it (2026-12-01, 2 loaded cores): 100k-offer
        // recommend 20k page faults instead of 1.4k and 5x the system time, so it stays.
        const Provider* provider = sources.front().provider;
        if (!provider)
            for (const auto& p : catalog.providers)
                if (p.id == provider_) provider = &p;  // the last of a repeated id
        if (provider) {
            as_of_ = provider->as_of;
            source_ = provider->source;
        }
        setup_filter(filter);
        // Read with a filter, a streamed table keeps only its matching rows: nothing to reserve ahead
        // (the vector and the zone index grow with them).
        if (streamed && filter_) lines = 0;
        prepare_heap(lines * 1024);
        reserve_geometric(catalog_.offers, catalog_.offers.size() + lines);
        advise_huge_pages(catalog_.offers.data() + catalog_.offers.size(),
                          (catalog_.offers.capacity() - catalog_.offers.size()) * sizeof(Offer));
        reserve_keys(lines);
        offer_hash_.reserve(lines);
        first_offer_ = catalog_.offers.size();
    }

    void run() {
        for (std::size_t i = 0; i < sources_.size(); ++i) read_source(i);
        // Room for every pending row's offer (address space only: what is not used is not touched),
        // so that the offers made last do not move the others, a doubling at a time.
        // The same for the dropped keys they may make, and the key index: a doubling of 200,000
        // dropped keys copied them and faulted their pages again (a GCP-shaped table of 1M rows,
        // 750,000 of them pending: 650 -> 550 ms).
        if (pending_rows_ > 0) {
            reserve_geometric(catalog_.offers, catalog_.offers.size() + pending_rows_);
            advise_untouched(catalog_.offers);
            if (filter_) {
                reserve_geometric(pruned_, pruned_.size() + pending_rows_);
                advise_untouched(pruned_);
            }
            reserve_keys(keys_.size() + pending_rows_);
        }
        for (const auto& block : pending_)
            for (const PendingAccelerator& a : block) price_gcp_accelerator(a);
        if (filter_) finish_pruned();
        for (std::size_t i = 0; i < sources_.size(); ++i) {
            const SkipTally& t = tallies_[i];
            if (t.reasons.empty()) continue;
            SkipSummary& s = catalog_.skipped.emplace_back();
            s.file = display_names_[i];
            for (const auto& [reason, kind, rows] : t.reasons) {
                s.rows_by_reason[reason] = rows;
                s.reason_kinds[reason] = kind;
            }
            for (std::size_t k = 0; k < t.kinds.size(); ++k)
                if (t.kinds[k] > 0) s.rows_by_kind[static_cast<SkipKind>(k)] = t.kinds[k];
            s.strict_reasons = strict_reasons_[i];
        }
    }

private:
    // One more row skipped (or merged, or kept with a mark) for `reason`; true when it is the first of
    // its source for that reason. Rows in a run mostly share their reason: it is compared with the
    // last one counted, then with the few others.
    bool count(std::size_t source, SkipKind kind, std::string_view reason) {
        SkipTally& t = tallies_[source];
        bool first = false;
        if (t.last >= t.reasons.size() || t.reasons[t.last].reason != reason) {
            t.last = 0;
            while (t.last < t.reasons.size() && t.reasons[t.last].reason != reason) ++t.last;
            if (t.last == t.reasons.size()) {
                t.reasons.push_back({std::string(reason), kind, 0});
                first = true;
            }
        }
        t.reasons[t.last].kind = kind;  // a reason's kind is the last it was counted with
        ++t.reasons[t.last].rows;
        ++t.kinds[static_cast<std::size_t>(kind)];
        return first;
    }

    void error(std::size_t source, int line, const std::string& message) {
        if (++errors_ <= kMaxErrorsPerFile)
            out_->error({display_names_[source], line, 0}, message);
        else if (errors_ == kMaxErrorsPerFile + 1)
            out_->error({display_names_[source], line, 0}, "more errors in this file not shown");
    }

    bool read_header(std::size_t source, const CsvRecord& rec) {
        std::map<std::string_view, int*> want{{"InstanceType", &cols_.instance},
                                              {"AcceleratorName", &cols_.accelerator},
                                              {"AcceleratorCount", &cols_.count},
                                              {"vCPUs", &cols_.vcpus},
                                              {"MemoryGiB", &cols_.memory},
                                              {"GpuInfo", &cols_.gpu_info},
                                              {"Price", &cols_.price},
                                              {"SpotPrice", &cols_.spot},
                                              {"Region", &cols_.region},
                                              {"AvailabilityZone", &cols_.zone},
                                              {"Notes", &cols_.notes}};
        cols_ = Columns{};
        for (std::size_t i = 0; i < rec.fields.size(); ++i) {
            std::string_view name = rec.fields[i];
            if (i == 0 && name.substr(0, 3) == "\xEF\xBB\xBF")
                name.remove_prefix(3);  // UTF-8 byte-order mark
            if (auto it = want.find(name); it != want.end()) {
                if (*it->second >= 0) {
                    error(source, rec.line,
                          "column '" + std::string(name) + "' appears twice (columns " +
                              std::to_string(*it->second + 1) + " and " + std::to_string(i + 1) +
                              "); a vms.csv has each column once");
                    return false;
                }
                *it->second = static_cast<int>(i);
            }
        }
        width_ = rec.fields.size();
        std::vector<std::string> missing;
        for (auto [name, col] : {std::pair{"InstanceType", cols_.instance},
                                 {"AcceleratorName", cols_.accelerator},
                                 {"AcceleratorCount", cols_.count},
                                 {"Price", cols_.price},
                                 {"Region", cols_.region}})
            if (col < 0) missing.emplace_back(name);
        if (missing.empty()) return true;
        std::string list;
        for (const auto& m : missing) list += (list.empty() ? "'" : ", '") + m + "'";
        error(source, rec.line,
              "SkyPilot table header lacks column" + std::string(missing.size() > 1 ? "s " : " ") + list +
                  "; a vms.csv needs InstanceType, AcceleratorName, AcceleratorCount, Price and Region");
        return false;
    }

    // A number column: empty -> nullopt, text or a negative value -> located error. A price per hour
    // lies in [0, 1e7] (`max`; other columns have their own checks); a denormal is noise.
    bool number(std::size_t source, const CsvRecord& rec, int col, const char* name,
                std::optional<double>& out, double max = HUGE_VAL) {
        out.reset();
        if (col < 0) return true;
        const std::string_view text = rec.fields[static_cast<std::size_t>(col)];
        if (text.empty()) return true;
        out = parse_decimal(text);
        if (out && *out >= 0 && *out <= max && !is_denormal(*out)) return true;
        const std::string shown = shorten(text);
        std::string why = !out         ? ": '" + shown + "' is not a number"
                          : *out < 0   ? ": " + shown + " is negative"
                          : *out > max ? ": " + shown + " is out of range; expected 0 to 10000000"
                                       : ": " + shown + " " + std::string(kDenormalReason);
        error(source, rec.line, std::string(name) + why);
        out.reset();
        return false;
    }

    // The table piece by piece (one piece: a text in memory; a stream: whole lines, a chunk at a time),
    // in two stages: read (the CSV split, UTF-8, the number columns: every located error) and offers
    // (everything else: no diagnostics), handed over in batches of rows. A streamed table runs the
    // read stage on a second thread; keying the rows (GpuInfo, GPU, key hash, filter: key_row) goes
    // to whichever stage is the less busy, batch by batch (StreamKeying), so that the two take about
    // as long. The result is the same either way, as only the read stage reports. What the reader found is
    // reported only once the whole table is seen, as when it was read in one buffer: a NUL byte
    // anywhere is the only error then, invalid UTF-8 the next (no row errors).
    void read_source(std::size_t source) {
        const TableSource& src = sources_[source];
        errors_ = 0;
        sampled_ = false;
        Diagnostics local;
        out_ = &local;
        ReadOutcome outcome;
        if (src.stream) {
            read_in_parallel(source, local, outcome);
        } else {
            RowBatch batch;
            batch.copy = false;
            read_stage(source, local, outcome, batch, [&](RowBatch& full) {
                offer_stage(source, full);
                full.clear();
                return true;
            });
        }
        out_ = &diags_;
        if (outcome.nul_line) {
            error(source, static_cast<int>(*outcome.nul_line),
                  "the table contains a NUL byte; expected a CSV text file (UTF-8)");
            return;
        }
        if (outcome.bad_utf8) {
            diags_.error({display_names_[source], outcome.bad_utf8->first, outcome.bad_utf8->second},
                         "invalid UTF-8; save the table as UTF-8 (a Latin-1 or Windows-1252 file needs "
                         "converting, e.g. with iconv)");
            return;
        }
        diags_.append(local);
    }

    struct ReadOutcome {
        std::optional<std::pair<int, int>> bad_utf8;
        std::optional<long> nul_line;
    };

    // The read stage over the whole table: rows into `batch`, handed to `hand_over` when full, at the
    // end of each piece and at the end (false from it: stop). Row errors go to `local` (out_).
    template <class HandOver>
    void read_stage(std::size_t source, Diagnostics& local, ReadOutcome& outcome, RowBatch& batch,
                    const HandOver& hand_over) {
        const TableSource& src = sources_[source];
        bool header = true, stopped = false;
        const std::function<bool(const CsvRecord&)> on_record = [&](const CsvRecord& rec) {
            if (header) {
                header = false;
                return read_header(source, rec);
            }
            if (rec.fields.size() == 1 && rec.fields[0].empty()) return true;  // blank line
            if (rec.fields.size() != width_) {
                error(source, rec.line,
                      "row has " + std::to_string(rec.fields.size()) + " fields, the header has " +
                          std::to_string(width_) + " (a field with a comma must be quoted)");
                return true;
            }
            if (!batch.fits(rec)) {  // hand the batch over first; an empty one makes room
                if (!hand_over(batch)) return !(stopped = true);
                batch.fits(rec);
            }
            read_row(source, rec, batch);
            if ((!batch.copy || batch.rows.size() >= kBatchRows) && !hand_over(batch))
                return !(stopped = true);
            return true;
        };
        CsvRecordStream csv(display_names_[source], on_record, local);
        long lines_before = 0;  // newlines in the pieces before
        bool first = true;
        while (!stopped) {
            std::string_view piece;
            if (!src.stream) {
                if (!first) break;
                piece = src.bytes;
            } else {
                piece = src.stream->next();
                if (piece.empty()) break;
            }
            first = false;
            if (auto nul = piece.find('\0'); nul != std::string_view::npos) {
                outcome.nul_line = lines_before + 1 + static_cast<long>(count_newlines(piece.substr(0, nul)));
                return;
            }
            if (!outcome.bad_utf8)
                if (auto bad = first_invalid_utf8(piece)) {
                    const auto [line, column] = line_and_column(piece, *bad);
                    outcome.bad_utf8 = {static_cast<int>(lines_before + line), column};
                }
            if (!outcome.bad_utf8 && csv.active()) csv.feed(piece);
            if (stopped) return;
            batch.piece_bytes = piece.size();  // a piece ends with this batch
            if (!hand_over(batch)) return;
            if (src.stream) lines_before += static_cast<long>(count_newlines(piece));
        }
        if (outcome.bad_utf8 || stopped) return;
        csv.finish();
        if (header) error(source, 1, "the table is empty; expected a SkyPilot vms.csv header line");
        if (!batch.rows.empty()) hand_over(batch);
    }

    // A streamed table: the read stage on a thread of its own, handing batches over a pipe of two;
    // the offer stage here. An exception in either stage stops both and is rethrown here.
    void read_in_parallel(std::size_t source, Diagnostics& local, ReadOutcome& outcome) {
        RowPipe pipe;
        std::thread reader([&] {
            std::exception_ptr failure;
            try {
                // Balanced: the read stage keys a batch when the offer stage was behind on the last.
                const StreamKeying keying = sources_[source].keying;
                auto keyed_here = [&](bool drained) {
                    return keying == StreamKeying::read_stage ||
                           (keying == StreamKeying::balance && !drained);
                };
                RowBatch batch = pipe.take();
                batch.keyed = keyed_here(true);
                read_stage(source, local, outcome, batch, [&](RowBatch& full) {
                    bool drained = false;
                    if (!pipe.push(std::move(full), drained)) return false;
                    batch = pipe.take();
                    batch.keyed = keyed_here(drained);
                    return true;
                });
            } catch (...) {
                failure = std::current_exception();
            }
            pipe.close(failure);
        });
        try {
            while (std::optional<RowBatch> batch = pipe.pop()) {
                offer_stage(source, *batch);
                pipe.give_back(std::move(*batch));
            }
        } catch (...) {
            pipe.cancel();
            reader.join();
            throw;
        }
        reader.join();
        pipe.rethrow();
    }

    // The read stage's part of a data row: its fields (copied into the batch) and number columns
    // (a located error each; the row is dropped then).
    void read_row(std::size_t source, const CsvRecord& rec, RowBatch& batch) {
        auto field = [&](int col) -> std::string_view {
            return col < 0 ? std::string_view() : batch.keep(rec.fields[static_cast<std::size_t>(col)]);
        };
        Row r;
        r.line = rec.line;
        r.source = source;
        std::optional<double> count;
        bool ok = number(source, rec, cols_.price, "Price", r.on_demand, kMaxTableNumber);
        ok = number(source, rec, cols_.spot, "SpotPrice", r.spot, kMaxTableNumber) && ok;
        ok = number(source, rec, cols_.count, "AcceleratorCount", count) && ok;
        ok = number(source, rec, cols_.vcpus, "vCPUs", r.vcpus) && ok;
        ok = number(source, rec, cols_.memory, "MemoryGiB", r.ram_gb) && ok;
        if (!ok) return;
        r.instance = field(cols_.instance);
        r.accelerator = field(cols_.accelerator);
        r.region = field(cols_.region);
        r.zone = field(cols_.zone);
        r.notes = field(cols_.notes);
        r.on_demand_empty = cols_.price < 0 || rec.fields[static_cast<std::size_t>(cols_.price)].empty();
        r.count = count.value_or(0);
        const std::string_view gpu_info =
            cols_.gpu_info < 0 ? std::string_view() : rec.fields[static_cast<std::size_t>(cols_.gpu_info)];
        if (batch.keyed)
            key_row(read_keyer_, r, gpu_info);
        else
            r.gpu_info = batch.keep(gpu_info);
        batch.rows.push_back(r);
    }

    // The offer stage: a batch's rows become offers (or host prices, pending GCP rows, counts).
    void offer_stage(std::size_t source, RowBatch& batch) {
        if (!batch.keyed)
            for (Row& r : batch.rows) key_row(offer_keyer_, r, r.gpu_info);
        for (const Row& r : batch.rows) add_row(r);
        if (batch.piece_bytes > 0 && !sampled_) {  // the end of the first piece
            sampled_ = true;
            if (sources_[source].stream && filter_)
                reserve_from_sample(batch.piece_bytes, sources_[source].stream->size());
        }
    }

    void add_row(const Row& r) {
        const std::size_t source = r.source;
        if (r.accelerator.empty()) {
            if (!r.instance.empty())  // a GCP host VM row: prices the accelerator rows of its zone
                set_host(texts_.intern(r.instance), texts_.intern(r.zone.empty() ? r.region : r.zone), r);
            return;
        }
        if (r.instance.empty()) {
            add_pending({r.info, r.count, r.on_demand.value_or(kNone), r.spot.value_or(kNone),
                         intern(last_accelerator_, r.accelerator), intern(last_region_, r.region),
                         intern(last_place_, r.zone.empty() ? r.region : r.zone), r.line,
                         static_cast<std::uint32_t>(source) & kMaxSources, r.on_demand_empty});
            return;
        }
        std::optional<double> on_demand = r.on_demand, spot = r.spot;
        clean_prices(source, on_demand, spot, r.on_demand_empty, false);
        add_offer(r, r.instance, on_demand, spot, r.vcpus, r.ram_gb, RowNotes{r.notes, 0, {}});
    }

    // The notes of an offer made from a row, made only when one is: most rows merge into an offer
    // already made, or are dropped by the filter (a vector per row was a fifth of pricing GCP's
    // pending rows). Either the table's Notes column or a GCP host note, then the variant's.
    struct RowNotes {
        std::string_view table;  // the Notes column, "; "-separated
        char host = 0;           // a GCP host note (host_note): 'n', 'z' or 'm'; 0: none
        std::string_view instance;
    };
    std::vector<SharedText> make_notes(const RowNotes& spec, const GpuMapping& m) {
        std::vector<SharedText> notes;
        for (std::string_view rest = spec.table; !rest.empty();) {
            std::size_t sep = rest.find("; ");
            notes.emplace_back(std::string(rest.substr(0, sep)));
            rest = sep == std::string_view::npos ? std::string_view() : rest.substr(sep + 2);
        }
        if (spec.host) notes.push_back(host_note(spec.host, spec.instance));
        if (!m.variant_assumed.empty()) notes.push_back(variant_texts(m).note);
        return notes;
    }

    // Drops prices that are not real, counting why.
    void clean_prices(std::size_t source, std::optional<double>& on_demand, std::optional<double>& spot,
                      bool empty, bool sentinel_possible) {
        auto drop = [&](std::optional<double>& price, SkipKind kind, const char* reason) {
            count(source, kind, reason);
            price.reset();
        };
        if (sentinel_possible) {
            if (on_demand && *on_demand == kGcpSentinelPrice)
                drop(on_demand, SkipKind::sentinel_price, "sentinel price 700.0 (zone does not offer it)");
            if (spot && *spot == kGcpSentinelPrice)
                drop(spot, SkipKind::sentinel_price, "sentinel price 700.0 (zone does not offer it)");
        }
        if (empty)
            count(source, SkipKind::empty_price, "on-demand price empty");
        else if (on_demand && *on_demand == 0)
            drop(on_demand, SkipKind::zero_price, "on-demand price 0");
        if (spot && *spot == 0) drop(spot, SkipKind::zero_price, "spot price 0 (no spot market)");
        if (on_demand && spot && *spot >= *on_demand)
            drop(spot, SkipKind::spot_not_below_on_demand,
                 "spot price not below on-demand (spot price dropped)");
    }

    // A pending GCP accelerator row, once every host row is known: priced with the host of its zone
    // (its instance type then), else kept at the GPU's price alone, marked.
    void price_gcp_accelerator(const PendingAccelerator& a) {
        std::optional<double> on_demand = price_or_none(a.on_demand), spot = price_or_none(a.spot);
        clean_prices(a.source, on_demand, spot, a.on_demand_empty, true);
        const HostTypes types = host_types(a.accelerator, a.count);
        RowNotes notes;
        std::string_view instance = types.host == kNoText ? std::string_view() : texts_.text(types.host);
        std::optional<double> vcpus, ram_gb;
        const Host* host = types.host == kNoText ? nullptr : find_host(types.host, a.place);
        if (types.host == kNoText && types.n1 != kNoText)  // an N1 GPU: priced with the default n1 host
            if (const Host* n1 = find_host(types.n1, a.place); n1 && n1->on_demand > 0) {  // NaN: none
                host = n1;
                instance = texts_.text(types.n1);
                notes.host = 'n';
            }
        bool complete = true;
        if (host && host->on_demand > 0) {  // NaN > 0 is false: no price
            if (on_demand) *on_demand += host->on_demand;
            if (spot && host->spot > 0)
                *spot += host->spot;
            else
                spot.reset();
            vcpus = price_or_none(host->vcpus);
            ram_gb = price_or_none(host->ram_gb);
        } else {
            complete = false;
            if (types.host == kNoText)
                instance = texts_.text(a.accelerator) == "L4" ? "g2-standard-*" : "n1-*";
            notes.host = host ? 'z' : 'm';
            count(a.source, SkipKind::other,
                  "GCP GPU-only price (host VM price missing or 0; kept, marked in notes)");
        }
        Row r;
        r.instance = instance;
        r.accelerator = texts_.text(a.accelerator);
        r.region = texts_.text(a.region);
        r.info = a.info;
        r.count = a.count;
        r.line = a.line;
        r.source = a.source;
        key_row_kind(offer_keyer_, r, instance);
        notes.instance = instance;
        add_offer(r, instance, on_demand, spot, vcpus, ram_gb, notes, complete);
    }

    // A row's GpuInfo facts and, for a row that may become an offer (an instance type and an
    // accelerator), its key (key_row_kind). Only `k`'s memos change (one Keyer per stage, so that a
    // stream's read stage may key a batch on its thread while the offer stage keys another); catalog_
    // is only read.
    void key_row(Keyer& k, Row& r, std::string_view gpu_info) {
        r.info = &k.gpu_info.get(gpu_info, [&] { return scan_gpu_info(gpu_info); });
        if (!r.accelerator.empty() && !r.instance.empty()) key_row_kind(k, r, r.instance);
    }

    // The GPU a row maps to, its key's hash and the filter's verdict (`machine`: its instance type).
    // The instance type decides the mapping only through its form-factor hint, so what a row's kind
    // (that hint, the accelerator, GpuInfo, count) decides is looked up once per kind, a few dozen
    // in a table of a million instance types.
    void key_row_kind(Keyer& k, Row& r, std::string_view machine) {
        if (!whole_count(r.count)) return;                    // no mapping: add_offer counts it
        if (!k.machine.known || k.machine.text != machine) {  // rows of an instance type come in runs
            k.machine.text.assign(machine);
            k.machine.hint = form_factor_hint(provider_, machine);
            k.machine.hash = hash_text(machine);
            k.machine.known = true;
        }
        const std::string_view hint = k.machine.hint;
        if (r.info != k.last.info || r.count != k.last.count || hint != k.last.hint ||
            r.accelerator != k.last.accelerator) {
            k.kind_key.assign(hint).push_back('|');
            k.kind_key
                .append(reinterpret_cast<const char*>(&r.info), sizeof r.info)  // one per distinct GpuInfo
                .append(reinterpret_cast<const char*>(&r.count), sizeof r.count)
                .append(r.accelerator);
            k.last.kind = k.row_kinds.get(k.kind_key, [&] {
                const GpuMapping& m = k.mapper.map(provider_, r.accelerator, machine, *r.info, r.count);
                const bool mapped = !m.gpu_id.empty();
                return RowKind{&m, mapped && filter_ ? resolved_gpu(k, m.gpu_id) : nullptr,
                               mapped ? hash_text(m.gpu_id) : 0};
            });
            k.last.hint = hint;
            k.last.info = r.info;
            k.last.count = r.count;
            k.last.accelerator.assign(r.accelerator);
        }
        const RowKind& kind = k.last.kind;
        r.mapping = kind.mapping;
        if (r.mapping->gpu_id.empty()) return;
        const int n = static_cast<int>(r.count);
        const std::string_view region = trim_region(r.region);
        r.hash = hash_key(k.machine.hash, kind.gpu_hash, region, n);
        r.dropped = filter_ && cannot_match(k, kind.gpu, n, region);
    }

    static bool whole_count(double count) {
        return count >= 1 && count <= 4096 && count == static_cast<double>(static_cast<int>(count));
    }

    // A row keyed by key_row becomes an offer, merges into one of its key, or is dropped (counted).
    void add_offer(const Row& r, std::string_view machine, std::optional<double> on_demand,
                   std::optional<double> spot, std::optional<double> vcpus, std::optional<double> ram_gb,
                   const RowNotes& notes, bool price_complete = true) {
        if (!whole_count(r.count)) {
            count(r.source, SkipKind::other, "accelerator count not a whole number from 1 to 4096");
            return;
        }
        const GpuMapping& m = *r.mapping;
        if (m.gpu_id.empty()) {
            count(r.source, SkipKind::accelerator, m.skip_reason);
            return;
        }
        if (!on_demand && !spot) {
            count(r.source, SkipKind::other, "no usable price (row dropped)");
            return;
        }
        if (!m.variant_assumed.empty()) {  // kept as the conservative variant (skypilot_gpu_names.hpp)
            const VariantTexts& v = variant_texts(m);
            // The same reason comes with the same wording for --strict-variants (both name the candidates).
            if (count(r.source, SkipKind::variant_assumed, v.reason))
                strict_reasons_[r.source][v.reason] = v.strict;
        }
        const int n = static_cast<int>(r.count);
        const std::string_view region = trim_region(r.region);
        // Zone duplicates: the offer of the same key, found in the key index (one hash per row).
        const OfferKey key{machine, m.gpu_id, region, n};
        const std::size_t hash = r.hash;
        // Every row of a key has the same GPU, count and region: the filter keeps or drops them all.
        if (r.dropped) {
            prune(r, hash, m, machine, region, on_demand, spot, vcpus, ram_gb, notes, price_complete);
            return;
        }
        reserve_keys(keys_.size() + 1);
        const HashIndex::Probe at = keys_.probe(hash, [&](std::uint32_t e) {
            return !(e & kDroppedKey) && offer_key(catalog_.offers[first_offer_ + e]) == key;
        });
        if (at.found) {
            Offer& o = catalog_.offers[first_offer_ + keys_.entry(at)];
            auto lower = [](std::optional<double>& into, const std::optional<double>& v) {
                if (v && (!into || *v < *into)) into = v;
            };
            lower(o.on_demand_per_hour, on_demand);
            lower(o.spot_per_hour, spot);
            count(r.source, SkipKind::merged, "zone duplicate merged (lowest price kept)");
            return;
        }
        keys_.put(at, hash, static_cast<std::uint32_t>(catalog_.offers.size() - first_offer_));
        new_offer(m.gpu_id, n, region, machine, on_demand, spot, vcpus, ram_gb, make_notes(notes, m),
                  !m.variant_assumed.empty(), price_complete, r.source, r.line, next_seq_++);
        offer_hash_.push_back(hash);
    }

    Offer& new_offer(const std::string& gpu, int n, std::string_view region, std::string_view machine,
                     std::optional<double> on_demand, std::optional<double> spot, std::optional<double> vcpus,
                     std::optional<double> ram_gb, std::vector<SharedText> notes, bool variant_assumed,
                     bool price_complete, std::size_t source, int line, std::uint32_t seq) {
        Offer& o = catalog_.offers.emplace_back();
        o.provider = provider_;
        o.gpu = gpu;
        o.gpu_count = n;
        o.region = std::string(region);
        o.instance_type = std::string(machine);
        o.on_demand_per_hour = on_demand;
        o.spot_per_hour = spot;
        o.vcpus = vcpus;
        o.ram_gb = ram_gb;
        o.as_of = as_of_;
        o.source = source_;
        o.notes = std::move(notes);
        o.variant_assumed = variant_assumed;
        o.price_complete = price_complete;
        o.where = {display_names_[source], line, 0};
        if (filter_) seq_.push_back(seq);
        return o;
    }

    // ---- the filter push-down (OfferFilter): what query_offers would drop, decided per offer key

    void setup_filter(const OfferFilter* filter) {
        if (!filter) return;
        // A table dated with a text that is not a date warns once per offer (catalog_lint): keep them all.
        if (!as_of_.empty() && !parse_iso_date(as_of_)) return;
        filter_ = filter;
        prune_all_ = !filter->providers.empty() &&
                     std::none_of(filter->providers.begin(), filter->providers.end(),
                                  [&](const std::string& p) { return iequals(p, provider_.str()); });
        if (!filter->gpu.names.empty() || filter->gpu.memory_gb) {
            try {
                wanted_ = select_gpus(catalog_, filter->gpu);
            } catch (const UsageError&) {  // the query reports the name; nothing is dropped here
                wanted_.reset();
            }
        }
    }

    // The catalog GPU an offer's id resolves to (as resolve_offer_gpus will), nullptr when it does not
    // resolve to one (that offer is kept: the load reports it).
    const Gpu* resolved_gpu(Keyer& k, const std::string& id) {
        return k.resolved.get(id, [&] {
            const Gpu* gpu = catalog_.find_gpu(id);
            if (!gpu) try {
                    const GpuMatch match = resolve_gpu_name(catalog_, id);
                    if (match.gpus.size() == 1) gpu = match.gpus.front();
                } catch (const UsageError&) {
                }
            return gpu;
        });
    }

    // `gpu`: resolved_gpu of the offer's GPU id.
    bool cannot_match(Keyer& k, const Gpu* gpu, int count, std::string_view region) {
        if (!gpu) return false;
        if (prune_all_) return true;
        if (wanted_ && std::find(wanted_->begin(), wanted_->end(), gpu) == wanted_->end()) return true;
        if (filter_->gpu.count && count * std::max(1, gpu->devices_per_package) != *filter_->gpu.count)
            return true;
        if (!filter_->regions.empty()) {
            const bool ok = k.region_ok.get(region, [&] {
                const std::string lower = to_lower(region);
                return std::any_of(
                    filter_->regions.begin(), filter_->regions.end(),
                    [&](const std::string& r) { return lower.find(to_lower(r)) != std::string::npos; });
            });
            if (!ok) return true;
        }
        return false;
    }

    // An offer the filter drops: only its key hash, merged prices and place are kept, to merge its
    // zone duplicates and count it. Should its merged prices be ones catalog_lint warns about (spot
    // not below on-demand: two zones' lowest prices), it becomes an offer after all, so that the
    // warning is the same; it cannot match the filter, so no query shows it (its notes, vCPUs and
    // memory are those of the row that made it one).
    void prune(const Row& r, std::size_t hash, const GpuMapping& m, std::string_view machine,
               std::string_view region, std::optional<double> on_demand, std::optional<double> spot,
               std::optional<double> vcpus, std::optional<double> ram_gb, const RowNotes& notes,
               bool price_complete) {
        reserve_keys(keys_.size() + 1);
        const HashIndex::Probe at = keys_.probe(hash, [&](std::uint32_t e) {
            return (e & kDroppedKey) && pruned_[e & ~kDroppedKey].hash == hash;
        });
        if (!at.found) {
            keys_.put(at, hash, static_cast<std::uint32_t>(pruned_.size()) | kDroppedKey);
            pruned_.push_back({hash, on_demand.value_or(kNone), spot.value_or(kNone), next_seq_++, r.line,
                               kNoKey, static_cast<std::uint32_t>(r.source) & kMaxSources,
                               !m.variant_assumed.empty(), price_complete});
            return;
        }
        count(r.source, SkipKind::merged, "zone duplicate merged (lowest price kept)");
        PrunedKey& k = pruned_[keys_.entry(at) & ~kDroppedKey];
        if (on_demand && (std::isnan(k.on_demand) || *on_demand < k.on_demand)) k.on_demand = *on_demand;
        if (spot && (std::isnan(k.spot) || *spot < k.spot)) k.spot = *spot;
        if (k.offer != kNoKey) {
            Offer& o = catalog_.offers[first_offer_ + k.offer];
            o.on_demand_per_hour = price_or_none(k.on_demand);
            o.spot_per_hour = price_or_none(k.spot);
            return;
        }
        if (!std::isnan(k.on_demand) && !std::isnan(k.spot) && k.spot >= k.on_demand && k.spot > 0) {
            k.offer = static_cast<std::uint32_t>(catalog_.offers.size() - first_offer_);
            new_offer(m.gpu_id, static_cast<int>(r.count), region, machine, price_or_none(k.on_demand),
                      price_or_none(k.spot), vcpus, ram_gb, make_notes(notes, m), k.variant_assumed,
                      k.price_complete, k.source, k.line, k.seq);
            offer_hash_.push_back(hash);
        }
    }

    // After the read: the offers in the order they were first seen (those made from dropped keys
    // came later), and the count of the others for catalog_lint.
    void finish_pruned() {
        const bool strict = filter_->strict_variants;
        const std::size_t n = catalog_.offers.size() - first_offer_;
        if (!std::is_sorted(seq_.begin(), seq_.end())) {
            std::vector<std::uint32_t> order(n);
            for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
            std::sort(order.begin(), order.end(), [&](auto a, auto b) { return seq_[a] < seq_[b]; });
            std::vector<Offer> sorted;
            sorted.reserve(n);
            for (auto i : order) sorted.push_back(std::move(catalog_.offers[first_offer_ + i]));
            std::move(sorted.begin(), sorted.end(),
                      catalog_.offers.begin() + static_cast<long>(first_offer_));
            std::vector<std::uint32_t> seqs(n);
            for (std::size_t i = 0; i < n; ++i) seqs[i] = seq_[order[i]];
            seq_ = std::move(seqs);
        }
        std::uint32_t first_kept = kNoKey;
        for (std::size_t i = 0; i < n && first_kept == kNoKey; ++i)
            if (!(strict && catalog_.offers[first_offer_ + i].variant_assumed)) first_kept = seq_[i];
        PrunedOffers out;
        out.provider = provider_;
        out.as_of = as_of_;
        for (const PrunedKey& k : pruned_) {
            if (k.offer != kNoKey || (strict && k.variant_assumed)) continue;
            if (out.offers++ == 0) {
                out.first = {display_names_[k.source], k.line, 0};
                out.first_is_first = k.seq < first_kept;
            }
        }
        if (out.offers > 0 && pruned_out_) pruned_out_->push_back(out);
    }

    // A streamed table read with a filter: after its first piece, room for as many kept offers,
    // dropped keys and host rows as that piece's share of the file predicts (plus a fifth), so that the
    // vectors do not double (a doubling holds both copies at once, and faults their pages again).
    // Address space only: what is unused is not touched.
    void reserve_from_sample(std::size_t piece_bytes, std::size_t file_bytes) {
        if (piece_bytes == 0 || file_bytes <= piece_bytes) return;
        const double scale = 1.2 * static_cast<double>(file_bytes) / static_cast<double>(piece_bytes);
        const auto kept =
            static_cast<std::size_t>(static_cast<double>(catalog_.offers.size() - first_offer_) * scale);
        const auto dropped = static_cast<std::size_t>(static_cast<double>(pruned_.size()) * scale);
        // GCP's pending rows become offers or dropped keys once the table is read (run()): room for
        // them too, so that the offers made before are not moved then (a million rows of every
        // cloud: 165,000 offers, 50 MB, moved at the end).
        const auto pending = static_cast<std::size_t>(static_cast<double>(pending_rows_) * scale);
        reserve_geometric(catalog_.offers, first_offer_ + kept + pending + 16);
        offer_hash_.reserve(kept + pending + 16);
        seq_.reserve(kept + pending + 16);
        pruned_.reserve(dropped + pending + 16);
        const auto hosts = static_cast<std::size_t>(static_cast<double>(hosts_.size()) * scale);
        hosts_.reserve(hosts + 16);
        host_index_.reserve(hosts + 16, [&](std::uint32_t e) { return host_hash(hosts_[e].key); });
        advise_untouched(hosts_);
        advise_untouched(catalog_.offers);
        advise_untouched(offer_hash_);
        advise_untouched(seq_);
        advise_untouched(pruned_);
        reserve_keys(kept + dropped);
    }

    // Huge pages for the untouched capacity of a vector just reserved (advice: one fault per 2 MB
    // instead of per 4 KB).
    template <class V>
    static void advise_untouched(const V& v) {
        advise_huge_pages(v.data() + v.size(), (v.capacity() - v.size()) * sizeof(typename V::value_type));
    }

    // Room in the key index for `keys` keys: its entries are placed again by the hashes kept beside
    // their offers and dropped keys.
    void reserve_keys(std::size_t keys) {
        keys_.reserve(keys, [&](std::uint32_t e) {
            return (e & kDroppedKey) ? pruned_[e & ~kDroppedKey].hash : offer_hash_[e];
        });
    }

    std::vector<PrunedOffers>* pruned_out_;
    const std::vector<TableSource>& sources_;
    Catalog& catalog_;
    Diagnostics& diags_;
    Diagnostics* out_;  // where row errors go: the table's own list while it is read
    // The read stage's keyer (on its own thread for a stream) and the offer stage's.
    Keyer read_keyer_, offer_keyer_;
    struct SkipTally {  // what count() counted for one source, made into its SkipSummary at the end
        struct Reason {
            std::string reason;
            SkipKind kind;
            long rows;
        };
        std::vector<Reason> reasons;  // in the order first counted
        std::size_t last = 0;         // the reason counted last
        std::array<long, static_cast<std::size_t>(SkipKind::other) + 1> kinds{};
    };
    std::vector<SkipTally> tallies_;
    std::vector<std::map<std::string, std::string>> strict_reasons_;  // SkipSummary::strict_reasons
    // A mapping's variant_assumed as a skip reason, as a note, and as --strict-variants' reason.
    struct VariantTexts {
        std::string reason;
        SharedText note;
        std::string strict;
    };
    // Made once per mapping (rows of a few GPU models and counts take turns: once per row was a
    // string a row).
    const VariantTexts& variant_texts(const GpuMapping& m) {
        const GpuMapping* at = &m;
        return variant_texts_.get(std::string_view(reinterpret_cast<const char*>(&at), sizeof at), [&] {
            return VariantTexts{m.variant_assumed + " (kept, marked in notes)", m.variant_assumed,
                                "ambiguous variant: " + m.ambiguity + " (dropped by --strict-variants)"};
        });
    }
    TextMemo<VariantTexts> variant_texts_;
    SharedText provider_, as_of_, source_;  // shared by every offer of the tables
    Columns cols_;
    std::size_t width_ = 0;
    int errors_ = 0;
    bool sampled_ = false;  // reserve_from_sample done (after the first piece of a read)
    // GCP's host VM rows and accelerator rows (the latter priced with the former at the end). Their
    // texts are interned: a GCP table of a million rows holds three quarters of them pending.
    static constexpr std::uint32_t kNoText = static_cast<std::uint32_t>(-1);
    TextPool texts_;
    struct LastText {  // the last text interned from a column: rows in a run mostly repeat it
        std::string text;
        std::uint32_t id = kNoText;
    } last_accelerator_, last_region_, last_place_;
    std::uint32_t intern(LastText& last, std::string_view text) {
        if (last.id == kNoText || last.text != text) {
            last.text.assign(text);
            last.id = texts_.intern(text);
        }
        return last.id;
    }
    static std::uint64_t host_key(std::uint32_t instance, std::uint32_t place) {
        return std::uint64_t{instance} << 32 | place;
    }
    struct Host {  // a host VM row's prices, vCPUs and memory (NaN = none), by host_key
        std::uint64_t key;
        double on_demand, spot, vcpus, ram_gb;
    };
    std::vector<Host> hosts_;
    HashIndex host_index_;  // of hosts_, by host_hash
    static std::size_t host_hash(std::uint64_t key) {
        char bytes[sizeof key];
        std::memcpy(bytes, &key, sizeof key);
        return hash_text(std::string_view(bytes, sizeof bytes));
    }
    // A host row; a later row of the same instance type and zone replaces it.
    void set_host(std::uint32_t instance, std::uint32_t place, const Row& r) {
        const std::uint64_t key = host_key(instance, place);
        const std::size_t hash = host_hash(key);
        host_index_.reserve(hosts_.size() + 1, [&](std::uint32_t e) { return host_hash(hosts_[e].key); });
        const HashIndex::Probe at =
            host_index_.probe(hash, [&](std::uint32_t e) { return hosts_[e].key == key; });
        const Host host{key, r.on_demand.value_or(kNone), r.spot.value_or(kNone), r.vcpus.value_or(kNone),
                        r.ram_gb.value_or(kNone)};
        if (at.found) {
            hosts_[host_index_.entry(at)] = host;
            return;
        }
        host_index_.put(at, hash, static_cast<std::uint32_t>(hosts_.size()));
        hosts_.push_back(host);
    }
    const Host* find_host(std::uint32_t instance, std::uint32_t place) const {
        if (hosts_.empty()) return nullptr;
        const std::uint64_t key = host_key(instance, place);
        const HashIndex::Probe at =
            host_index_.probe(host_hash(key), [&](std::uint32_t e) { return hosts_[e].key == key; });
        return at.found ? &hosts_[host_index_.entry(at)] : nullptr;
    }
    // In blocks of 8,192 rows: growing copies none (a deque's blocks of 512 bytes took an allocation
    // every nine rows).
    std::vector<std::vector<PendingAccelerator>> pending_;
    std::size_t pending_rows_ = 0;
    void add_pending(const PendingAccelerator& a) {
        constexpr std::size_t kBlock = 8192;
        if (pending_.empty() || pending_.back().size() == kBlock) pending_.emplace_back().reserve(kBlock);
        pending_.back().push_back(a);
        ++pending_rows_;
    }
    struct HostTypes {  // texts_ ids, kNoText = none
        std::uint32_t host, n1;
    };
    // gcp_host_type and gcp_n1_host_type of an accelerator and count, worked out once per pair.
    // Pending rows come in runs of an accelerator and count: the last run's, found without a hash.
    HostTypes host_types(std::uint32_t accelerator, double count) {
        if (last_types_.accelerator == accelerator && last_types_.count == count) return last_types_.types;
        char key[sizeof accelerator + sizeof count];
        std::memcpy(key, &accelerator, sizeof accelerator);
        std::memcpy(key + sizeof accelerator, &count, sizeof count);
        last_types_ = {accelerator, count, host_types_.get(std::string_view(key, sizeof key), [&] {
                           const std::string_view name = texts_.text(accelerator);
                           const std::string host = gcp_host_type(name, count),
                                             n1 = gcp_n1_host_type(name, count);
                           return HostTypes{host.empty() ? kNoText : texts_.intern(host),
                                            n1.empty() ? kNoText : texts_.intern(n1)};
                       })};
        return last_types_.types;
    }
    TextMemo<HostTypes> host_types_;
    struct {
        std::uint32_t accelerator = kNoText;
        double count = 0;
        HostTypes types{kNoText, kNoText};
    } last_types_;
    // A GCP host note's text, made once per kind ('n': the n1 host included, 'z': the host's price is
    // 0, 'm': no host row) and instance type; the offers share it.
    const SharedText& host_note(char kind, std::string_view instance) {
        note_key_.assign(1, kind).append(instance);
        return notes_.get(note_key_, [&] {
            if (kind == 'n')
                return SharedText("host VM " + std::string(instance) +
                                  " included (SkyPilot's default n1 host for this GPU count; an estimate "
                                  "of the host you would pick)");
            return SharedText(
                "GPU-only price: the " + std::string(instance) + " host VM is not included" +
                (kind == 'z' ? " (its price in the table is 0)" : " (no host row in the table)"));
        });
    }
    TextMemo<SharedText> notes_;
    std::string note_key_;
    // The key index: the offer keys of this read, the filter's kept and dropped alike. An entry is an
    // offer (its index from first_offer_), or a dropped key's index into pruned_ | kDroppedKey. A kept
    // key has a slot of its own (offer_key compared), a dropped key one per hash.
    HashIndex keys_{advise_huge_pages};
    static constexpr std::uint32_t kDroppedKey = std::uint32_t{1} << 31;
    std::vector<std::uint64_t> offer_hash_;  // per offer of this reader: its key's hash
    std::size_t first_offer_ = 0;            // catalog.offers index of this reader's first offer
    std::vector<SharedText> display_names_;  // table_display_name per source, shared by its offers' locations
    // The filter push-down (nullptr: every offer is kept).
    const OfferFilter* filter_ = nullptr;
    bool prune_all_ = false;                         // the provider is not one asked for
    std::optional<std::vector<const Gpu*>> wanted_;  // the GPUs asked for; nullopt = any
    static constexpr std::uint32_t kNoKey = static_cast<std::uint32_t>(-1);
    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    struct PrunedKey {  // an offer key the filter drops (40 bytes: a million of them, 40 MB)
        std::size_t hash;
        double on_demand, spot;  // merged lowest prices, NaN = none
        std::uint32_t seq;       // when it was first seen, among this read's offers
        int line;
        std::uint32_t offer;        // the offer it became (index from first_offer_), or kNoKey
        std::uint32_t source : 30;  // below kMaxSources (the constructor checks)
        bool variant_assumed : 1, price_complete : 1;
    };
    static_assert(sizeof(PrunedKey) == 40);
    static constexpr std::uint32_t kMaxSources = (std::uint32_t{1} << 30) - 1;
    std::vector<PrunedKey> pruned_;
    std::vector<std::uint32_t> seq_;  // per offer of this read (with a filter): when first seen
    std::uint32_t next_seq_ = 0;
};

}  // namespace

bool looks_like_skypilot_csv(std::string_view bytes) {
    std::string_view first = bytes.substr(0, bytes.find('\n'));
    return first.find("InstanceType") != std::string_view::npos &&
           first.find("AcceleratorName") != std::string_view::npos;
}

std::string table_display_name(const TableRef& ref) {
    return ref.builtin ? builtin_file_name(ref.resolved_path) : ref.resolved_path;
}

void load_offer_tables(const std::vector<TableSource>& sources, Catalog& catalog, Diagnostics& diags,
                       const OfferFilter* filter, std::vector<PrunedOffers>* pruned) {
    if (sources.empty()) return;
    TableReader(sources, catalog, diags, filter, pruned).run();
}

void load_offer_table(const TableRef& ref, std::string_view bytes, Catalog& catalog, Diagnostics& diags) {
    load_offer_tables({TableSource{ref, bytes}}, catalog, diags);
}

}  // namespace gpuadvise::io
