// Where a piece of data came from (file, line, column), and the shared immutable text that names it.
#pragma once

#include <compare>
#include <memory>
#include <string>
#include <string_view>

namespace gpuadvise {

// An immutable string that every row with the same one shares (a table's file name, source,
// provider, currency, as-of date): one allocation per table, 16 bytes per row. Reads as a
// const std::string&; compares by content.
class SharedText {
public:
    SharedText() = default;
    SharedText(std::string text)  // NOLINT: implicit, like the std::string it replaces
        : text_(text.empty() ? nullptr : std::make_shared<const std::string>(std::move(text))) {}
    SharedText(const char* text) : SharedText(std::string(text)) {}  // NOLINT

    const std::string& str() const { return text_ ? *text_ : empty_text(); }
    operator const std::string&() const { return str(); }  // NOLINT
    operator std::string_view() const { return str(); }    // NOLINT
    bool empty() const { return !text_ || text_->empty(); }
    std::size_t size() const { return str().size(); }
    const char* c_str() const { return str().c_str(); }
    const char* data() const { return str().data(); }
    int compare(const SharedText& other) const { return str().compare(other.str()); }
    bool same_storage(const SharedText& other) const { return text_ == other.text_; }

    friend bool operator==(const SharedText& a, const SharedText& b) {
        return a.text_ == b.text_ || a.str() == b.str();
    }
    friend bool operator==(const SharedText& a, std::string_view b) { return a.str() == b; }
    friend bool operator==(const SharedText& a, const std::string& b) { return a.str() == b; }
    friend bool operator==(const SharedText& a, const char* b) { return a.str() == b; }
    friend auto operator<=>(const SharedText& a, const SharedText& b) { return a.str() <=> b.str(); }
    friend auto operator<=>(const SharedText& a, const std::string& b) { return a.str() <=> b; }
    friend std::string operator+(const SharedText& a, const std::string& b) { return a.str() + b; }
    friend std::string operator+(const std::string& a, const SharedText& b) { return a + b.str(); }
    friend std::string operator+(const SharedText& a, const char* b) { return a.str() + b; }
    friend std::string operator+(const char* a, const SharedText& b) { return a + b.str(); }
    friend std::string operator+(std::string&& a, const SharedText& b) { return std::move(a) + b.str(); }
    friend std::string operator+(const SharedText& a, char b) { return a.str() + b; }

private:
    static const std::string& empty_text() {
        static const std::string empty;
        return empty;
    }
    std::shared_ptr<const std::string> text_;
};

// Where a piece of catalog data came from, for diagnostics (1-based; 0 = unknown).
struct SourceLocation {
    SharedText file;
    int line = 0;
    int column = 0;

    bool operator==(const SourceLocation&) const = default;
};

}  // namespace gpuadvise
