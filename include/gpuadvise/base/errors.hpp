// Error kinds that map to exit codes in one place (src/cli/app.cpp):
// UsageError -> 2, DataError -> 1; a valid request with no result is exit 3, returned by the command.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "gpuadvise/base/diagnostics.hpp"

namespace gpuadvise {

class Error : public std::runtime_error {
public:
    Error(std::string message, std::string hint = {})
        : std::runtime_error(std::move(message)), hint_(std::move(hint)) {}
    const std::string& hint() const { return hint_; }

private:
    std::string hint_;
};

// The request is malformed: unknown flag value, unknown GPU or model name, absurd number.
class UsageError : public Error {
    using Error::Error;
};

// Data could not be read or is invalid (catalog, CSV, environment files). `details` holds every
// located problem when there are several (catalog readers report all of them at once).
class DataError : public Error {
public:
    using Error::Error;
    DataError(std::string message, std::vector<Diagnostic> details, std::string hint = {})
        : Error(std::move(message), std::move(hint)), details_(std::move(details)) {}
    const std::vector<Diagnostic>& details() const { return details_; }

private:
    std::vector<Diagnostic> details_;
};

}  // namespace gpuadvise
