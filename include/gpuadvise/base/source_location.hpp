// Where a piece of data came from (file, line, column), and the shared immutable text that names it.
#pragma once

#include <atomic>
#include <compare>
#include <cstddef>
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
        : rep_(text.empty() ? nullptr : new Rep{1, std::move(text)}) {}
    SharedText(const char* text) : SharedText(std::string(text)) {}  // NOLINT
    SharedText(const SharedText& other) noexcept : rep_(other.rep_) { retain(); }
    SharedText(SharedText&& other) noexcept : rep_(other.rep_) { other.rep_ = nullptr; }
    SharedText& operator=(const SharedText& other) noexcept {
        if (rep_ != other.rep_) {
            release();
            rep_ = other.rep_;
            retain();
        }
        return *this;
    }
    SharedText& operator=(SharedText&& other) noexcept {
        if (this != &other) {
            release();
            rep_ = other.rep_;
            other.rep_ = nullptr;
        }
        return *this;
    }
    ~SharedText() { release(); }

    const std::string& str() const { return rep_ ? rep_->text : empty_text(); }
    operator const std::string&() const { return str(); }  // NOLINT
    operator std::string_view() const { return str(); }    // NOLINT
    bool empty() const { return !rep_ || rep_->text.empty(); }
    std::size_t size() const { return str().size(); }
    const char* c_str() const { return str().c_str(); }
    const char* data() const { return str().data(); }
    int compare(const SharedText& other) const { return str().compare(other.str()); }
    bool same_storage(const SharedText& other) const { return rep_ == other.rep_; }

    friend bool operator==(const SharedText& a, const SharedText& b) {
        return a.rep_ == b.rep_ || a.str() == b.str();
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
    // One text and the number of SharedTexts holding it: a pointer of 8 bytes per row where a
    // shared_ptr took 16, and a copy one atomic increment (the catalog's decode copies 29,000).
    struct Rep {
        std::atomic<std::size_t> refs;
        const std::string text;
    };
    void retain() const noexcept {
        if (rep_) rep_->refs.fetch_add(1, std::memory_order_relaxed);
    }
    void release() noexcept {
        if (rep_ && rep_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete rep_;
    }
    Rep* rep_ = nullptr;
};

// Where a piece of catalog data came from, for diagnostics (1-based; 0 = unknown).
struct SourceLocation {
    SharedText file;
    int line = 0;
    int column = 0;

    bool operator==(const SourceLocation&) const = default;
};

}  // namespace gpuadvise
