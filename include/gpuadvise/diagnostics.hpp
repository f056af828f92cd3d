// Located problems found while reading or linting data. The core produces them; io prints them.
#pragma once

#include <string>
#include <vector>

#include "gpuadvise/offer.hpp"

namespace gpuadvise {

enum class Severity { error, warning };

struct Diagnostic {
    Severity severity = Severity::error;
    SourceLocation where;
    std::string message;  // "offers[3].gpu: unknown GPU 'A100-80G'; did you mean 'a100-80gb-pcie'?"

    bool operator==(const Diagnostic&) const = default;
};

class Diagnostics {
public:
    void error(SourceLocation where, std::string message);
    void warning(SourceLocation where, std::string message);
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
