#include "io/text_table.hpp"

#include "gpuadvise/base/format.hpp"
#include "gpuadvise/base/hash_index.hpp"
#include "gpuadvise/base/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

namespace gpuadvise::io {
namespace {

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
    for (auto& l : doc.lead) l.text = escape_control_chars(l.text);
    for (auto& n : doc.notes) n.text = escape_control_chars(n.text);
    for (auto& t : doc.tables) {
        t.title = escape_control_chars(t.title);
        for (auto& c : t.columns) c.header = escape_control_chars(c.header);
        for (auto& row : t.rows)
            for (auto& cell : row) cell = escape_control_chars(cell);
    }
    return doc;
}

namespace {

// Byte length of the first `n` code points of `s`.
std::size_t bytes_of_code_points(std::string_view s, std::size_t n) {
    std::size_t i = 0, seen = 0;
    while (i < s.size()) {
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
            if (seen == n) break;
            ++seen;
        }
        ++i;
    }
    return i;
}

std::size_t longest_word(std::string_view s) {
    std::size_t best = 0, start = 0;
    while (start <= s.size()) {
        std::size_t end = s.find(' ', start);
        if (end == std::string_view::npos) end = s.size();
        best = std::max(best, display_width(s.substr(start, end - start)));
        start = end + 1;
    }
    return best;
}

std::string rtrim(std::string s) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

// How many different rows the table has when only the `shown` columns are printed: a column whose
// hiding lowers it is needed to tell rows apart (two offers differing only in REGION), so it stays.
std::size_t distinct_shown_rows(const TextTable& t, const std::vector<bool>& shown) {
    // Rows by the hash of their shown cells, told apart by the cells (sorting copies of the rows took
    // half of listing 250,000 offers: it runs for each column that may be hidden).
    auto same = [&](const std::vector<std::string>& a, const std::vector<std::string>& b) {
        for (std::size_t i = 0; i < shown.size(); ++i)
            if (shown[i] && ((i < a.size()) != (i < b.size()) || (i < a.size() && a[i] != b[i])))
                return false;
        return true;
    };
    auto hash = [&](const std::vector<std::string>& row) {
        std::size_t h = 0;
        for (std::size_t i = 0; i < shown.size(); ++i)
            if (shown[i]) h = hash_combine(h, i < row.size() ? hash_text(row[i]) : 0);  // 0: no such cell
        return h;
    };
    HashIndex index;  // of row numbers, room for every row from the start (it never grows)
    index.reserve(t.rows.size(), [&](std::uint32_t e) { return hash(t.rows[e]); });
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
        const auto& row = t.rows[r];
        const std::size_t h = hash(row);
        const HashIndex::Probe at = index.probe(h, [&](std::uint32_t e) { return same(t.rows[e], row); });
        if (!at.found) index.put(at, h, static_cast<std::uint32_t>(r));
    }
    return index.size();
}

// The widths of the shown columns when they fit `width` with each column narrowed to no less than
// min[i]; nullopt when they cannot. The room left is shared out evenly.
std::optional<std::vector<std::size_t>> fit(const std::vector<std::size_t>& natural,
                                            const std::vector<std::size_t>& min,
                                            const std::vector<bool>& shown, std::size_t width) {
    std::size_t used = 0, count = 0;
    std::vector<std::size_t> widths = natural;
    std::vector<std::size_t> flexible;
    for (std::size_t i = 0; i < natural.size(); ++i) {
        if (!shown[i]) continue;
        ++count;
        if (natural[i] > min[i]) {
            widths[i] = min[i];
            flexible.push_back(i);
        }
        used += widths[i];
    }
    if (count > 1) used += 2 * (count - 1);
    if (used > width) return std::nullopt;
    std::size_t extra = width - used;
    std::sort(flexible.begin(), flexible.end(),
              [&](std::size_t a, std::size_t b) { return natural[a] - min[a] < natural[b] - min[b]; });
    for (std::size_t k = 0; k < flexible.size(); ++k) {
        const std::size_t i = flexible[k];
        const std::size_t give = std::min(natural[i] - min[i], extra / (flexible.size() - k));
        widths[i] += give;
        extra -= give;
    }
    return widths;
}

}  // namespace

std::size_t display_width(std::string_view s) {
    std::size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}

std::vector<std::string> wrap_text(std::string_view text, std::size_t width, std::size_t indent) {
    if (width == 0 || display_width(text) <= width) return {std::string(text)};
    if (indent >= width / 2) indent = 0;
    std::vector<std::string> lines;
    std::string current;
    std::size_t current_width = 0;
    bool fresh = true;  // nothing but the indent on the current line yet
    auto new_line = [&] {
        lines.push_back(rtrim(current));
        current.assign(indent, ' ');
        current_width = indent;
        fresh = true;
    };
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find(' ', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view word = text.substr(start, end - start);
        start = end + 1;
        std::size_t w = display_width(word);
        if (!fresh && current_width + 1 + w > width) new_line();
        if (!fresh) {
            current += ' ';
            ++current_width;
        }
        while (current_width + w > width && w > 0) {  // a word longer than a line is cut
            const std::size_t room = width - current_width;
            const std::size_t cut = bytes_of_code_points(word, room);
            current += word.substr(0, cut);
            word = word.substr(cut);
            w -= room;
            current_width = width;
            new_line();
        }
        current += word;
        current_width += w;
        if (w > 0) fresh = false;
    }
    if (!fresh || lines.empty()) lines.push_back(rtrim(current));
    return lines;
}

std::vector<std::string> wrap_line(std::string_view line, std::size_t width) {
    std::size_t lead = 0;
    while (lead < line.size() && line[lead] == ' ') ++lead;
    if (width == 0 || display_width(line) <= width) return {std::string(line)};
    if (lead + 10 > width) lead = 0;
    std::vector<std::string> out = wrap_text(line.substr(lead), width - lead, 2);
    for (auto& l : out) l = std::string(lead, ' ') + l;
    return out;
}

std::string TextLine::printed() const {
    switch (mark) {
        case ListMark::none: return text;
        case ListMark::indent: return "  " + text;
        case ListMark::dash: return "- " + text;
        case ListMark::indent_dash: return "  - " + text;
    }
    return text;
}

std::string render_table(const TextDocument& raw, bool color, std::size_t width) {
    const TextDocument doc = escaped(raw);
    const char* bold = color ? "\x1b[1m" : "";
    const char* reset = color ? "\x1b[0m" : "";
    std::string out;
    auto prose = [&](const std::string& line) {
        for (const auto& l : wrap_line(line, width)) out += l + "\n";
    };
    for (const auto& line : doc.lead) prose(line.printed());
    for (const auto& t : doc.tables) {
        if (!out.empty()) out += "\n";
        if (!t.title.empty())
            for (const auto& l : wrap_line(t.title, width)) out += std::string(bold) + l + reset + "\n";
        const std::size_t n = t.columns.size();
        // natural: the widest cell or header; min: how narrow a column may get. A wrapping column's
        // cells wrap down to 10 columns (or their longest word, up to 30); any column's header wraps
        // at its spaces ("BREAK-EVEN H/MO" over two lines) but its cells never do.
        std::vector<std::size_t> natural(n, 0), min(n, 0), cell_width(n, 0);
        for (const auto& row : t.rows)
            for (std::size_t i = 0; i < row.size() && i < n; ++i)
                cell_width[i] = std::max(cell_width[i], display_width(row[i]));
        std::vector<bool> shown(n, true);
        for (std::size_t i = 0; i < n; ++i) {
            natural[i] = std::max(cell_width[i], display_width(t.columns[i].header));
            const std::size_t head_word = longest_word(t.columns[i].header);
            if (t.columns[i].wrap) {
                std::size_t word = head_word;
                for (const auto& row : t.rows)
                    if (i < row.size()) word = std::max(word, longest_word(row[i]));
                // and to no less than half its natural width up to 24, so that a long text keeps room
                min[i] = std::min(natural[i], std::max({std::size_t{10}, std::min<std::size_t>(word, 30),
                                                        std::min<std::size_t>(natural[i] / 2, 24)}));
            } else {
                min[i] = std::max(cell_width[i], head_word);
            }
        }
        std::vector<std::size_t> widths = natural;
        std::vector<std::string> hidden;
        if (width > 0) {
            std::optional<std::vector<std::size_t>> fitted = fit(natural, min, shown, width);
            // Never hidden: priority 0, nor a column needed to tell the rows apart.
            std::vector<bool> needed(n, false);
            std::optional<std::size_t> distinct;
            while (!fitted) {
                std::optional<std::size_t> drop;
                for (std::size_t i = 0; i < n; ++i)
                    if (shown[i] && !needed[i] && t.columns[i].priority > 0 &&
                        (!drop || t.columns[i].priority >= t.columns[*drop].priority))
                        drop = i;
                if (!drop) break;
                if (!distinct) distinct = distinct_shown_rows(t, shown);
                shown[*drop] = false;
                if (distinct_shown_rows(t, shown) < *distinct) {
                    shown[*drop] = true;
                    needed[*drop] = true;
                    continue;
                }
                fitted = fit(natural, min, shown, width);
            }
            // Still too wide: every text column wraps, then every column.
            for (int pass = 0; pass < 2 && !fitted; ++pass) {
                for (std::size_t i = 0; i < n; ++i)
                    if (pass == 1 || t.columns[i].align == Align::left)
                        min[i] = std::min(min[i], pass == 0 ? std::size_t{8} : std::size_t{1});
                fitted = fit(natural, min, shown, width);
            }
            if (fitted) widths = *fitted;
            for (std::size_t i = 0; i < n; ++i)
                if (!shown[i]) hidden.push_back(t.columns[i].header);
        }
        std::size_t last = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (shown[i]) last = i;
        auto emit_row = [&](const std::vector<std::string>& cells, bool header) {
            std::vector<std::vector<std::string>> parts(n);
            std::size_t height = 1;
            for (std::size_t i = 0; i < n && i < cells.size(); ++i) {
                if (!shown[i]) continue;
                parts[i] = widths[i] < natural[i]
                               ? wrap_text(cells[i], widths[i], !header && widths[i] > 8 ? 2 : 0)
                               : std::vector<std::string>{cells[i]};
                height = std::max(height, parts[i].size());
            }
            for (std::size_t k = 0; k < height; ++k) {
                std::string line;
                bool first = true;
                for (std::size_t i = 0; i < n && i < cells.size(); ++i) {
                    if (!shown[i]) continue;
                    if (!first) line += "  ";
                    first = false;
                    const std::string cell = k < parts[i].size() ? parts[i][k] : std::string();
                    const bool pad_it = !(i == last && t.columns[i].align == Align::left);
                    line += pad(cell, pad_it ? widths[i] : 0, t.columns[i].align);
                }
                if (k > 0) line = rtrim(line);
                out += header ? std::string(bold) + line + reset + "\n" : line + "\n";
            }
        };
        std::vector<std::string> headers;
        for (const auto& c : t.columns) headers.push_back(c.header);
        emit_row(headers, true);
        for (const auto& row : t.rows) emit_row(row, false);
        if (!hidden.empty())
            prose("Hidden to fit " + std::to_string(width) + " columns: " + join(hidden, ", ") +
                  " (--wide shows " + (hidden.size() == 1 ? "it" : "them") + ").");
    }
    if (!doc.notes.empty()) {
        out += "\n";
        for (const auto& line : doc.notes) prose(line.printed());
    }
    return out;
}

std::string fmt_number(double v, int decimals) { return format_fixed(v, decimals); }

std::string fmt_optional(const std::optional<double>& v, int decimals) {
    return v ? fmt_number(*v, decimals) : std::string("-");
}

}  // namespace gpuadvise::io
