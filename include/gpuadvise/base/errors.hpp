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
// `field`: the request field the error is about, by its key ("model", "params", "measured_on"), where
// one is; a jobs file puts the error on that key (io/jobs_yaml.cpp).
class UsageError : public Error {
public:
    UsageError(std::string message, std::string hint = {}, std::string field = {})
        : Error(std::move(message), std::move(hint)), field_(std::move(field)) {}
    const std::string& field() const { return field_; }

private:
    std::string field_;
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
