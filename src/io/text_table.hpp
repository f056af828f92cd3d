// A result laid out as text: titled tables plus note lines. Commands build one from their result
// object (formatting only, no computing) and the renderers print it as an aligned table, CSV or
// markdown.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuadvise::io {

enum class Align { left, right };

// How a column behaves when its table is wider than the terminal (render_table's `width`): text
// columns marked `wrap` are narrowed first (their cells wrap at spaces, continuation lines indented
// by two); when that is not enough, columns with a `priority` above 0 are hidden, the highest number
// first (ties: the rightmost first), and one line under the table names them and says that --wide
// shows them. Columns with priority 0 are never hidden, nor a column whose hiding would make two
// different rows print the same (REGION between two offers alike in all else). Each command declares
// these when it builds its table; CSV and markdown ignore them.
struct Column {
    std::string header;
    Align align = Align::left;
    int priority = 0;
    bool wrap = false;
};

// Which table of a document this is, for renderers that place a table by what it holds (the HTML
// report), not by its printed title.
enum class TableRole { other, needs_analysis, recommendations };

struct TextTable {
    std::string title;  // printed above the table (not in CSV)
    std::vector<Column> columns;
    std::vector<std::vector<std::string>> rows;
    TableRole role = TableRole::other;
};

// A lead or note line: a paragraph, or an item of the list under the paragraph above it. The table
// prints an item behind its marker (the workload's "  assumed: …", estimate's "  - …", check-env's
// "- …"); markdown and HTML print it as a list item. The text itself never carries the marker.
enum class ListMark { none, indent, dash, indent_dash };  // "", "  ", "- ", "  - "

struct TextLine {
    std::string text;
    ListMark mark = ListMark::none;
    TextLine(std::string t = {}, ListMark m = ListMark::none) : text(std::move(t)), mark(m) {}
    TextLine(const char* t) : text(t) {}
    bool item() const { return mark != ListMark::none; }
    std::string printed() const;  // as the table prints it: the marker, then the text
    bool operator==(const TextLine&) const = default;
};

struct TextDocument {
    std::vector<TextLine> lead;  // lines before the tables
    std::vector<TextTable> tables;
    std::vector<TextLine> notes;  // lines after the tables
};

// `width`: the terminal's columns (io::terminal_width); 0 lays everything out unwrapped (--wide).
// Lead and note lines longer than the width wrap at spaces with a hanging indent.
std::string render_table(const TextDocument& doc, bool color, std::size_t width = 0);
// CSV, TSV and markdown: io/output.hpp.

// Display width of UTF-8 text in code points (× and – are one column).
std::size_t display_width(std::string_view s);
// `text` wrapped at spaces to lines of at most `width` code points (a word longer than that is cut);
// continuation lines start with `indent` spaces. width 0: one line, unchanged.
std::vector<std::string> wrap_text(std::string_view text, std::size_t width, std::size_t indent);
// A prose line wrapped with a hanging indent of its own leading spaces plus two.
std::vector<std::string> wrap_line(std::string_view line, std::size_t width);

// Number formatting shared by the table builders: "-" for missing values.
std::string fmt_number(double v, int decimals);
std::string fmt_optional(const std::optional<double>& v, int decimals);

}  // namespace gpuadvise::io
