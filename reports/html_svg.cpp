// parity.html pictures: the op x (backend, dtype) heatmap of worst margins and the margin
// histograms, as inline SVG. They are rectangles and text on a fixed grid, which a plotting
// library would not make shorter; the page must load without network or scripts from elsewhere.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <tuple>

#include "reports/html_parts.hpp"
#include "reports/markdown_sections.hpp"
#include "reports/summary.hpp"
#include "reports/xml_text.hpp"

namespace gp::html {

namespace {

constexpr DType kDtypeOrder[] = {DType::f16, DType::bf16, DType::f32, DType::f64};

// Margins spread over decades; log10 from 1e-4 (0) to 1 (1) picks a colour from green through
// yellow to orange, so "close to failing" reads at a glance. Failures are red whatever the margin.
std::string margin_colour(double margin) {
  double t = margin <= 0 ? 0 : std::clamp((std::log10(margin) + 4.0) / 4.0, 0.0, 1.0);
  // hue 130 (green) -> 30 (orange)
  return fmt::format("hsl({:.0f},70%,{:.0f}%)", 130 - 100 * t, 72 - 20 * t);
}

struct Cell {
  VerdictCounts n;
  std::optional<double> worst;
};

}  // namespace

std::string heatmap_svg(const RunReport& report) {
  const std::vector<std::string> ops = md::ops_in_catalog_order(report.checks);
  const std::vector<std::string> backends = md::backends_in_order(report);
  std::map<std::tuple<std::string, std::string, DType>, Cell> cells;
  std::map<std::string, std::vector<DType>> dtypes_of;  // backend -> dtypes it has checks for
  for (const CheckResult& c : report.checks) {
    Cell& cell = cells[{md::op_of(c), c.backend, c.dtype}];
    cell.n.add(c);
    if (auto m = margin_of(c); m && (!cell.worst || *m > *cell.worst)) cell.worst = m;
    auto& d = dtypes_of[c.backend];
    if (std::find(d.begin(), d.end(), c.dtype) == d.end()) d.push_back(c.dtype);
  }
  std::vector<std::pair<std::string, DType>> columns;
  for (const std::string& b : backends)
    for (DType t : kDtypeOrder)
      if (auto& d = dtypes_of[b]; std::find(d.begin(), d.end(), t) != d.end()) columns.emplace_back(b, t);

  const int cw = 34, ch = 16, left = 170, top = 64;
  const int width = left + cw * static_cast<int>(columns.size()) + 10;
  const int height = top + ch * static_cast<int>(ops.size()) + 60;
  std::string out;
  auto o = std::back_inserter(out);
  fmt::format_to(o,
                 "<svg id=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                 "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"worst margin per op, backend and dtype\">\n",
                 width, height, width, height);
  // Column headers: the backend once over its dtypes.
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const int x = left + cw * static_cast<int>(i);
    if (i == 0 || columns[i].first != columns[i - 1].first)
      fmt::format_to(o,
                     "<text x=\"{}\" y=\"20\" class=\"hb\">{}</text><line x1=\"{}\" y1=\"26\" x2=\"{}\" y2=\"{}\" "
                     "class=\"sep\"/>\n",
                     x + 2, xml_escape(columns[i].first), x, x, top + ch * static_cast<int>(ops.size()));
    fmt::format_to(o, "<text x=\"{}\" y=\"{}\" class=\"hd\">{}</text>\n", x + cw / 2, top - 8,
                   dtype_name(columns[i].second));
  }
  for (std::size_t r = 0; r < ops.size(); ++r) {
    const int y = top + ch * static_cast<int>(r);
    fmt::format_to(o, "<a href=\"#op-{}\"><text x=\"{}\" y=\"{}\" class=\"op\">{}</text></a>\n", xml_escape(ops[r]),
                   left - 6, y + ch - 4, xml_escape(ops[r]));
    for (std::size_t i = 0; i < columns.size(); ++i) {
      auto it = cells.find({ops[r], columns[i].first, columns[i].second});
      if (it == cells.end()) continue;
      const Cell& cell = it->second;
      const VerdictCounts& n = cell.n;
      const bool bad = n[Verdict::fail] || n[Verdict::error];
      std::string fill = bad                      ? (n[Verdict::error] ? "#7a0010" : "#d7191c")
                         : cell.worst             ? margin_colour(*cell.worst)
                         : n[Verdict::mistrusted] ? "#f0d000"
                                                  : "#d0d0d0";  // only skips
      const int x = left + cw * static_cast<int>(i);
      fmt::format_to(o,
                     "<a href=\"#op-{}\"><rect class=\"cell\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">"
                     "<title>{} on {} {}: worst margin {}; {}</title></rect>",
                     xml_escape(ops[r]), x + 1, y + 1, cw - 2, ch - 2, fill, xml_escape(ops[r]),
                     xml_escape(columns[i].first), dtype_name(columns[i].second),
                     cell.worst ? md::g3(*cell.worst) : "—", xml_escape(summary_line(n)));
      if (bad)
        fmt::format_to(o, "<text x=\"{}\" y=\"{}\" class=\"x\">✕</text>", x + cw / 2, y + ch - 4);
      else if (n[Verdict::mistrusted])
        fmt::format_to(o, "<text x=\"{}\" y=\"{}\" class=\"m\">?</text>", x + cw / 2, y + ch - 4);
      out += "</a>\n";
    }
  }
  // Legend: the colour scale by decade, then the special colours.
  const int ly = top + ch * static_cast<int>(ops.size()) + 16;
  const double stops[] = {1e-4, 1e-3, 1e-2, 1e-1, 0.5, 1};
  for (std::size_t i = 0; i < std::size(stops); ++i) {
    const int x = 10 + 62 * static_cast<int>(i);
    fmt::format_to(o,
                   "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" "
                   "class=\"lg\">≤{}</text>\n",
                   x, ly, margin_colour(stops[i]), x + 18, ly + 10, md::g3(stops[i]));
  }
  const std::pair<const char*, const char*> special[] = {
      {"#d7191c", "FAIL ✕"}, {"#7a0010", "ERROR ✕"}, {"#f0d000", "MISTRUSTED ?"}, {"#d0d0d0", "all SKIP"}};
  for (std::size_t i = 0; i < std::size(special); ++i) {
    const int x = 10 + 100 * static_cast<int>(i);
    fmt::format_to(o,
                   "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" "
                   "class=\"lg\">{}</text>\n",
                   x, ly + 20, special[i].first, x + 18, ly + 30, special[i].second);
  }
  out += "</svg>\n";
  return out;
}

namespace {

// Bars per backend of how many checks fall in each bin of a value; the last bin is drawn red
// when `alarm_last` (failing margins).
struct Bins {
  std::vector<std::string> labels;  // "" for an unlabelled bin
  std::function<int(double)> bin_of;
  bool alarm_last = false;
  std::string what;  // "margins"
};

std::string histograms_svg(const RunReport& report, const Bins& bins,
                           const std::function<std::optional<double>(const CheckResult&)>& value) {
  const int n_bins = static_cast<int>(bins.labels.size());
  std::map<std::string, std::vector<int>> hist;
  for (const std::string& b : md::backends_in_order(report)) hist[b].assign(bins.labels.size(), 0);
  for (const CheckResult& c : report.checks)
    if (auto v = value(c)) ++hist[c.backend][static_cast<std::size_t>(std::clamp(bins.bin_of(*v), 0, n_bins - 1))];

  std::string out;
  auto o = std::back_inserter(out);
  const int bw = 14, plot_h = 120, w = 40 + bw * n_bins + 10, h = plot_h + 60;
  for (const std::string& b : md::backends_in_order(report)) {
    const auto& counts = hist[b];
    const int peak = std::max(1, *std::max_element(counts.begin(), counts.end()));
    int total = 0;
    for (int n : counts) total += n;
    if (total == 0) continue;
    fmt::format_to(o,
                   "<svg class=\"hist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                   "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{} on {}\">\n"
                   "<text x=\"4\" y=\"14\" class=\"hb\">{} ({} {})</text>\n",
                   w, h, w, h, bins.what, xml_escape(b), xml_escape(b), total, bins.what);
    for (int i = 0; i < n_bins; ++i) {
      const std::string& label = bins.labels[static_cast<std::size_t>(i)];
      const int bar = counts[static_cast<std::size_t>(i)] * plot_h / peak;
      const int x = 40 + bw * i;
      fmt::format_to(
          o, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}: {} checks</title></rect>\n", x,
          24 + plot_h - bar, bw - 2, bar, bins.alarm_last && i == n_bins - 1 ? "#d7191c" : "#4a7fb5",
          label.empty() ? "between the labels" : label, counts[static_cast<std::size_t>(i)]);
      if (!label.empty())
        fmt::format_to(o, "<text x=\"{}\" y=\"{}\" class=\"ax\" transform=\"rotate(-45 {} {})\">{}</text>\n",
                       x + bw / 2, 24 + plot_h + 12, x + bw / 2, 24 + plot_h + 12, label);
    }
    fmt::format_to(o, "<text x=\"36\" y=\"30\" class=\"ax\" text-anchor=\"end\">{}</text>\n</svg>\n", peak);
  }
  return out;
}

}  // namespace

std::string margin_histograms_svg(const RunReport& report) {
  // Bins: margin 0, then half-decades from 1e-6 up to 1, then > 1 (failing).
  Bins bins{{"0", "1e-6", "", "1e-5", "", "1e-4", "", "1e-3", "", "0.01", "", "0.1", "", "", ">1"},
            [](double m) {
              if (m <= 0) return 0;
              if (m > 1) return 14;
              return 1 + std::clamp(static_cast<int>(std::floor((std::log10(m) + 6.0) * 2.0)), 0, 12);
            },
            true,
            "margins"};
  return histograms_svg(report, bins, margin_of);
}

std::string sensitivity_histograms_svg(const RunReport& report) {
  // Bins of a power of two: 0, then (2^(k-1), 2^k] ULP for k = -1 .. 10, then more.
  Bins bins{{"0", "0.5", "1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1024", ">1024"},
            [](double s) {
              if (s <= 0) return 0;
              return std::clamp(static_cast<int>(std::ceil(std::log2(s))) + 2, 1, 13);
            },
            false,
            "sensitivities"};
  return histograms_svg(report, bins, sensitivity_of);
}

}  // namespace gp::html
