// A small hand-written SVG chart writer for the HTML report (docs/report.md says why it is written by
// hand: no library, no script, no font download, a few kilobytes, byte-stable output for goldens).
// Scatter and line series on linear axes with "nice" ticks, distinct markers and dash patterns (the
// charts survive greyscale printing), point labels, vertical markers, <title> and <desc>.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuadvise::io::svg {

// Text for HTML or SVG: & < > " ' escaped, control characters (C0, DEL, C1) written \xNN as on
// the terminal (an ESC or OSC sequence from a catalog never reaches the page).
std::string escape(std::string_view text);

// Ticks from lo to hi: steps of 1, 2 or 5 x 10^k giving at most about `target` intervals; the axis
// range is widened to whole steps.
struct Scale {
    double min = 0, max = 1, step = 1;
    std::vector<double> ticks;
};
Scale nice_scale(double lo, double hi, int target);
// A tick value with as many decimals as the step needs ("0.25", "10", "1,500").
std::string tick_label(double value, double step);

enum class Marker { circle, square, triangle, diamond, cross };

struct Point {
    double x = 0, y = 0;
};

struct Series {
    std::string name;
    std::vector<Point> points;
    Marker marker = Marker::circle;
    std::string color = "#000000";
    std::string dash;    // SVG stroke-dasharray ("" = solid)
    bool line = false;   // join the points in order
    bool filled = true;  // filled or hollow markers
    double size = 4;     // marker radius in px
};

struct PointLabel {
    Point at;
    std::string text;
};

struct VerticalMarker {
    double x = 0;
    std::string text;
    std::string dash = "4 3";
};

struct Chart {
    std::string id;                // the <svg> id and the prefix of its <title>/<desc> ids
    std::string title;             // <title> and the heading drawn in the chart
    std::string desc;              // <desc>: what the chart shows, in words
    std::string x_label, y_label;  // with units
    int width = 960, height = 440;
    std::vector<Series> series;
    std::vector<PointLabel> labels;
    std::vector<VerticalMarker> markers;
    bool y_from_zero = true;
    bool x_from_zero = false;
};

// The <svg> element (no XML declaration: it is inlined into HTML).
std::string render(const Chart& chart);

}  // namespace gpuadvise::io::svg
