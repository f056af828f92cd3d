#include "gpuadvise/base/diagnostics.hpp"

#include <algorithm>

namespace gpuadvise {

void Diagnostics::error(SourceLocation where, std::string message) {
    items_.push_back({Severity::error, std::move(where), std::move(message)});
}

void Diagnostics::warning(SourceLocation where, std::string message, DiagnosticKind kind) {
    items_.push_back({Severity::warning, std::move(where), std::move(message), kind});
}

void Diagnostics::add(Diagnostic d) { items_.push_back(std::move(d)); }

void Diagnostics::append(const Diagnostics& other) {
    items_.insert(items_.end(), other.items_.begin(), other.items_.end());
}

bool Diagnostics::has_errors() const { return error_count() > 0; }

std::size_t Diagnostics::error_count() const {
    return static_cast<std::size_t>(std::count_if(
        items_.begin(), items_.end(), [](const Diagnostic& d) { return d.severity == Severity::error; }));
}

std::size_t Diagnostics::warning_count() const { return items_.size() - error_count(); }

std::string format_diagnostic(const Diagnostic& d) {
    std::string out;
    if (!d.where.file.empty()) {
        out += d.where.file;
        if (d.where.line > 0) {
            out += ':' + std::to_string(d.where.line);
            if (d.where.column > 0) out += ':' + std::to_string(d.where.column);
        }
        out += ": ";
    }
    out += d.severity == Severity::error ? "error: " : "warning: ";
    out += d.message;
    return out;
}

}  // namespace gpuadvise
