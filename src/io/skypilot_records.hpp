// Low-level pieces of the SkyPilot vms.csv reader: CSV records with their line numbers (libcsv),
// number fields, and the GpuInfo column (a Python-literal dict, JSON, or a plain name).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/base/diagnostics.hpp"

namespace gpuadvise::io {

// One CSV record: its fields and the 1-based line it starts on. The views are valid during the
// callback only (they point into the input, or into the reader's buffer for unquoted text).
struct CsvRecord {
    std::vector<std::string_view> fields;
    int line = 0;
};

// Streams every record of `bytes` (header included) to `on_record`. Handles quotes, embedded
// commas and newlines, CRLF. Reports an unterminated quote or a malformed quoted field as a
// located error in `diags` and returns false; `on_record` returning false stops early.
bool read_csv_records(std::string_view bytes, const std::string& file,
                      const std::function<bool(const CsvRecord&)>& on_record, Diagnostics& diags);

// The same, fed piece by piece (a file read in chunks): each piece ends at a line end ('\n') except
// the last; a record (a quoted field with newlines) may span pieces. Line numbers run on across
// pieces. finish() ends the input (an unclosed quote is reported there) and returns false if any
// error was reported.
class CsvRecordStream {
public:
    CsvRecordStream(const std::string& file, const std::function<bool(const CsvRecord&)>& on_record,
                    Diagnostics& diags);
    ~CsvRecordStream();
    CsvRecordStream(const CsvRecordStream&) = delete;
    CsvRecordStream& operator=(const CsvRecordStream&) = delete;
    bool feed(std::string_view lines);  // false once stopped (on_record said so) or failed
    bool finish();
    bool active() const;  // neither stopped nor failed
    bool failed() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

// A decimal number with nothing else around it (spaces allowed); nullopt otherwise.
std::optional<double> parse_decimal(std::string_view text);

// What gpuadvise needs from GpuInfo: the memory figure and counts, never a full parse.
struct GpuInfoFacts {
    std::optional<double> size_mib;   // first 'SizeInMiB' (per GPU on most clouds, the total on some)
    std::optional<double> count;      // first 'Count' inside the Gpus list
    std::optional<double> total_mib;  // 'TotalGpuMemoryInMiB'
};

// Scans GpuInfo for the keys above, case-insensitively, with ' or " quotes and quoted or bare numbers.
GpuInfoFacts scan_gpu_info(std::string_view text);

}  // namespace gpuadvise::io
