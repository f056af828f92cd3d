#include "cli/option_checks.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "gpuadvise/base/dates.hpp"
#include "gpuadvise/base/numbers.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/model/workload.hpp"

namespace gpuadvise::cli {
namespace {

// A bound as messages write it: 1000000000, 0.001, 1e+15.
std::string bound_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return buf;
}

// What --help adds after the type, as CLI::Range wrote it: "INT in [1 - 1000]", "FLOAT in [0 - 1e+09]".
template <typename T>
std::string range_description(const char* type, T min, T max) {
    std::ostringstream out;
    out << type << " in [" << min << " - " << max << "]";
    return out.str();
}

bool spaced(const std::string& value) {
    return !value.empty() && (std::isspace(static_cast<unsigned char>(value.front())) ||
                              std::isspace(static_cast<unsigned char>(value.back())));
}

std::string trimmed(const std::string& value) {
    std::size_t begin = 0, end = value.size();
    while (begin < end && std::isspace(static_cast<unsigned char>(value[begin]))) ++begin;
    while (end > begin && std::isspace(static_cast<unsigned char>(value[end - 1]))) --end;
    return value.substr(begin, end - begin);
}

// A decimal number as the whole of `value` (an optional sign, digits, point, exponent; "inf" as
// from_chars reads it), or the complaint about it. A number past double's range reads as ±infinity
// (out of every range); one below it (1e-400) as `tiny`, with the 0 or denormal strtod makes of it.
struct DecimalRead {
    double value = 0;
    bool tiny = false;    // written non-zero, below double's normal range (a denormal, or lost to 0)
    std::string problem;  // "" when `value` holds the number
};

DecimalRead read_decimal(const std::string& value) {
    DecimalRead r;
    if (std::string p = plain_value_problem(value); !p.empty()) {
        r.problem = p;
        return r;
    }
    if (spaced(value)) {
        r.problem = "'" + value + "' has spaces around the number; write " + trimmed(value);
        return r;
    }
    const char* begin = value.data();
    const char* end = value.data() + value.size();
    if (*begin == '+') ++begin;
    auto [ptr, ec] = std::from_chars(begin, end, r.value);
    if (begin == end || ec == std::errc::invalid_argument || ptr != end || std::isnan(r.value)) {
        r.problem = "'" + shorten(value) + "' is not a number";
        return r;
    }
    if (ec == std::errc::result_out_of_range)
        r.value = std::strtod(value.c_str(), nullptr);  // ±HUGE_VAL or ~0
    r.tiny = !std::isinf(r.value) && (ec == std::errc::result_out_of_range || is_denormal(r.value));
    return r;
}

std::string denormal(const std::string& value) {
    return "'" + shorten(value) + "' " + std::string(kDenormalReason);
}

std::string out_of_range(const std::string& value, double min, double max) {
    return shorten(value) + " is out of range; expected " + bound_text(min) + " to " + bound_text(max);
}

}  // namespace

std::string plain_value_problem(const std::string& value) {
    if (value.empty()) return "an empty value";
    // [+-]0[xXbBoO] and at least one hexadecimal digit or '_' after it, up to the end.
    std::size_t i = value[0] == '+' || value[0] == '-' ? 1 : 0;
    if (value.size() > i + 2 && value[i] == '0' &&
        std::string_view("xXbBoO").find(value[i + 1]) != std::string_view::npos) {
        bool digits = true;
        for (std::size_t k = i + 2; k < value.size(); ++k)
            digits = digits && (std::isxdigit(static_cast<unsigned char>(value[k])) || value[k] == '_');
        if (digits)
            return "'" + value +
                   "': hexadecimal, binary and octal numbers are not accepted; write it in decimal";
    }
    return {};
}

CLI::Validator whole_number(long long min, long long max, bool in_help) {
    return CLI::Validator(
        [min, max](std::string& input) -> std::string {
            const DecimalRead r = read_decimal(input);
            if (!r.problem.empty()) return r.problem;
            const std::string range = "; expected " + std::to_string(min) + " to " + std::to_string(max);
            if (r.tiny || (std::isfinite(r.value) && r.value != std::floor(r.value)))
                return "'" + shorten(input) + "' is not a whole number" + range;
            if (!(r.value >= static_cast<double>(min) && r.value <= static_cast<double>(max)))
                return shorten(input) + " is out of range" + range;
            input = std::to_string(static_cast<long long>(r.value));  // what CLI11 converts
            return {};
        },
        in_help ? range_description("INT", min, max) : "");
}

CLI::Validator decimal_number(double min, double max, bool in_help) {
    return CLI::Validator(
        [min, max](std::string& input) -> std::string {
            const DecimalRead r = read_decimal(input);
            if (!r.problem.empty()) return r.problem;
            if (!(r.value >= min && r.value <= max)) return out_of_range(input, min, max);
            if (r.tiny) return denormal(input) + "; use 0 or a larger value";
            return {};
        },
        in_help ? range_description("FLOAT", min, max) : "");
}

CLI::Validator quantity_value() {
    return CLI::Validator(
        [](std::string& input) -> std::string {
            if (auto v = parse_quantity(input); v && is_denormal(*v))
                return denormal(input) + "; give a positive number of at most 1e18 (e.g. 7B, 350M)";
            return {};
        },
        "");
}

CLI::Validator quantity_number(double min, double max) {
    return CLI::Validator(
        [min, max](std::string& input) -> std::string {
            if (spaced(input)) return "'" + input + "' has spaces around the number; write " + trimmed(input);
            const DecimalRead r = read_decimal(input);
            const std::optional<double> v = parse_quantity(input);
            if (!v) {
                if (r.problem.empty() && r.tiny) return denormal(input) + "; use a larger value";
                if (r.problem.empty()) return out_of_range(input, min, max);  // a number parse_quantity refuses
                return "'" + shorten(input) + "' is not a number (a suffix k, M, B or T is allowed: 10k, 500M)";
            }
            if (is_denormal(*v)) return denormal(input) + "; use a larger value";
            if (!(*v >= min && *v <= max)) return out_of_range(input, min, max);
            char digits[32];  // the number itself (shortest exact form), for the option's double
            input.assign(digits, std::to_chars(digits, digits + sizeof digits, *v).ptr);
            return {};
        },
        "");
}

CLI::Validator one_of(std::vector<std::string> names) {
    const std::string description = "{" + join(names, ",") + "}";
    return CLI::Validator(
        [names](std::string& input) -> std::string {
            for (const auto& n : names)
                if (n == input) return {};
            std::string message = "unknown value '" + shorten(input) + "'; ";
            // A typo (one letter off: "cots", "jsn"), not any near word ("yaml" is no "html").
            if (auto best = closest_match(input, names); best && edit_distance(input, *best) <= 1)
                message += "did you mean '" + *best + "'? ";
            return message + "expected one of: " + join(names, ", ");
        },
        description);
}

CLI::Validator iso_date_value() {
    return CLI::Validator(
        [](std::string& input) -> std::string {
            if (std::string p = plain_value_problem(input); !p.empty()) return p;
            if (std::string why = iso_date_problem(input); !why.empty())
                return "'" + shorten(input) + "' is not a date: " + why;
            return {};
        },
        "");
}

CLI::Validator flag_value() {
    return CLI::Validator(
        [](std::string& input) -> std::string {
            bool value = false;
            if (CLI::detail::lexical_cast(input, value)) return {};
            return "'" + shorten(input) + "' is not true or false (also: yes/no, on/off, 1/0)";
        },
        "");
}

std::string option_value_problem(CLI::Option& option, std::string value) {
    for (int i = 0;; ++i) {
        CLI::Validator* check = nullptr;
        try {
            check = option.get_validator(i);
        } catch (const CLI::OptionNotFound&) {
            return {};  // past the last one
        }
        std::string copy = value;
        if (std::string why = (*check)(copy); !why.empty()) return why;
    }
}

}  // namespace gpuadvise::cli
