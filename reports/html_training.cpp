// parity.html's Training pictures: per training run x backend, the loss per step against the
// reference (top) and the device's distance from the reference inside the band ± the bound
// through the steps (bottom: the band is far narrower than the loss, so it gets its own scale).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "reports/html_parts.hpp"
#include "reports/markdown_sections.hpp"
#include "reports/training.hpp"
#include "reports/xml_text.hpp"

namespace gp::html {

namespace {

constexpr int kWidth = 320, kLeft = 56, kRight = 10, kPanel = 70;
constexpr int kTop[] = {28, 28 + kPanel + 26};  // the two panels' top edges
constexpr int kHeight = kTop[1] + kPanel + 22;

// Maps step k (from 0) and a value in [lo, hi] of panel p to picture coordinates.
struct Axes {
  std::size_t steps;
  double lo, hi;
  int panel;
  double x(std::size_t k) const {
    return kLeft + (kWidth - kLeft - kRight) * (steps > 1 ? double(k) / double(steps - 1) : 0.5);
  }
  double y(double v) const { return kTop[panel] + kPanel * (hi > lo ? (hi - v) / (hi - lo) : 0.5); }
};

std::string points(const Axes& a, const std::vector<double>& v) {
  std::string out;
  for (std::size_t k = 0; k < v.size(); ++k) out += fmt::format("{:.1f},{:.1f} ", a.x(k), a.y(v[k]));
  return out;
}

void axis_labels(std::string& out, const Axes& a, const std::string& what) {
  fmt::format_to(std::back_inserter(out),
                 "<text x=\"4\" y=\"{}\" class=\"lg\">{}</text><text x=\"{}\" y=\"{}\" class=\"ax\">{}</text>"
                 "<text x=\"{}\" y=\"{}\" class=\"ax\">{}</text>\n",
                 kTop[a.panel] - 4, what, kLeft - 3, kTop[a.panel] + 8, md::g3(a.hi), kLeft - 3, kTop[a.panel] + kPanel,
                 md::g3(a.lo));
}

std::string curve_svg(const TrainingRow& r) {
  const TrainingSteps& s = r.curve;
  const std::size_t n = s.loss.size();
  std::vector<double> diff(n), upper(n), lower(n);
  double span = 0;
  for (std::size_t k = 0; k < n; ++k) {
    diff[k] = s.loss[k] - s.reference[k];
    upper[k] = s.bound[k];
    lower[k] = -s.bound[k];
    span = std::max({span, std::fabs(diff[k]), s.bound[k]});
  }
  const auto [lo, hi] = std::minmax_element(s.reference.begin(), s.reference.end());
  const Axes loss{n, std::min(*lo, *std::min_element(s.loss.begin(), s.loss.end())),
                  std::max(*hi, *std::max_element(s.loss.begin(), s.loss.end())), 0};
  const Axes band{n, -1.1 * span, 1.1 * span, 1};
  std::string out;
  auto o = std::back_inserter(out);
  fmt::format_to(o,
                 "<svg class=\"train\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                 "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"loss of {} on {} against the reference\">\n"
                 "<text x=\"4\" y=\"12\" class=\"hb\">{} {}: error ÷ bound ≤ {}</text>\n",
                 kWidth, kHeight, kWidth, kHeight, xml_escape(r.case_id), xml_escape(r.backend), xml_escape(r.backend),
                 dtype_name(r.dtype), md::g3(r.worst_ratio));
  axis_labels(out, loss, "loss: reference (line), device (dots)");
  fmt::format_to(o, "<polyline class=\"ref\" points=\"{}\" fill=\"none\" stroke=\"#999\"/>\n",
                 points(loss, s.reference));
  axis_labels(out, band, "device − reference, band ± bound");
  std::string polygon = points(band, upper);
  for (std::size_t k = n; k-- > 0;) polygon += fmt::format("{:.1f},{:.1f} ", band.x(k), band.y(lower[k]));
  fmt::format_to(o, "<polygon class=\"band\" points=\"{}\" fill=\"#cfe8cf\"/>\n", polygon);
  fmt::format_to(o, "<polyline points=\"{}\" fill=\"none\" stroke=\"#4a7fb5\"/>\n", points(band, diff));
  for (std::size_t k = 0; k < n; ++k) {
    const bool outside = !(std::fabs(diff[k]) <= s.bound[k]);
    const std::string tip = fmt::format("step {}: loss {:.9g}, reference {:.9g}, bound {}", k + 1, s.loss[k],
                                        s.reference[k], md::g3(s.bound[k]));
    for (const Axes* a : {&loss, &band})
      fmt::format_to(o, "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"><title>{}</title></circle>\n",
                     a->x(k), a->y(a == &loss ? s.loss[k] : diff[k]), outside ? "#d7191c" : "#4a7fb5", tip);
  }
  fmt::format_to(o,
                 "<text x=\"{}\" y=\"{}\" class=\"ax\">step 1</text><text x=\"{}\" y=\"{}\" class=\"ax\">{}</text>\n",
                 kLeft + 24, kHeight - 4, kWidth - kRight, kHeight - 4, n);
  out += "</svg>\n";
  return out;
}

}  // namespace

std::string training_svgs(const RunReport& report) {
  std::string out;
  std::string run;
  for (const TrainingRow& r : training_rows(report.checks)) {
    if (r.curve.loss.empty()) continue;
    if (r.case_id != run) {
      if (!run.empty()) out += "</div>\n";
      run = r.case_id;
      fmt::format_to(std::back_inserter(out), "<h3><code>{}</code></h3>\n<div class=\"hists\">\n", xml_escape(run));
    }
    out += curve_svg(r);
  }
  if (!run.empty()) out += "</div>\n";
  return out;
}

}  // namespace gp::html
