#include "io/text_table.hpp"

#include "gpuadvise/text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gpuadvise::io {
namespace {

// Display width of UTF-8 text: counts code points, not bytes (× and – are one column).
std::size_t display_width(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}

std::string pad(const std::string& s, std::size_t width, Align align) {
    std::size_t w = display_width(s);
    if (w >= width) return s;
    std::string fill(width - w, ' ');
    return align == Align::left ? s + fill : fill + s;
}

}  // namespace

// Text from catalogs and tools is shown on a terminal: its control characters are escaped first.
TextDocument escaped(const TextDocument& raw) {
    TextDocument doc = raw;
    for (auto& l : doc.lead) l = escape_control_chars(l);
    for (auto& n : doc.notes) n = escape_control_chars(n);
    for (auto& t : doc.tables) {
        t.title = escape_control_chars(t.title);
        for (auto& row : t.rows)
            for (auto& cell : row) cell = escape_control_chars(cell);
    }
    return doc;
}

std::string render_table(const TextDocument& raw, bool color) {
    const TextDocument doc = escaped(raw);
    const char* bold = color ? "\x1b[1m" : "";
    const char* reset = color ? "\x1b[0m" : "";
    std::string out;
    for (const auto& line : doc.lead) out += line + "\n";
    for (const auto& t : doc.tables) {
        if (!out.empty()) out += "\n";
        if (!t.title.empty()) out += std::string(bold) + t.title + reset + "\n";
        std::vector<std::size_t> widths(t.columns.size(), 0);
        for (std::size_t i = 0; i < t.columns.size(); ++i) widths[i] = display_width(t.columns[i].header);
        for (const auto& row : t.rows)
            for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i)
                widths[i] = std::max(widths[i], display_width(row[i]));
        std::string header;
        for (std::size_t i = 0; i < t.columns.size(); ++i) {
            if (i) header += "  ";
            header += pad(t.columns[i].header, i + 1 == t.columns.size() && t.columns[i].align == Align::left ? 0 : widths[i],
                          t.columns[i].align);
        }
        out += std::string(bold) + header + reset + "\n";
        for (const auto& row : t.rows) {
            std::string line;
            for (std::size_t i = 0; i < row.size() && i < t.columns.size(); ++i) {
                if (i) line += "  ";
                bool last = i + 1 == t.columns.size();
                line += pad(row[i], last && t.columns[i].align == Align::left ? 0 : widths[i], t.columns[i].align);
            }
            out += line + "\n";
        }
    }
    if (!doc.notes.empty()) {
        out += "\n";
        for (const auto& line : doc.notes) out += line + "\n";
    }
    return out;
}

std::string fmt_number(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

std::string fmt_optional(const std::optional<double>& v, int decimals) {
    return v ? fmt_number(*v, decimals) : std::string("-");
}

}  // namespace gpuadvise::io
