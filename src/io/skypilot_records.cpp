#include "io/skypilot_records.hpp"

#include <csv.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>

namespace gpuadvise::io {
namespace {

// libcsv's state for "no field of the current record seen yet" (ROW_NOT_BEGUN in libcsv.c).
constexpr int kRowNotBegun = 0;

struct RecordSink {
    const std::function<bool(const CsvRecord&)>* on_record;
    CsvRecord record;
    std::size_t used = 0;  // fields filled in record.fields (the vector is reused)
    int current_line = 1;
    bool stopped = false;
};

void on_field(void* data, std::size_t len, void* ctx) {
    auto* sink = static_cast<RecordSink*>(ctx);
    if (sink->used == sink->record.fields.size()) sink->record.fields.emplace_back();
    sink->record.fields[sink->used++].assign(data ? static_cast<const char*>(data) : "", data ? len : 0);
}

void on_record_end(int, void* ctx) {
    auto* sink = static_cast<RecordSink*>(ctx);
    sink->record.fields.resize(sink->used);
    if (!sink->stopped && !(*sink->on_record)(sink->record)) sink->stopped = true;
    sink->used = 0;
}

bool key_at(std::string_view text, std::size_t pos, std::string_view key) {
    if (pos + key.size() + 2 > text.size()) return false;
    const char quote = text[pos];
    if (quote != '\'' && quote != '"') return false;
    for (std::size_t i = 0; i < key.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(text[pos + 1 + i])) != key[i]) return false;
    return text[pos + 1 + key.size()] == quote;
}

// The number after `'key':`, tolerating quotes around it ('Count': '1.0').
std::optional<double> value_after(std::string_view text, std::size_t pos) {
    while (pos < text.size() && (text[pos] == ':' || text[pos] == ' ' || text[pos] == '\'' || text[pos] == '"')) ++pos;
    std::size_t end = pos;
    while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
    return parse_decimal(text.substr(pos, end - pos));
}

}  // namespace

bool read_csv_records(std::string_view bytes, const std::string& file, const std::function<bool(const CsvRecord&)>& on_record,
                      Diagnostics& diags) {
    csv_parser parser{};
    if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        diags.error({file, 0, 0}, "cannot start the CSV parser (out of memory)");
        return false;
    }
    RecordSink sink{&on_record, {}, 0, 1, false};
    bool ok = true;
    std::size_t pos = 0;
    while (pos < bytes.size() && !sink.stopped) {
        std::size_t nl = bytes.find('\n', pos);
        std::size_t end = nl == std::string_view::npos ? bytes.size() : nl + 1;
        if (parser.pstate == kRowNotBegun && sink.used == 0) sink.record.line = sink.current_line;
        if (csv_parse(&parser, bytes.data() + pos, end - pos, on_field, on_record_end, &sink) != end - pos) {
            diags.error({file, sink.current_line, 0},
                        std::string("malformed CSV: ") + csv_strerror(csv_error(&parser)) +
                            " (a quote inside a quoted field must be doubled, and nothing may follow the closing quote)");
            ok = false;
            break;
        }
        pos = end;
        ++sink.current_line;
    }
    if (ok && !sink.stopped && csv_fini(&parser, on_field, on_record_end, &sink) != 0) {
        diags.error({file, sink.record.line, 0},
                    "malformed CSV: the quoted field that starts on this line is never closed (missing '\"')");
        ok = false;
    }
    csv_free(&parser);
    return ok;
}

std::optional<double> parse_decimal(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
    if (text.empty()) return std::nullopt;
    if (text.front() == '+') text.remove_prefix(1);
    double value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
    return value;
}

GpuInfoFacts scan_gpu_info(std::string_view text) {
    GpuInfoFacts facts;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\'' && text[i] != '"') continue;
        if (!facts.size_mib && key_at(text, i, "sizeinmib")) facts.size_mib = value_after(text, i + 11);
        else if (!facts.count && key_at(text, i, "count")) facts.count = value_after(text, i + 7);
        else if (!facts.total_mib && key_at(text, i, "totalgpumemoryinmib")) facts.total_mib = value_after(text, i + 21);
    }
    return facts;
}

}  // namespace gpuadvise::io
