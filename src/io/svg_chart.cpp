#include "io/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "gpuadvise/base/format.hpp"
#include "gpuadvise/base/text.hpp"

namespace gpuadvise::io::svg {
namespace {

// Coordinates with one decimal: enough for a screen pixel, and the same bytes on every machine.
std::string px(double v) { return format_fixed(std::fabs(v) < 0.05 ? 0.0 : v, 1); }

std::string marker_svg(Marker m, double x, double y, double r, const std::string& color, bool filled) {
    const std::string fill = filled ? color : "#ffffff";
    const std::string style = " fill=\"" + fill + "\" stroke=\"" + color + "\" stroke-width=\"1.5\"";
    switch (m) {
        case Marker::circle:
            return "<circle cx=\"" + px(x) + "\" cy=\"" + px(y) + "\" r=\"" + px(r) + "\"" + style + "/>";
        case Marker::square:
            return "<rect x=\"" + px(x - r) + "\" y=\"" + px(y - r) + "\" width=\"" + px(2 * r) +
                   "\" height=\"" + px(2 * r) + "\"" + style + "/>";
        case Marker::triangle:
            return "<path d=\"M" + px(x) + " " + px(y - r * 1.2) + "L" + px(x + r * 1.1) + " " +
                   px(y + r * 0.8) + "L" + px(x - r * 1.1) + " " + px(y + r * 0.8) + "Z\"" + style + "/>";
        case Marker::diamond:
            return "<path d=\"M" + px(x) + " " + px(y - r * 1.3) + "L" + px(x + r * 1.3) + " " + px(y) + "L" +
                   px(x) + " " + px(y + r * 1.3) + "L" + px(x - r * 1.3) + " " + px(y) + "Z\"" + style + "/>";
        case Marker::cross:
            return "<path d=\"M" + px(x - r) + " " + px(y - r) + "L" + px(x + r) + " " + px(y + r) + "M" +
                   px(x - r) + " " + px(y + r) + "L" + px(x + r) + " " + px(y - r) +
                   "\" fill=\"none\" stroke=\"" + color + "\" stroke-width=\"2\"/>";
    }
    return {};
}

}  // namespace

std::string escape(std::string_view text) {
    const std::string plain = escape_control_chars(text);
    // Labels seldom hold a character XML must escape: those are copied whole.
    if (plain.find_first_of("&<>\"'") == std::string::npos) return plain;
    std::string out;
    out.reserve(plain.size() + 16);
    for (char c : plain) switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    return out;
}

Scale nice_scale(double lo, double hi, int target) {
    Scale s;
    if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
    if (hi < lo) std::swap(lo, hi);
    if (hi - lo < 1e-12 * std::max(1.0, std::fabs(hi))) {
        // One value: a range around it (or 0..1 for zero).
        const double pad = hi == 0 ? 1 : std::fabs(hi) * 0.5;
        lo -= lo == 0 ? 0 : pad;
        hi += pad;
    }
    target = std::max(target, 2);
    const double raw = (hi - lo) / target;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = magnitude * 10;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * magnitude * (1 + 1e-9)) {
            step = m * magnitude;
            break;
        }
    s.step = step;
    s.min = std::floor(lo / step + 1e-9) * step;
    s.max = std::ceil(hi / step - 1e-9) * step;
    for (long i = 0;; ++i) {
        const double v = s.min + static_cast<double>(i) * step;
        if (v > s.max + step * 1e-6) break;
        s.ticks.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
    }
    return s;
}

std::string tick_label(double value, double step) {
    int decimals = 0;
    while (decimals < 6 &&
           std::fabs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals))) > 1e-6)
        ++decimals;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    std::string s = buf;
    // Thousands separators on the integer part ("12,500").
    const std::size_t start = s[0] == '-' ? 1 : 0;
    std::size_t end = s.find('.');
    if (end == std::string::npos) end = s.size();
    for (std::size_t i = end; i > start + 3; i -= 3) s.insert(i - 3, ",");
    return s;
}

std::string render(const Chart& c) {
    const double left = 92, right = 28, top = 48, bottom = 96;
    const double w = c.width, h = c.height;
    const double pw = w - left - right, ph = h - top - bottom;
    double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
    for (const auto& s : c.series)
        for (const auto& p : s.points) {
            xlo = std::min(xlo, p.x), xhi = std::max(xhi, p.x);
            ylo = std::min(ylo, p.y), yhi = std::max(yhi, p.y);
        }
    for (const auto& m : c.markers) xlo = std::min(xlo, m.x), xhi = std::max(xhi, m.x);
    if (!std::isfinite(xlo)) xlo = 0, xhi = 1, ylo = 0, yhi = 1;
    if (c.x_from_zero) xlo = std::min(xlo, 0.0);
    if (c.y_from_zero) ylo = std::min(ylo, 0.0);
    const Scale xs = nice_scale(xlo, xhi, 10), ys = nice_scale(ylo, yhi, 8);
    auto X = [&](double v) { return left + (v - xs.min) / (xs.max - xs.min) * pw; };
    auto Y = [&](double v) { return top + ph - (v - ys.min) / (ys.max - ys.min) * ph; };

    std::string o;
    o += "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" + escape(c.id) +
         "\" class=\"chart\" viewBox=\"0 0 " + px(w) + " " + px(h) + "\" width=\"" + px(w) + "\" height=\"" +
         px(h) + "\" role=\"img\" aria-labelledby=\"" + escape(c.id) + "-title " + escape(c.id) +
         "-desc\" font-family=\"DejaVu Sans, Liberation Sans, Arial, sans-serif\" font-size=\"13\">\n";
    o += "<title id=\"" + escape(c.id) + "-title\">" + escape(c.title) + "</title>\n";
    o += "<desc id=\"" + escape(c.id) + "-desc\">" + escape(c.desc) + "</desc>\n";
    o += "<rect x=\"0\" y=\"0\" width=\"" + px(w) + "\" height=\"" + px(h) + "\" fill=\"#ffffff\"/>\n";
    o += "<text x=\"" + px(left) + "\" y=\"24\" font-size=\"16\" font-weight=\"bold\" fill=\"#111111\">" +
         escape(c.title) + "</text>\n";
    // Grid and ticks.
    o += "<g class=\"grid\" stroke=\"#dddddd\" stroke-width=\"1\">\n";
    for (double t : xs.ticks)
        o += "<line x1=\"" + px(X(t)) + "\" y1=\"" + px(top) + "\" x2=\"" + px(X(t)) + "\" y2=\"" +
             px(top + ph) + "\"/>\n";
    for (double t : ys.ticks)
        o += "<line x1=\"" + px(left) + "\" y1=\"" + px(Y(t)) + "\" x2=\"" + px(left + pw) + "\" y2=\"" +
             px(Y(t)) + "\"/>\n";
    o += "</g>\n";
    o += "<g class=\"axes\" stroke=\"#333333\" stroke-width=\"1.2\" fill=\"none\"><path d=\"M" + px(left) +
         " " + px(top) + "V" + px(top + ph) + "H" + px(left + pw) + "\"/></g>\n";
    o += "<g class=\"x-ticks\" fill=\"#333333\" text-anchor=\"middle\">\n";
    for (double t : xs.ticks)
        o += "<text x=\"" + px(X(t)) + "\" y=\"" + px(top + ph + 18) + "\">" +
             escape(tick_label(t, xs.step)) + "</text>\n";
    o += "</g>\n<g class=\"y-ticks\" fill=\"#333333\" text-anchor=\"end\">\n";
    for (double t : ys.ticks)
        o += "<text x=\"" + px(left - 8) + "\" y=\"" + px(Y(t) + 4) + "\">" + escape(tick_label(t, ys.step)) +
             "</text>\n";
    o += "</g>\n";
    o += "<text class=\"x-label\" x=\"" + px(left + pw / 2) + "\" y=\"" + px(top + ph + 42) +
         "\" text-anchor=\"middle\" fill=\"#111111\">" + escape(c.x_label) + "</text>\n";
    o += "<text class=\"y-label\" transform=\"translate(20 " + px(top + ph / 2) +
         ") rotate(-90)\" text-anchor=\"middle\" fill=\"#111111\">" + escape(c.y_label) + "</text>\n";
    // Vertical markers (crossovers, the request's own value).
    for (const auto& m : c.markers) {
        o += "<g class=\"marker\"><line x1=\"" + px(X(m.x)) + "\" y1=\"" + px(top) + "\" x2=\"" + px(X(m.x)) +
             "\" y2=\"" + px(top + ph) + "\" stroke=\"#555555\" stroke-width=\"1.2\" stroke-dasharray=\"" +
             escape(m.dash) + "\"/>";
        const bool near_right = X(m.x) > left + pw * 0.7;
        o += "<text x=\"" + px(X(m.x) + (near_right ? -4 : 4)) + "\" y=\"" +
             px(top + 14 + 16 * static_cast<double>(&m - c.markers.data())) + "\" text-anchor=\"" +
             (near_right ? "end" : "start") + "\" font-size=\"12\" fill=\"#222222\">" + escape(m.text) +
             "</text></g>\n";
    }
    // Series: lines first, then markers on top.
    for (const auto& s : c.series) {
        if (!s.line || s.points.size() < 2) continue;
        o += "<path class=\"series-line\" fill=\"none\" stroke=\"" + s.color + "\" stroke-width=\"2.2\"" +
             (s.dash.empty() ? std::string() : " stroke-dasharray=\"" + escape(s.dash) + "\"") + " d=\"";
        for (std::size_t i = 0; i < s.points.size(); ++i)
            o += (i ? "L" : "M") + px(X(s.points[i].x)) + " " + px(Y(s.points[i].y));
        o += "\"/>\n";
    }
    for (const auto& s : c.series) {
        o += "<g class=\"series\" data-name=\"" + escape(s.name) + "\">";
        for (const auto& p : s.points) o += marker_svg(s.marker, X(p.x), Y(p.y), s.size, s.color, s.filled);
        o += "</g>\n";
    }
    // Point labels, nudged apart vertically so that close points stay readable.
    std::vector<std::pair<double, const PointLabel*>> placed;
    for (const auto& l : c.labels) placed.emplace_back(Y(l.at.y), &l);
    std::stable_sort(placed.begin(), placed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    // Each label wants to sit just above its point; pushed down past its neighbour above, then, where that
    // runs out of the plot, pushed back up from the bottom: 15 px apart and inside the plot.
    std::vector<double> at(placed.size());
    for (std::size_t i = 0; i < placed.size(); ++i)
        at[i] = std::max(placed[i].first - 8, i ? at[i - 1] + 15 : top + 12);
    for (std::size_t i = placed.size(); i-- > 0;)
        at[i] = std::min(at[i], i + 1 < placed.size() ? at[i + 1] - 15 : top + ph - 6);
    for (std::size_t i = 0; i < placed.size(); ++i) {
        const PointLabel* l = placed[i].second;
        const double y = at[i];
        const double x = X(l->at.x);
        const bool near_right = x > left + pw * 0.6;
        const double tx = x + (near_right ? -10 : 10);
        o += "<g class=\"point-label\"><line x1=\"" + px(x) + "\" y1=\"" + px(Y(l->at.y)) + "\" x2=\"" +
             px(tx) + "\" y2=\"" + px(y - 4) + "\" stroke=\"#444444\" stroke-width=\"0.8\"/><text x=\"" +
             px(tx + (near_right ? -2 : 2)) + "\" y=\"" + px(y) + "\" text-anchor=\"" +
             (near_right ? "end" : "start") +
             "\" font-size=\"12\" font-weight=\"bold\" fill=\"#111111\" paint-order=\"stroke\" "
             "stroke=\"#ffffff\" " +
             "stroke-width=\"3\">" + escape(l->text) + "</text></g>\n";
    }
    // Legend, under the x-axis label: a sample of each series' line and marker.
    double lx = left;
    const double ly = top + ph + 70;
    o += "<g class=\"legend\">\n";
    for (const auto& s : c.series) {
        if (s.line)
            o += "<line x1=\"" + px(lx) + "\" y1=\"" + px(ly) + "\" x2=\"" + px(lx + 28) + "\" y2=\"" +
                 px(ly) + "\" stroke=\"" + s.color + "\" stroke-width=\"2.2\"" +
                 (s.dash.empty() ? std::string() : " stroke-dasharray=\"" + escape(s.dash) + "\"") + "/>";
        o += marker_svg(s.marker, lx + 14, ly, s.size, s.color, s.filled);
        o += "<text x=\"" + px(lx + 36) + "\" y=\"" + px(ly + 4) + "\" fill=\"#111111\">" + escape(s.name) +
             "</text>\n";
        lx += 36 + 7.2 * static_cast<double>(s.name.size()) + 24;
    }
    o += "</g>\n</svg>\n";
    return o;
}

}  // namespace gpuadvise::io::svg
