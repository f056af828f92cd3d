// Standard output that knows why it failed: a stream buffer over a file descriptor whose every
// write(2) is checked and whose first error (errno) is kept, so that cli::run can end with
// "gpuadvise: error: writing the output: No space left on device" and exit 1 instead of 0.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace gpuadvise::io {

class FdOutputBuffer : public std::streambuf {
public:
    explicit FdOutputBuffer(int fd);
    ~FdOutputBuffer() override;
    FdOutputBuffer(const FdOutputBuffer&) = delete;
    FdOutputBuffer& operator=(const FdOutputBuffer&) = delete;
    int error() const { return error_; }  // errno of the first failed write; 0 while none failed

protected:
    int_type overflow(int_type c) override;
    int sync() override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;

private:
    bool write_all(const char* data, std::size_t size);
    bool drain();
    int fd_;
    int error_ = 0;
    // Not zeroed (a vector's 64 KiB of zeros were 65,000 instructions of every run): only what
    // put() writes is ever read.
    static constexpr std::size_t kSize = std::size_t{64} << 10;
    std::unique_ptr<char[]> buffer_;
};

// The errno of the failed write behind `out` when it is a FdOutputBuffer stream, else 0.
int output_error(const std::ostream& out);

// Standard descriptors 0, 1 and 2 that are closed at start-up are opened on /dev/null (1 read-only,
// so that writes to a closed standard output still fail, with EBADF) before any file is opened: a
// catalog file opened as descriptor 1 would otherwise receive the output.
void reserve_standard_descriptors();

}  // namespace gpuadvise::io

// ---- Exports: --format csv | tsv | markdown ----------------------------------------------------
// CSV and TSV are derived from the command's JSON document, so that the two cannot disagree: a
// section names the JSON array whose elements are the rows (docs/json.md, "CSV and TSV").
#include <nlohmann/json.hpp>

#include "io/text_table.hpp"

namespace gpuadvise::io {

struct ExportSection {
    std::string name;               // what --section picks (the JSON key name)
    std::string items;              // JSON pointer of the rows' array ("" or an object: one row)
    std::string explode;            // optional: an array inside each item, one row per element
    std::vector<std::string> keep;  // with `explode`: the item's keys repeated on every row
};

// --format json: indented by two; invalid UTF-8 (a file name, an environment value) as U+FFFD; and
// the control characters the serializer leaves raw, DEL and C1 (U+0080-U+009F, which a terminal may
// read as CSI or OSC), written \u007f, \u0080 ... as C0 is: the same values, no raw control byte.
std::string render_json(const nlohmann::ordered_json& doc);

enum class Delimited { csv, tsv };

// One tidy table: a header of flattened JSON key names (nested objects joined with '.'), one row
// per item; numbers exactly as JSON prints them, null and missing as an empty field, true/false,
// arrays as their compact JSON text. CSV is RFC 4180 (CRLF, quotes where needed); TSV has no
// quoting: a tab, newline, carriage return or backslash inside a field is written \t, \n, \r, \\.
// A text cell whose first character is = + - @, a tab or a carriage return (a formula to a
// spreadsheet) is written with a ' in front, unless it is a plain number or "-"; `exact` (--csv-raw)
// writes it as it is. Control characters other than tab, newline and CR are \xNN either way.
// Throws std::out_of_range when the document has no `section.items`.
std::string render_delimited(const nlohmann::ordered_json& doc, const ExportSection& section, Delimited kind,
                             bool exact = false);

// A document's one long array, made an item at a time as it is written: a listing of 250,000 offers
// built as one document took 1 GB (JSON) to 1.4 GB (CSV) before a byte was written.
struct JsonItems {
    std::string key;  // the document's top-level key whose value the items are (any value there is ignored)
    std::size_t size = 0;
    std::function<nlohmann::ordered_json(std::size_t)> item;  // item i, 0 <= i < size
};

// render_json of `doc` with the array of `items` under items.key, written to `out` an item at a time:
// the same bytes, in memory one item at a time.
void write_json(std::ostream& out, const nlohmann::ordered_json& doc, const JsonItems& items);

// render_delimited of the same document for a section whose rows are `items` (section.items is
// "/" + items.key), written to `out` a row at a time (the items are made twice: once for the columns,
// once for the rows).
void write_delimited(std::ostream& out, const JsonItems& items, const ExportSection& section, Delimited kind,
                     bool exact = false);

// Markdown: the lead lines as paragraphs (list items as a list), each table with a ### title, the
// notes as a list (list items nested); text, headers and cells are escaped so that they render as
// written and never as HTML: < > & as entities, \ ` * _ [ ] | behind a backslash, control
// characters as \xNN.
std::string render_markdown(const TextDocument& doc);

}  // namespace gpuadvise::io
