// --format html: one self-contained HTML document (inline CSS and SVG; no script, no network, no
// external font) rendered from a command's JSON document and its text layout. `recommend` gets the
// report of docs/report.md (workload, charts, ranked options, the four steps, warnings with as-of
// dates, the charts' data as tables); every other command gets its tables and notes as HTML.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "io/text_table.hpp"

namespace gpuadvise::io {

std::string render_html(const nlohmann::ordered_json& json, const TextDocument& doc);

}  // namespace gpuadvise::io
