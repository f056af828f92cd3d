// A result laid out as text: titled tables plus note lines. Commands build one from their result
// object (formatting only, no computing) and the renderers print it as an aligned table, CSV or
// markdown.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpuadvise::io {

enum class Align { left, right };

struct Column {
    std::string header;
    Align align = Align::left;
};

struct TextTable {
    std::string title;  // printed above the table (not in CSV)
    std::vector<Column> columns;
    std::vector<std::vector<std::string>> rows;
};

struct TextDocument {
    std::vector<std::string> lead;  // lines before the tables
    std::vector<TextTable> tables;
    std::vector<std::string> notes;  // lines after the tables
};

std::string render_table(const TextDocument& doc, bool color);
// CSV, TSV and markdown: io/output.hpp.

// Number formatting shared by the table builders: "-" for missing values.
std::string fmt_number(double v, int decimals);
std::string fmt_optional(const std::optional<double>& v, int decimals);

}  // namespace gpuadvise::io
