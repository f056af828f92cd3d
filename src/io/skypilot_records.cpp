#include "io/skypilot_records.hpp"

#include <csv.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace gpuadvise::io {
// Outside the anonymous namespace: CsvRecordStream::State (of the header's class) holds one.
struct RecordSink {
    const std::function<bool(const CsvRecord&)>* on_record;
    CsvRecord record;
    std::vector<std::string>
        owned;             // libcsv's fields (unescaped), viewed by record.fields at the record's end
    std::size_t used = 0;  // fields filled (the vectors are reused)
    int current_line = 1;
    bool stopped = false;
};

namespace {

// libcsv's state for "no field of the current record seen yet" (ROW_NOT_BEGUN in libcsv.c).
constexpr int kRowNotBegun = 0;

void on_field(void* data, std::size_t len, void* ctx) {
    auto* sink = static_cast<RecordSink*>(ctx);
    if (sink->used == sink->owned.size()) sink->owned.emplace_back();
    sink->owned[sink->used++].assign(data ? static_cast<const char*>(data) : "", data ? len : 0);
}

void on_record_end(int, void* ctx) {
    auto* sink = static_cast<RecordSink*>(ctx);
    sink->record.fields.resize(sink->used);
    for (std::size_t i = 0; i < sink->used; ++i) sink->record.fields[i] = sink->owned[i];
    if (!sink->stopped && !(*sink->on_record)(sink->record)) sink->stopped = true;
    sink->used = 0;
}

bool key_at(std::string_view text, std::size_t pos, std::string_view key) {
    if (pos + key.size() + 2 > text.size()) return false;
    const char quote = text[pos];
    if (quote != '\'' && quote != '"') return false;
    for (std::size_t i = 0; i < key.size(); ++i) {
        const char c = text[pos + 1 + i];
        if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) != key[i]) return false;
    }
    return text[pos + 1 + key.size()] == quote;
}

// The number after `'key':`, tolerating quotes around it ('Count': '1.0').
std::optional<double> value_after(std::string_view text, std::size_t pos) {
    while (pos < text.size() &&
           (text[pos] == ':' || text[pos] == ' ' || text[pos] == '\'' || text[pos] == '"'))
        ++pos;
    std::size_t end = pos;
    while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'))
        ++end;
    return parse_decimal(text.substr(pos, end - pos));
}

bool blank(char c) { return c == ' ' || c == '\t'; }

// The fast path for the common line: fields split at commas, quoted fields that close on the same
// line with no doubled quote inside, nothing around the quotes, no blank at either end of an
// unquoted field (libcsv trims those), no stray quote or CR. Returns false, having stored nothing
// that counts, for anything else (blank lines included): libcsv then reads the line with its exact
// rules and error messages. libcsv at ~40 instructions a byte was most of a 100k-offer load.
bool split_plain_line(std::string_view line, RecordSink& sink) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) return false;
    const char* p = line.data();
    const std::size_t n = line.size();
    std::size_t pos = 0, used = 0;
    auto& fields = sink.record.fields;
    while (true) {
        std::string_view field;
        if (pos < n && p[pos] == '"') {
            const void* close = std::memchr(p + pos + 1, '"', n - pos - 1);
            if (!close) return false;  // continues on the next line, or never closes
            const std::size_t q = static_cast<std::size_t>(static_cast<const char*>(close) - p);
            if (q + 1 < n && p[q + 1] != ',')
                return false;  // a doubled quote, or text after the closing quote
            field = line.substr(pos + 1, q - pos - 1);
            pos = q + 1;
        } else {
            const std::size_t start = pos;
            while (pos < n && p[pos] != ',') {
                if (p[pos] == '"' || p[pos] == '\r') return false;
                ++pos;
            }
            field = line.substr(start, pos - start);
            if (!field.empty() && (blank(field.front()) || blank(field.back()))) return false;
        }
        if (used == fields.size()) fields.emplace_back();
        fields[used++] = field;
        if (pos == n) break;
        ++pos;  // the comma
    }
    fields.resize(used);
    return true;
}

}  // namespace

struct CsvRecordStream::State {
    csv_parser parser{};
    RecordSink sink;
    const std::string& file;
    Diagnostics& diags;
    bool started = false, failed = false;
};

CsvRecordStream::CsvRecordStream(const std::string& file,
                                 const std::function<bool(const CsvRecord&)>& on_record, Diagnostics& diags)
    : state_(new State{{}, RecordSink{&on_record, {}, {}, 0, 1, false}, file, diags}) {
    if (csv_init(&state_->parser, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        diags.error({file, 0, 0}, "cannot start the CSV parser (out of memory)");
        state_->failed = true;
        return;
    }
    state_->started = true;
}

CsvRecordStream::~CsvRecordStream() {
    if (state_->started) csv_free(&state_->parser);
}

bool CsvRecordStream::active() const { return !state_->failed && !state_->sink.stopped; }
bool CsvRecordStream::failed() const { return state_->failed; }

bool CsvRecordStream::feed(std::string_view bytes) {
    csv_parser& parser = state_->parser;
    RecordSink& sink = state_->sink;
    std::size_t pos = 0;
    while (pos < bytes.size() && active()) {
        std::size_t nl = bytes.find('\n', pos);
        std::size_t end = nl == std::string_view::npos ? bytes.size() : nl + 1;
        const bool at_record_start = parser.pstate == kRowNotBegun && sink.used == 0;
        if (at_record_start) {
            sink.record.line = sink.current_line;
            if (split_plain_line(bytes.substr(pos, (nl == std::string_view::npos ? bytes.size() : nl) - pos),
                                 sink)) {
                if (!(*sink.on_record)(sink.record)) sink.stopped = true;
                pos = end;
                ++sink.current_line;
                continue;
            }
        }
        if (csv_parse(&parser, bytes.data() + pos, end - pos, on_field, on_record_end, &sink) != end - pos) {
            state_->diags.error({state_->file, sink.current_line, 0},
                                std::string("malformed CSV: ") + csv_strerror(csv_error(&parser)) +
                                    " (a quote inside a quoted field must be doubled, "
                                    "and nothing may follow the closing quote)");
            state_->failed = true;
            break;
        }
        pos = end;
        ++sink.current_line;
    }
    return active();
}

bool CsvRecordStream::finish() {
    RecordSink& sink = state_->sink;
    if (active() && csv_fini(&state_->parser, on_field, on_record_end, &sink) != 0) {
        state_->diags.error(
            {state_->file, sink.record.line, 0},
            "malformed CSV: the quoted field that starts on this line is never closed (missing '\"')");
        state_->failed = true;
    }
    return !state_->failed;
}

bool read_csv_records(std::string_view bytes, const std::string& file,
                      const std::function<bool(const CsvRecord&)>& on_record, Diagnostics& diags) {
    CsvRecordStream stream(file, on_record, diags);
    stream.feed(bytes);
    return stream.finish();
}

namespace {

// Exact fast path for the common price text ("1.5863", "64.0", "8"): at most 15 significant
// digits and 15 decimals. The digits form an integer below 2^53 and 10^k is exact for k <= 22, so
// one correctly rounded division gives the correctly rounded value, the same double from_chars
// returns (Clinger's fast path). Anything else (exponents, long digit strings) returns nullopt.
std::optional<double> simple_decimal(std::string_view text) {
    static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    std::uint64_t mantissa = 0;
    int digits = 0, decimals = 0;
    bool dot = false;
    for (char c : text) {
        if (c >= '0' && c <= '9') {
            if (++digits > 15) return std::nullopt;
            mantissa = mantissa * 10 + static_cast<std::uint64_t>(c - '0');
            decimals += dot;
        } else if (c == '.' && !dot) {
            dot = true;
        } else {
            return std::nullopt;
        }
    }
    if (digits == 0) return std::nullopt;
    return static_cast<double>(mantissa) / kPow10[decimals];
}

}  // namespace

std::optional<double> parse_decimal(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.remove_suffix(1);
    if (text.empty()) return std::nullopt;
    if (text.front() == '+') text.remove_prefix(1);
    if (auto fast = simple_decimal(text)) return fast;
    double value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
    return value;
}

GpuInfoFacts scan_gpu_info(std::string_view text) {
    GpuInfoFacts facts;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\'' && text[i] != '"') continue;
        if (!facts.size_mib && key_at(text, i, "sizeinmib"))
            facts.size_mib = value_after(text, i + 11);
        else if (!facts.count && key_at(text, i, "count"))
            facts.count = value_after(text, i + 7);
        else if (!facts.total_mib && key_at(text, i, "totalgpumemoryinmib"))
            facts.total_mib = value_after(text, i + 21);
    }
    return facts;
}

}  // namespace gpuadvise::io
