// bench.html: per device, where each call stands against the device's copy bandwidth (GB/s over
// the bytes a call moves, the copy probe as the roof; the contractions' GFLOP/s over their
// arithmetic intensity under the bandwidth's slope), and per op, speed beside accuracy (each
// row's fraction of copy, or its GFLOP/s, against its parity margin).
#include "reports/bench_html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include "reports/bench_markdown.hpp"
#include "reports/markdown_sections.hpp"
#include "reports/xml_text.hpp"

namespace gp {

namespace {

constexpr std::string_view kBenchStyle = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;max-width:1400px}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
code{font:12px ui-monospace,monospace;background:#f6f6f6;padding:0 2px}
svg text{font:11px system-ui,sans-serif}svg .ax{font-size:9px}svg .lg{font-size:10px}
.pics{display:flex;flex-wrap:wrap;gap:1.5em}
)";

constexpr int kWidth = 420, kHeight = 270, kLeft = 52, kRight = 12, kTop = 34, kBottom = 34;

// A log-log plane over the data's decades.
struct LogPlane {
  double x_lo, x_hi, y_lo, y_hi;  // log10 bounds
  double x(double v) const { return kLeft + (kWidth - kLeft - kRight) * (std::log10(v) - x_lo) / (x_hi - x_lo); }
  double y(double v) const { return kTop + (kHeight - kTop - kBottom) * (y_hi - std::log10(v)) / (y_hi - y_lo); }
};

LogPlane plane_of(const std::vector<std::pair<double, double>>& points, double extra_y) {
  double xl = 1e300, xh = -1e300, yl = 1e300, yh = -1e300;
  for (const auto& [x, y] : points) {
    xl = std::min(xl, x), xh = std::max(xh, x), yl = std::min(yl, y), yh = std::max(yh, y);
  }
  if (extra_y > 0) yl = std::min(yl, extra_y), yh = std::max(yh, extra_y);
  return {std::floor(std::log10(xl)), std::ceil(std::log10(xh) + 1e-9), std::floor(std::log10(yl)),
          std::ceil(std::log10(yh) + 1e-9)};
}

// The picture's frame: its title, the decades of x, and of y where y is logarithmic too.
void frame(std::string& out, const LogPlane& p, const std::string& title, const std::string& x_name,
           const std::string& y_name, bool log_y = true) {
  auto o = std::back_inserter(out);
  fmt::format_to(o, "<svg width=\"{}\" height=\"{}\" role=\"img\"><text x=\"4\" y=\"13\">{}</text>\n", kWidth, kHeight,
                 xml_escape(title));
  for (int d = static_cast<int>(p.x_lo); d <= static_cast<int>(p.x_hi); ++d)
    fmt::format_to(o,
                   "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#eee\"/>"
                   "<text x=\"{0:.1f}\" y=\"{3}\" class=\"ax\" text-anchor=\"middle\">1e{4}</text>\n",
                   p.x(std::pow(10.0, d)), kTop, kHeight - kBottom, kHeight - kBottom + 11, d);
  for (int d = static_cast<int>(p.y_lo); log_y && d <= static_cast<int>(p.y_hi); ++d)
    fmt::format_to(o,
                   "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#eee\"/>"
                   "<text x=\"{3}\" y=\"{2:.1f}\" class=\"ax\" text-anchor=\"end\">1e{4}</text>\n",
                   kLeft, kWidth - kRight, p.y(std::pow(10.0, d)), kLeft - 3, d);
  fmt::format_to(o, "<text x=\"{}\" y=\"{}\" class=\"lg\" text-anchor=\"middle\">{}</text>", (kLeft + kWidth) / 2,
                 kHeight - 4, xml_escape(x_name));
  fmt::format_to(o, "<text x=\"4\" y=\"{}\" class=\"lg\">{}</text>\n", kTop - 6, xml_escape(y_name));
}

std::string dot(double x, double y, bool backward, const std::string& tip) {
  return fmt::format(
      "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\" fill-opacity=\"0.7\"><title>{}</title>"
      "</circle>\n",
      x, y, backward ? "#c05000" : "#1060c0", xml_escape(tip));
}

// A device limit across the picture at height `value`: dashed, its figure in the tooltip.
void limit_line(std::string& out, const LogPlane& p, double value, const char* colour, const std::string& title) {
  fmt::format_to(std::back_inserter(out),
                 "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-dasharray=\"4 3\">"
                 "<title>{}</title></line>\n",
                 kLeft, kWidth - kRight, p.y(value), p.y(value), colour, xml_escape(title));
}

std::string tip_of(const BenchReport& r, const BenchRow& row) {
  const CallSpeed s = row.speed();
  std::string tip = fmt::format("{} {}: {}, {} GB/s", row.case_id, direction_name(row.direction),
                                duration_text(s.seconds), md::g3(s.gb_per_s()));
  if (row.flops > 0) tip += fmt::format(", {} GFLOP/s", md::g3(s.gflop_per_s()));
  if (const double f = r.copy_fraction(row); f > 0) tip += fmt::format(", {:.2f} of copy", f);
  if (const double f = r.roofline_fraction(row); f > 0) tip += fmt::format(", {:.2f} of the roofline", f);
  if (row.accuracy)
    tip += fmt::format(", margin {}, {} ULP", md::g3(row.accuracy->margin), md::g3(row.accuracy->sensitivity_ulp));
  return tip;
}

bool timed(const BenchRow& r) { return r.outcome == BenchOutcome::timed && r.speed().measured(); }
// A call the device's limits bound: not a model's graph, a training step or a creation.
bool one_call(const BenchRow& r) { return timed(r) && r.subject == BenchSubject::primitive; }

// Bandwidth-bound calls: GB/s over the bytes a call moves; the copy probe of each dtype a line.
std::string bandwidth_svg(const BenchReport& r, const std::string& device) {
  std::vector<std::pair<double, double>> pts;
  double roof = 0;
  for (const BenchRow& row : r.rows)
    if (row.device == device && one_call(row) && row.flops == 0 && row.bytes > 0)
      pts.emplace_back(static_cast<double>(row.bytes), row.speed().gb_per_s());
  for (const DeviceLimit& l : r.limits)
    if (l.device == device) roof = std::max(roof, l.copy_gb_per_s());
  if (pts.empty()) return "";
  const LogPlane p = plane_of(pts, roof);
  std::string out;
  frame(out, p, device + ": bandwidth-bound calls", "bytes per call", "GB/s");
  for (const DeviceLimit& l : r.limits)
    if (l.device == device && l.copy_gb_per_s() > 0)
      limit_line(out, p, l.copy_gb_per_s(), "#090", fmt::format("copy {} {} GB/s", l.dtype, md::g3(l.copy_gb_per_s())));
  for (const BenchRow& row : r.rows)
    if (row.device == device && one_call(row) && row.flops == 0 && row.bytes > 0)
      out += dot(p.x(static_cast<double>(row.bytes)), p.y(row.speed().gb_per_s()), row.direction == Direction::backward,
                 tip_of(r, row));
  return out + "</svg>\n";
}

// Contractions: GFLOP/s over operations per byte, under the roofline: the copy bandwidth's slope
// and the arithmetic probe's ceiling.
std::string contraction_svg(const BenchReport& r, const std::string& device) {
  std::vector<std::pair<double, double>> pts;
  double peak = 0;
  for (const DeviceLimit& l : r.limits)
    if (l.device == device) peak = std::max(peak, l.arithmetic_gflop_per_s());
  for (const BenchRow& row : r.rows)
    if (row.device == device && one_call(row) && row.flops > 0 && row.bytes > 0)
      pts.emplace_back(static_cast<double>(row.flops) / static_cast<double>(row.bytes), row.speed().gflop_per_s());
  if (pts.empty()) return "";
  const LogPlane p = plane_of(pts, peak);
  std::string out;
  frame(out, p, device + ": contractions", "operations per byte", "GFLOP/s");
  for (const DeviceLimit& l : r.limits) {
    if (l.device != device || l.copy_gb_per_s() <= 0) continue;
    // GFLOP/s = GB/s x (flop / byte): a line of slope 1 in the log-log plane, clipped to it.
    const double x0 = std::pow(10.0, p.x_lo), x1 = std::pow(10.0, p.x_hi);
    const double y0 = std::clamp(l.copy_gb_per_s() * x0, std::pow(10.0, p.y_lo), std::pow(10.0, p.y_hi));
    const double y1 = std::clamp(l.copy_gb_per_s() * x1, std::pow(10.0, p.y_lo), std::pow(10.0, p.y_hi));
    fmt::format_to(std::back_inserter(out),
                   "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#090\" "
                   "stroke-dasharray=\"4 3\"><title>copy {} x operations per byte</title></line>\n",
                   p.x(y0 / l.copy_gb_per_s()), p.x(y1 / l.copy_gb_per_s()), p.y(y0), p.y(y1), l.dtype);
    if (l.arithmetic_gflop_per_s() > 0)
      limit_line(out, p, l.arithmetic_gflop_per_s(), "#900",
                 fmt::format("arithmetic {} {} GFLOP/s", l.dtype, md::g3(l.arithmetic_gflop_per_s())));
  }
  for (const BenchRow& row : r.rows)
    if (row.device == device && one_call(row) && row.flops > 0 && row.bytes > 0)
      out += dot(p.x(static_cast<double>(row.flops) / static_cast<double>(row.bytes)), p.y(row.speed().gflop_per_s()),
                 row.direction == Direction::backward, tip_of(r, row));
  return out + "</svg>\n";
}

// Per op: each row's speed (GB/s, every device) against its margin.
std::string accuracy_svgs(const BenchReport& r) {
  std::map<std::string, std::vector<const BenchRow*>> by_op;
  for (const BenchRow& row : r.rows)
    if (timed(row) && row.accuracy && row.bytes > 0) by_op[row.op].push_back(&row);
  std::string out;
  for (const auto& [op, rows] : by_op) {
    std::vector<std::pair<double, double>> pts;
    for (const BenchRow* row : rows) pts.emplace_back(row->speed().gb_per_s(), 1);
    LogPlane p = plane_of(pts, 0);
    p.y_lo = 0, p.y_hi = 1;  // the margin's axis is linear, 0 to 1 (above 1: FAIL, drawn at the top)
    auto y = [](double m) { return kTop + (kHeight - kTop - kBottom) * (1 - std::clamp(m, 0.0, 1.0)); };
    frame(out, p, op + ": speed and accuracy", "GB/s", "margin (error / bound)", false);
    fmt::format_to(std::back_inserter(out),
                   "<text x=\"{0}\" y=\"{1}\" class=\"ax\" text-anchor=\"end\">1</text><text x=\"{0}\" y=\"{2}\" "
                   "class=\"ax\" text-anchor=\"end\">0</text>\n",
                   kLeft - 3, kTop + 3, kHeight - kBottom);
    for (const BenchRow* row : rows)
      out += dot(p.x(row->speed().gb_per_s()), y(row->accuracy->margin), row->direction == Direction::backward,
                 row->device + " " + tip_of(r, *row));
    out += "</svg>\n";
  }
  return out;
}

}  // namespace

std::string bench_to_html(const BenchReport& report) {
  const RunMetadata& m = report.meta;
  std::string out = fmt::format(
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gradparity bench</title>"
      "<style>{}</style></head><body>\n<h1>gradparity bench</h1>\n<p>gradparity {} ({}), started {}, {:.1f} s; "
      "<code>{}</code>; {} repetitions of at least {} each. Blue: forward, orange: backward; hover a point for its "
      "row. Dashed lines: green the device's copy bandwidth (the catalog's reshape of one long tensor), red its "
      "arithmetic rate (the backend's own multiply-add chains): the roofline of the contractions.</p>\n",
      kBenchStyle, xml_escape(m.version), xml_escape(m.build_type), xml_escape(m.started_at), m.wall_seconds,
      xml_escape(m.command_line), report.repetitions, duration_text(report.min_time));
  for (const DeviceSummary& d : m.devices) {
    if (!d.available) continue;
    const std::string pics = bandwidth_svg(report, d.id) + contraction_svg(report, d.id);
    if (pics.empty()) continue;
    out += fmt::format("<h2><code>{}</code> {}</h2>\n<div class=\"pics\">{}</div>\n", xml_escape(d.id),
                       xml_escape(d.name), pics);
  }
  if (const std::string acc = accuracy_svgs(report); !acc.empty())
    out += fmt::format(
        "<h2>Speed and accuracy per op</h2>\n<p>Accuracy from <code>{}</code>.</p>\n<div "
        "class=\"pics\">{}</div>\n",
        xml_escape(report.parity_source), acc);
  return out + "</body></html>\n";
}

}  // namespace gp
