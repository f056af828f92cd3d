#include "io/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace gpuadvise::io {

FdOutputBuffer::FdOutputBuffer(int fd) : fd_(fd), buffer_(new char[kSize]) {
    setp(buffer_.get(), buffer_.get() + kSize);
}

FdOutputBuffer::~FdOutputBuffer() { (void)drain(); }

bool FdOutputBuffer::write_all(const char* data, std::size_t size) {
    while (size > 0 && error_ == 0) {
        const ssize_t n = ::write(fd_, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            error_ = errno;
            break;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return error_ == 0;
}

// After an error everything is dropped: the stream is failed and what follows would be a torn output.
bool FdOutputBuffer::drain() {
    const std::size_t pending = static_cast<std::size_t>(pptr() - pbase());
    setp(buffer_.get(), buffer_.get() + kSize);
    return pending == 0 || write_all(buffer_.get(), pending);
}

FdOutputBuffer::int_type FdOutputBuffer::overflow(int_type c) {
    if (!drain()) return traits_type::eof();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
}

int FdOutputBuffer::sync() { return drain() ? 0 : -1; }

std::streamsize FdOutputBuffer::xsputn(const char* s, std::streamsize n) {
    if (error_) return 0;
    const auto size = static_cast<std::size_t>(n);
    if (size <= static_cast<std::size_t>(epptr() - pptr())) {
        traits_type::copy(pptr(), s, size);
        pbump(static_cast<int>(n));
        return n;
    }
    if (!drain() || !write_all(s, size)) return 0;
    return n;
}

int output_error(const std::ostream& out) {
    if (const auto* b = dynamic_cast<const FdOutputBuffer*>(out.rdbuf())) return b->error();
    return 0;
}

void reserve_standard_descriptors() {
    for (int fd = 0; fd <= 2; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        const int opened = ::open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
        if (opened >= 0 && opened != fd) {
            (void)::dup2(opened, fd);
            ::close(opened);
        }
    }
}

}  // namespace gpuadvise::io

// ---- Exports ---------------------------------------------------------------------------------

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <string_view>

#include "gpuadvise/base/text.hpp"

namespace gpuadvise::io {
namespace {

using Json = nlohmann::ordered_json;
using ExportRow = std::vector<std::pair<std::string, std::string>>;  // column -> value, in document order

// Control characters other than tab, newline and carriage return (which the quoting or the TSV
// escapes carry) are written as \xNN, as on the terminal: an export printed there cannot recolour it.
std::string safe_text(const std::string& s) {
    std::string out, run;
    for (char c : s) {
        if (c == '\t' || c == '\n' || c == '\r') {
            out += escape_control_chars(run) + c;
            run.clear();
        } else {
            run += c;
        }
    }
    return out + escape_control_chars(run);
}

// A text cell that a spreadsheet would read as a formula (OWASP, "CSV injection": a first character
// of = + - @, tab or carriage return) gets a ' in front, unless it is a plain number ("-1.5") or a
// lone "-": neither can run anything. Cells from JSON numbers are never touched.
bool formula_leading(const std::string& s) {
    if (s.empty() || std::string_view("=+-@\t\r").find(s.front()) == std::string_view::npos) return false;
    if (s == "-") return false;
    const char* first = s.data() + (s.front() == '+' ? 1 : 0);
    const char* last = s.data() + s.size();
    double number = 0;
    const auto [end, error] = std::from_chars(first, last, number);
    return error != std::errc() || end != last || !std::isfinite(number);
}

std::string text_cell(const std::string& s, bool exact) {
    return safe_text(!exact && formula_leading(s) ? "'" + s : s);
}

std::string cell_text(const Json& v, bool exact) {
    if (v.is_null()) return "";
    if (v.is_string()) return text_cell(v.get<std::string>(), exact);
    // numbers, true/false, arrays (an array's text starts with '[')
    return safe_text(v.dump(-1, ' ', false, Json::error_handler_t::replace));
}

void flatten(const Json& v, const std::string& name, ExportRow& row, bool exact) {
    if (v.is_object() && !v.empty()) {
        for (const auto& [key, x] : v.items()) flatten(x, name.empty() ? key : name + "." + key, row, exact);
        return;
    }
    row.emplace_back(name, cell_text(v, exact));
}

std::string last_token(const std::string& pointer) {
    const auto slash = pointer.rfind('/');
    return slash == std::string::npos ? pointer : pointer.substr(slash + 1);
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string tsv_field(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '\\': out += "\\\\"; break;
            case '\t': out += "\\t"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            default: out += c;
        }
    }
    return out;
}

// Markdown text, in a paragraph, a list item or a table cell: `<`, `>` and `&` as entities (so that no
// name from a catalog becomes HTML where the markdown is shown as HTML, as GitHub does), and the
// characters that would start emphasis, code, a link or a table cell (`*`, `_`, `` ` ``, `[`, `]`,
// `|`) and `\` itself behind a backslash; control characters as \xNN, as on the terminal.
std::string md_text(const std::string& s) {
    std::string out;
    for (char c : escape_control_chars(s)) {
        switch (c) {
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '&': out += "&amp;"; break;
            default:
                if (std::string_view("\\`*_[]|").find(c) != std::string_view::npos) out += '\\';
                out += c;
        }
    }
    return out;
}

// JSON as dumped, with DEL and C1 written \u007f, \u0080 ... (render_json).
std::string escape_raw_controls(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    // Outside strings JSON is ASCII without DEL, so every such byte is inside a string.
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
        if (c == 0x7F) {
            out += "\\u007f";
        } else if (c == 0xC2 && next >= 0x80 && next <= 0x9F) {
            out += "\\u00";
            append_hex(out, static_cast<unsigned char>(next));
            ++i;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

std::string dump_json(const Json& doc) { return doc.dump(2, ' ', false, Json::error_handler_t::replace); }

// The rows of `section` made from `item` (render_delimited).
void add_rows(const Json& item, const ExportSection& section, bool exact, std::vector<ExportRow>& rows) {
    if (section.explode.empty()) {
        ExportRow row;
        flatten(item, item.is_object() ? "" : last_token(section.items), row, exact);
        rows.push_back(std::move(row));
        return;
    }
    if (!item.is_object() || !item.contains(section.explode) || !item[section.explode].is_array()) return;
    for (const auto& element : item[section.explode]) {
        ExportRow row;
        for (const auto& key : section.keep)
            if (item.contains(key)) flatten(item[key], key, row, exact);
        flatten(element, section.explode, row, exact);
        rows.push_back(std::move(row));
    }
}

// The columns of a table: every name any row has, in the order first seen (rows may lack optional
// keys); each row's cells in them.
class DelimitedWriter {
public:
    DelimitedWriter(Delimited kind, bool exact) : kind_(kind), exact_(exact) {}
    void add_columns(const ExportRow& row) {
        for (const auto& [name, value] : row)
            if (index_.emplace(name, columns_.size()).second) columns_.push_back(name);
    }
    void header(std::string& out) const {
        for (std::size_t i = 0; i < columns_.size(); ++i)
            out += (i ? sep() : "") + field(text_cell(columns_[i], exact_));
        if (!columns_.empty()) out += eol();
    }
    void row(const ExportRow& row, std::string& out) {
        cells_.assign(columns_.size(), std::string());
        for (const auto& [name, value] : row) cells_[index_.at(name)] = value;
        for (std::size_t i = 0; i < cells_.size(); ++i) out += (i ? sep() : "") + field(cells_[i]);
        out += eol();
    }

private:
    const char* sep() const { return kind_ == Delimited::csv ? "," : "\t"; }
    const char* eol() const { return kind_ == Delimited::csv ? "\r\n" : "\n"; }
    std::string field(const std::string& s) const {
        return kind_ == Delimited::csv ? csv_field(s) : tsv_field(s);
    }
    Delimited kind_;
    bool exact_;
    std::vector<std::string> columns_;
    std::map<std::string, std::size_t> index_;
    std::vector<std::string> cells_;
};

}  // namespace

std::string render_json(const Json& doc) { return escape_raw_controls(dump_json(doc)); }

void write_json(std::ostream& out, const Json& doc, const JsonItems& items) {
    // The document with a marker where the items go (a text no value dumps to: its control
    // characters are escaped), cut there.
    static const std::string marker = "\x01gpuadvise items\x01";
    Json skeleton = doc;
    skeleton[items.key] = marker;
    const std::string text = render_json(skeleton);
    const std::string dumped = Json(marker).dump();
    const std::size_t at = text.find(dumped);
    out << text.substr(0, at);
    if (items.size == 0) {
        out << "[]";
    } else {
        // An item of a top-level array is indented by four: its own dump, every line moved right.
        out << "[\n";
        std::string item;
        for (std::size_t i = 0; i < items.size; ++i) {
            item = render_json(items.item(i));
            std::string moved = "    ";
            moved.reserve(item.size() + item.size() / 8);
            for (char c : item) {
                moved += c;
                if (c == '\n') moved += "    ";
            }
            moved += i + 1 < items.size ? ",\n" : "\n";
            if (!(out << moved)) return;  // a closed pipe (`| head`): the rest would be dropped anyway
        }
        out << "  ]";
    }
    out << text.substr(at + dumped.size());
}

std::string render_delimited(const Json& doc, const ExportSection& section, Delimited kind, bool exact) {
    const Json& items = section.items.empty() ? doc : doc.at(Json::json_pointer(section.items));
    std::vector<ExportRow> rows;
    if (items.is_array())
        for (const auto& item : items) add_rows(item, section, exact, rows);
    else if (!items.is_null())
        add_rows(items, section, exact, rows);
    DelimitedWriter writer(kind, exact);
    for (const auto& row : rows) writer.add_columns(row);
    std::string out;
    writer.header(out);
    for (const auto& row : rows) writer.row(row, out);
    return out;
}

void write_delimited(std::ostream& out, const JsonItems& items, const ExportSection& section, Delimited kind,
                     bool exact) {
    DelimitedWriter writer(kind, exact);
    std::vector<ExportRow> rows;
    for (std::size_t i = 0; i < items.size; ++i) {
        rows.clear();
        add_rows(items.item(i), section, exact, rows);
        for (const auto& row : rows) writer.add_columns(row);
    }
    std::string text;
    writer.header(text);
    out << text;
    for (std::size_t i = 0; i < items.size; ++i) {
        rows.clear();
        add_rows(items.item(i), section, exact, rows);
        text.clear();
        for (const auto& row : rows) writer.row(row, text);
        if (!(out << text)) return;  // a closed pipe: the rest would be dropped anyway
    }
}

std::string render_markdown(const TextDocument& doc) {
    std::string out;
    // Lead: paragraphs, and the list items below one of them ("assumed: ...") as its list.
    bool in_list = false;
    for (const auto& line : doc.lead) {
        const bool item = line.item();
        if (!out.empty() && !(item && in_list))
            out += "\n";  // a blank line between paragraphs and around a list
        out += (item ? "- " : "") + md_text(line.text) + "\n";
        in_list = item;
    }
    for (const auto& t : doc.tables) {
        if (!out.empty()) out += "\n";
        if (!t.title.empty()) out += "### " + md_text(t.title) + "\n\n";
        out += "|";
        for (const auto& c : t.columns) out += " " + md_text(c.header) + " |";
        out += "\n|";
        for (const auto& c : t.columns) out += c.align == Align::right ? "---:|" : "---|";
        out += "\n";
        for (const auto& row : t.rows) {
            out += "|";
            for (const auto& cell : row) out += " " + md_text(cell) + " |";
            out += "\n";
        }
    }
    if (!doc.notes.empty()) {
        if (!out.empty()) out += "\n";
        // The notes as a list; a note that is a list item belongs to the note above it: nested.
        for (const auto& line : doc.notes) out += (line.item() ? "  - " : "- ") + md_text(line.text) + "\n";
    }
    return out;
}

}  // namespace gpuadvise::io
