// SkyPilot vms.csv tables -> offers. Columns are found by header name (their order differs per
// cloud). Rows become one offer per (instance type, GPU, count, region): zone duplicates merge,
// keeping the lowest prices. GCP's accelerator rows are priced with the host VM row of the same
// zone (data/skypilot/PROVENANCE.md, "GCP pricing representation"). What cannot be used is
// counted per reason in Catalog::skipped; malformed input is a located error.
#include <algorithm>
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
#include <thread>
#include <unordered_map>

#include "gpuadvise/base/dates.hpp"
#include "gpuadvise/base/errors.hpp"
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
    std::string_view instance, accelerator, region, zone, gpu_info;
    double count = 0;
    std::optional<double> on_demand, spot, vcpus, ram_gb;
    bool on_demand_empty = false;
    int line = 0;
    std::size_t source = 0;
    std::string_view notes;
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
    bool push(RowBatch&& batch) {  // false once cancelled
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return cancelled_ || full_.size() < kDepth; });
        if (cancelled_) return false;
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

struct PendingAccelerator {  // a GCP accelerator row, priced once all host rows are known
    std::string accelerator, region, zone, gpu_info;
    double count = 0;
    std::optional<double> on_demand, spot;
    bool on_demand_empty = false;
    int line = 0;
    std::size_t source = 0;
};

struct HostPrice {
    std::optional<double> on_demand, spot, vcpus, ram_gb;
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

std::size_t hash_key(const OfferKey& k) {
    std::size_t x = hash_text(k.machine);
    for (std::size_t v : {hash_text(k.gpu), hash_text(k.region), static_cast<std::size_t>(k.count)})
        x = hash_combine(x, v);
    return x;
}

OfferKey offer_key(const Offer& o) { return {o.instance_type, o.gpu, o.region, o.gpu_count}; }

constexpr std::size_t kNoOffer = static_cast<std::size_t>(-1);

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
public:
    TableReader(const std::vector<TableSource>& sources, Catalog& catalog, Diagnostics& diags,
                const OfferFilter* filter, std::vector<PrunedOffers>* pruned)
        : pruned_out_(pruned),
          sources_(sources),
          catalog_(catalog),
          diags_(diags),
          out_(&diags),
          mapper_(catalog),
          reasons_(sources.size()),
          kinds_(sources.size()),
          reason_kinds_(sources.size()),
          strict_reasons_(sources.size()) {
        provider_ = sources.front().ref.provider;
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
        index_.reserve(std::bit_ceil(2 * lines + 2));
        advise_huge_pages(index_.data(), index_.capacity() * sizeof index_[0]);
        index_.assign(index_.capacity(), {0, kNoOffer});
        chain_.reserve(lines);
        first_offer_ = catalog_.offers.size();
    }

    void run() {
        for (std::size_t i = 0; i < sources_.size(); ++i) read_source(i);
        for (const auto& a : pending_) price_gcp_accelerator(a);
        if (filter_) finish_pruned();
        for (std::size_t i = 0; i < sources_.size(); ++i)
            if (!reasons_[i].empty())
                catalog_.skipped.push_back(
                    {display_names_[i], reasons_[i], kinds_[i], reason_kinds_[i], strict_reasons_[i]});
    }

private:
    void count(std::size_t source, SkipKind kind, const std::string& reason) {
        ++reasons_[source][reason];
        ++kinds_[source][kind];
        reason_kinds_[source][reason] = kind;
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
    // read stage on a second thread (the two stages of a 1M-row table take about as long each); the
    // result is the same either way, as only the read stage reports. What the reader found is
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
                RowBatch batch = pipe.take();
                read_stage(source, local, outcome, batch, [&](RowBatch& full) {
                    if (!pipe.push(std::move(full))) return false;
                    batch = pipe.take();
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
        r.gpu_info = field(cols_.gpu_info);
        r.notes = field(cols_.notes);
        r.on_demand_empty = cols_.price < 0 || rec.fields[static_cast<std::size_t>(cols_.price)].empty();
        r.count = count.value_or(0);
        batch.rows.push_back(r);
    }

    // The offer stage: a batch's rows become offers (or host prices, pending GCP rows, counts).
    void offer_stage(std::size_t source, const RowBatch& batch) {
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
                hosts_[std::string(r.instance) + "|" + std::string(r.zone.empty() ? r.region : r.zone)] =
                    HostPrice{r.on_demand, r.spot, r.vcpus, r.ram_gb};
            return;
        }
        if (r.instance.empty()) {
            pending_.push_back({std::string(r.accelerator), std::string(r.region), std::string(r.zone),
                                std::string(r.gpu_info), r.count, r.on_demand, r.spot, r.on_demand_empty,
                                r.line, source});
            return;
        }
        std::optional<double> on_demand = r.on_demand, spot = r.spot;
        clean_prices(source, on_demand, spot, r.on_demand_empty, false);
        std::vector<SharedText> notes;
        for (std::string_view rest = r.notes; !rest.empty();) {
            std::size_t sep = rest.find("; ");
            notes.emplace_back(std::string(rest.substr(0, sep)));
            rest = sep == std::string_view::npos ? std::string_view() : rest.substr(sep + 2);
        }
        add_offer(r, r.instance, on_demand, spot, r.vcpus, r.ram_gb, std::move(notes));
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

    void price_gcp_accelerator(PendingAccelerator a) {
        clean_prices(a.source, a.on_demand, a.spot, a.on_demand_empty, true);
        const std::string host_type = gcp_host_type(a.accelerator, a.count);
        std::vector<SharedText> notes;
        std::string instance = host_type;
        std::optional<double> vcpus, ram_gb;
        const HostPrice* host = nullptr;
        if (!host_type.empty())
            if (auto it = hosts_.find(host_type + "|" + (a.zone.empty() ? a.region : a.zone));
                it != hosts_.end())
                host = &it->second;
        if (host_type.empty())  // an N1 GPU: priced with the default n1 host when the table has its row
            if (const std::string n1 = gcp_n1_host_type(a.accelerator, a.count); !n1.empty())
                if (auto it = hosts_.find(n1 + "|" + (a.zone.empty() ? a.region : a.zone));
                    it != hosts_.end() && it->second.on_demand && *it->second.on_demand > 0) {
                    host = &it->second;
                    instance = n1;
                    notes.push_back("host VM " + n1 +
                                    " included (SkyPilot's default n1 host for this GPU count; an estimate "
                                    "of the host you would pick)");
                }
        bool complete = true;
        if (host && host->on_demand && *host->on_demand > 0) {
            if (a.on_demand) *a.on_demand += *host->on_demand;
            if (a.spot && host->spot && *host->spot > 0)
                *a.spot += *host->spot;
            else
                a.spot.reset();
            vcpus = host->vcpus;
            ram_gb = host->ram_gb;
        } else {
            const bool g2 = a.accelerator == "L4";
            complete = false;
            if (host_type.empty()) instance = g2 ? "g2-standard-*" : "n1-*";
            notes.push_back("GPU-only price: the " + instance + " host VM is not included" +
                            (host ? " (its price in the table is 0)" : " (no host row in the table)"));
            count(a.source, SkipKind::other,
                  "GCP GPU-only price (host VM price missing or 0; kept, marked in notes)");
        }
        Row r;
        r.instance = instance;
        r.accelerator = a.accelerator;
        r.region = a.region;
        r.gpu_info = a.gpu_info;
        r.count = a.count;
        r.line = a.line;
        r.source = a.source;
        add_offer(r, instance, a.on_demand, a.spot, vcpus, ram_gb, std::move(notes), complete);
    }

    void add_offer(const Row& r, std::string_view machine, std::optional<double> on_demand,
                   std::optional<double> spot, std::optional<double> vcpus, std::optional<double> ram_gb,
                   std::vector<SharedText> notes, bool price_complete = true) {
        if (!(r.count >= 1 && r.count <= 4096) || r.count != static_cast<double>(static_cast<int>(r.count))) {
            count(r.source, SkipKind::other, "accelerator count not a whole number from 1 to 4096");
            return;
        }
        const GpuMapping& m =
            mapper_.map(provider_, r.accelerator, machine, gpu_info_facts(r.gpu_info), r.count);
        if (m.gpu_id.empty()) {
            count(r.source, SkipKind::accelerator, m.skip_reason);
            return;
        }
        if (!on_demand && !spot) {
            count(r.source, SkipKind::other, "no usable price (row dropped)");
            return;
        }
        if (!m.variant_assumed.empty()) {  // kept as the conservative variant (skypilot_gpu_names.hpp)
            const std::string reason = m.variant_assumed + " (kept, marked in notes)";
            count(r.source, SkipKind::variant_assumed, reason);
            strict_reasons_[r.source][reason] =
                "ambiguous variant: " + m.ambiguity + " (dropped by --strict-variants)";
            notes.push_back(m.variant_assumed);
        }
        const int n = static_cast<int>(r.count);
        const std::string_view region = trim_region(r.region);
        // Zone duplicates: offers by key hash, chained through chain_ on a collision (one hash per row).
        const OfferKey key{machine, m.gpu_id, region, n};
        const std::size_t hash = hash_key(key);
        // Every row of a key has the same GPU, count and region: the filter keeps or drops them all.
        if (filter_ && cannot_match(m.gpu_id, n, region)) {
            prune(r, hash, m, machine, region, on_demand, spot, vcpus, ram_gb, std::move(notes),
                  price_complete);
            return;
        }
        if (2 * (catalog_.offers.size() - first_offer_ + 1) > index_.size()) grow_index();
        const std::size_t slot = index_slot(hash);
        std::size_t same = kNoOffer;
        for (std::size_t i = index_[slot].second; i != kNoOffer && same == kNoOffer;
             i = chain_[i - first_offer_])
            if (offer_key(catalog_.offers[i]) == key) same = i;
        if (same != kNoOffer) {
            Offer& o = catalog_.offers[same];
            auto lower = [](std::optional<double>& into, const std::optional<double>& v) {
                if (v && (!into || *v < *into)) into = v;
            };
            lower(o.on_demand_per_hour, on_demand);
            lower(o.spot_per_hour, spot);
            count(r.source, SkipKind::merged, "zone duplicate merged (lowest price kept)");
            return;
        }
        new_offer(m.gpu_id, n, region, machine, on_demand, spot, vcpus, ram_gb, std::move(notes),
                  !m.variant_assumed.empty(), price_complete, r.source, r.line, next_seq_++);
        chain_.push_back(index_[slot].second);
        index_[slot] = {hash, catalog_.offers.size() - 1};
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
        pruned_index_.assign(1024, kNoKey);
    }

    // The catalog GPU an offer's id resolves to (as resolve_offer_gpus will), nullptr when it does not
    // resolve to one (that offer is kept: the load reports it).
    const Gpu* resolved_gpu(const std::string& id) {
        auto it = resolved_.find(id);
        if (it != resolved_.end()) return it->second;
        const Gpu* gpu = catalog_.find_gpu(id);
        if (!gpu) try {
                const GpuMatch match = resolve_gpu_name(catalog_, id);
                if (match.gpus.size() == 1) gpu = match.gpus.front();
            } catch (const UsageError&) {
            }
        return resolved_.emplace(id, gpu).first->second;
    }

    bool cannot_match(const std::string& gpu_id, int count, std::string_view region) {
        const Gpu* gpu = resolved_gpu(gpu_id);
        if (!gpu) return false;
        if (prune_all_) return true;
        if (wanted_ && std::find(wanted_->begin(), wanted_->end(), gpu) == wanted_->end()) return true;
        if (filter_->gpu.count && count * std::max(1, gpu->devices_per_package) != *filter_->gpu.count)
            return true;
        if (!filter_->regions.empty()) {
            auto it = region_ok_.find(region);
            if (it == region_ok_.end()) {
                const std::string lower = to_lower(region);
                const bool ok = std::any_of(
                    filter_->regions.begin(), filter_->regions.end(),
                    [&](const std::string& r) { return lower.find(to_lower(r)) != std::string::npos; });
                it = region_ok_.emplace(std::string(region), ok).first;
            }
            if (!it->second) return true;
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
               std::optional<double> vcpus, std::optional<double> ram_gb, std::vector<SharedText> notes,
               bool price_complete) {
        if (2 * (pruned_.size() + 1) > pruned_index_.size()) {
            pruned_index_.assign(pruned_index_.size() * 2, kNoKey);
            for (std::uint32_t i = 0; i < pruned_.size(); ++i)
                pruned_index_[pruned_slot(pruned_[i].hash)] = i;
        }
        const std::size_t slot = pruned_slot(hash);
        if (pruned_index_[slot] == kNoKey) {
            pruned_index_[slot] = static_cast<std::uint32_t>(pruned_.size());
            pruned_.push_back({hash, on_demand.value_or(kNone), spot.value_or(kNone), next_seq_++, r.line,
                               kNoKey, static_cast<std::uint32_t>(r.source), !m.variant_assumed.empty(),
                               price_complete});
            return;
        }
        count(r.source, SkipKind::merged, "zone duplicate merged (lowest price kept)");
        PrunedKey& k = pruned_[pruned_index_[slot]];
        if (on_demand && (std::isnan(k.on_demand) || *on_demand < k.on_demand)) k.on_demand = *on_demand;
        if (spot && (std::isnan(k.spot) || *spot < k.spot)) k.spot = *spot;
        auto price = [](double v) { return std::isnan(v) ? std::nullopt : std::optional<double>(v); };
        if (k.offer != kNoKey) {
            Offer& o = catalog_.offers[first_offer_ + k.offer];
            o.on_demand_per_hour = price(k.on_demand);
            o.spot_per_hour = price(k.spot);
            return;
        }
        if (!std::isnan(k.on_demand) && !std::isnan(k.spot) && k.spot >= k.on_demand && k.spot > 0) {
            k.offer = static_cast<std::uint32_t>(catalog_.offers.size() - first_offer_);
            new_offer(m.gpu_id, static_cast<int>(r.count), region, machine, price(k.on_demand), price(k.spot),
                      vcpus, ram_gb, std::move(notes), k.variant_assumed, k.price_complete, k.source, k.line,
                      k.seq);
            chain_.push_back(kNoOffer);
        }
    }

    std::size_t pruned_slot(std::size_t hash) const {
        const std::size_t mask = pruned_index_.size() - 1;
        std::size_t i = hash & mask;
        while (pruned_index_[i] != kNoKey && pruned_[pruned_index_[i]].hash != hash) i = (i + 1) & mask;
        return i;
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

    // A streamed table read with a filter: after its first piece, room for as many kept offers and
    // dropped keys as that piece's share of the file predicts (plus a fifth), so that the vectors do
    // not double (a doubling holds both copies at once). Address space only: what is unused is not touched.
    void reserve_from_sample(std::size_t piece_bytes, std::size_t file_bytes) {
        if (piece_bytes == 0 || file_bytes <= piece_bytes) return;
        const double scale = 1.2 * static_cast<double>(file_bytes) / static_cast<double>(piece_bytes);
        const auto kept =
            static_cast<std::size_t>(static_cast<double>(catalog_.offers.size() - first_offer_) * scale);
        const auto dropped = static_cast<std::size_t>(static_cast<double>(pruned_.size()) * scale);
        reserve_geometric(catalog_.offers, first_offer_ + kept + 16);
        chain_.reserve(kept + 16);
        seq_.reserve(kept + 16);
        pruned_.reserve(dropped + 16);
        advise_untouched(catalog_.offers);
        advise_untouched(chain_);
        advise_untouched(seq_);
        advise_untouched(pruned_);
        if (std::bit_ceil(2 * dropped + 2) > pruned_index_.size()) {
            pruned_index_ = std::vector<std::uint32_t>();
            pruned_index_.reserve(std::bit_ceil(2 * dropped + 2));
            advise_untouched(pruned_index_);
            pruned_index_.assign(pruned_index_.capacity(), kNoKey);
            for (std::uint32_t i = 0; i < pruned_.size(); ++i)
                pruned_index_[pruned_slot(pruned_[i].hash)] = i;
        }
    }

    // Huge pages for the untouched capacity of a vector just reserved (advice: one fault per 2 MB
    // instead of per 4 KB).
    template <class V>
    static void advise_untouched(const V& v) {
        advise_huge_pages(v.data() + v.size(), (v.capacity() - v.size()) * sizeof(typename V::value_type));
    }

    // Doubles the zone index (a streamed table: sized by the rows kept), rebuilding its chains in order.
    void grow_index() {
        index_.assign(std::max<std::size_t>(1024, index_.size() * 2), {0, kNoOffer});
        for (std::size_t i = first_offer_; i < catalog_.offers.size(); ++i) {
            const std::size_t hash = hash_key(offer_key(catalog_.offers[i]));
            const std::size_t slot = index_slot(hash);
            chain_[i - first_offer_] = index_[slot].second;
            index_[slot] = {hash, i};
        }
    }

    // The zone index: open addressing on the key hash, no allocation per row. It has more than
    // twice as many slots as the tables have lines, and every offer comes from a line: it is at
    // most half full, so a probe always ends.
    std::size_t index_slot(std::size_t hash) const {
        const std::size_t mask = index_.size() - 1;
        std::size_t i = hash & mask;
        while (index_[i].second != kNoOffer && index_[i].first != hash) i = (i + 1) & mask;
        return i;
    }

    // GpuInfo texts repeat across rows (one per GPU model and count): scan each once.
    const GpuInfoFacts& gpu_info_facts(std::string_view text) {
        auto it = gpu_info_.find(text);
        if (it == gpu_info_.end()) it = gpu_info_.emplace(std::string(text), scan_gpu_info(text)).first;
        return it->second;
    }

    std::vector<PrunedOffers>* pruned_out_;
    const std::vector<TableSource>& sources_;
    Catalog& catalog_;
    Diagnostics& diags_;
    Diagnostics* out_;  // where row errors go: the table's own list while it is read
    SkypilotGpuMapper mapper_;
    std::vector<std::map<std::string, long>> reasons_;
    std::vector<std::map<SkipKind, long>> kinds_;
    std::vector<std::map<std::string, SkipKind>> reason_kinds_;
    std::vector<std::map<std::string, std::string>> strict_reasons_;  // SkipSummary::strict_reasons
    SharedText provider_, as_of_, source_;                            // shared by every offer of the tables
    Columns cols_;
    std::size_t width_ = 0;
    int errors_ = 0;
    bool sampled_ = false;  // reserve_from_sample done (after the first piece of a read)
    std::unordered_map<std::string, HostPrice> hosts_;
    std::vector<PendingAccelerator> pending_;
    std::vector<std::pair<std::size_t, std::size_t>>
        index_;                       // (key hash, newest offer with it); kNoOffer = empty
    std::vector<std::size_t> chain_;  // per offer of this reader: the previous offer with the same hash
    std::size_t first_offer_ = 0;     // catalog.offers index of this reader's first offer
    std::vector<SharedText> display_names_;  // table_display_name per source, shared by its offers' locations
    std::unordered_map<std::string, GpuInfoFacts, TextHash, std::equal_to<>> gpu_info_;
    // The filter push-down (nullptr: every offer is kept).
    const OfferFilter* filter_ = nullptr;
    bool prune_all_ = false;                         // the provider is not one asked for
    std::optional<std::vector<const Gpu*>> wanted_;  // the GPUs asked for; nullopt = any
    std::unordered_map<std::string, const Gpu*, TextHash, std::equal_to<>> resolved_;
    std::unordered_map<std::string, bool, TextHash, std::equal_to<>> region_ok_;
    static constexpr std::uint32_t kNoKey = static_cast<std::uint32_t>(-1);
    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    struct PrunedKey {  // an offer key the filter drops (40 bytes)
        std::size_t hash;
        double on_demand, spot;  // merged lowest prices, NaN = none
        std::uint32_t seq;       // when it was first seen, among this read's offers
        int line;
        std::uint32_t offer;  // the offer it became (index from first_offer_), or kNoKey
        std::uint32_t source;
        bool variant_assumed, price_complete;
    };
    std::vector<PrunedKey> pruned_;
    std::vector<std::uint32_t> pruned_index_;  // open addressing on PrunedKey::hash, kNoKey = empty
    std::vector<std::uint32_t> seq_;           // per offer of this read (with a filter): when first seen
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
