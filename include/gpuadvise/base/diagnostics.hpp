// Located problems found while reading or linting data. The core produces them; io prints them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/base/names.hpp"
#include "gpuadvise/base/source_location.hpp"

namespace gpuadvise {

enum class Severity { error, warning };

// What a diagnostic is about, for code that treats some kinds apart (never its message text):
// the data-warning summary (cli/context.cpp) leaves out stale prices, which the price listings name.
enum class DiagnosticKind {
    general,              // any other problem in the data
    stale_prices,         // prices older than policy max_price_age_days
    undated_prices,       // prices of unknown date (as-of unknown), treated as stale
    future_prices,        // as_of after today
    bad_date,             // as_of not a YYYY-MM-DD date
    unused_calibration,   // a calibration point naming no model preset or no catalog GPU
    price_inconsistency,  // spot not below on-demand, reserved or a commitment dearer than on-demand
    zero_price,           // a price of 0
    duplicate_offer,      // the same offer twice
    invalid_price,        // a price field that is not a number of at least 0 (the row is ignored)
};
inline constexpr NameTable<DiagnosticKind, 10> kDiagnosticKindNames{{{
    {DiagnosticKind::general, "general"},
    {DiagnosticKind::stale_prices, "stale_prices"},
    {DiagnosticKind::undated_prices, "undated_prices"},
    {DiagnosticKind::future_prices, "future_prices"},
    {DiagnosticKind::bad_date, "bad_date"},
    {DiagnosticKind::unused_calibration, "unused_calibration"},
    {DiagnosticKind::price_inconsistency, "price_inconsistency"},
    {DiagnosticKind::zero_price, "zero_price"},
    {DiagnosticKind::duplicate_offer, "duplicate_offer"},
    {DiagnosticKind::invalid_price, "invalid_price"},
}}};
inline std::string_view to_string(DiagnosticKind k) { return kDiagnosticKindNames.name(k); }

struct Diagnostic {
    Severity severity = Severity::error;
    SourceLocation where;
    std::string message;  // "offers[3].gpu: unknown GPU 'A100-80G'; did you mean 'a100-80gb-pcie'?"
    DiagnosticKind kind = DiagnosticKind::general;

    bool operator==(const Diagnostic&) const = default;
};

class Diagnostics {
public:
    void error(SourceLocation where, std::string message);
    void warning(SourceLocation where, std::string message, DiagnosticKind kind = DiagnosticKind::general);
    void add(Diagnostic d);
    void append(const Diagnostics& other);

    bool has_errors() const;
    std::size_t error_count() const;
    std::size_t warning_count() const;
    const std::vector<Diagnostic>& all() const { return items_; }
    bool operator==(const Diagnostics&) const = default;

private:
    std::vector<Diagnostic> items_;
};

// "file:line:col: error: message" (line/col omitted when unknown).
std::string format_diagnostic(const Diagnostic& d);

}  // namespace gpuadvise
