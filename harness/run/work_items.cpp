#include "harness/run/work_items.hpp"

#include <algorithm>
#include <cstdint>

#include "harness/large/line_statistics.hpp"

namespace gp {

std::vector<WorkItem> work_items(const std::vector<const Subject*>& subjects, std::size_t devices,
                                 std::size_t workers) {
  std::vector<std::size_t> models;
  for (std::size_t i = 0; i < subjects.size(); ++i)
    if (subjects[i]->kind() != SubjectKind::primitive) models.push_back(i);
  std::vector<WorkItem> items;
  const std::size_t group = std::max<std::size_t>(workers, 1);
  for (std::size_t first = 0; first < models.size(); first += group) {
    const std::size_t last = std::min(first + group, models.size());
    if (devices <= 1) {
      for (std::size_t m = first; m < last; ++m) items.push_back({models[m], WorkItem::kEveryDevice});
      continue;
    }
    for (std::size_t d = 0; d < devices; ++d)
      for (std::size_t m = first; m < last; ++m) items.push_back({models[m], d});
  }
  std::vector<std::size_t> primitives;
  for (std::size_t i = 0; i < subjects.size(); ++i)
    if (subjects[i]->kind() == SubjectKind::primitive) primitives.push_back(i);
  auto serial = [&](std::size_t i) {
    const Case* c = subjects[i]->large_case();
    return c ? serial_line_elements(*c) : std::int64_t{0};
  };
  std::stable_sort(primitives.begin(), primitives.end(),
                   [&](std::size_t a, std::size_t b) { return serial(a) > serial(b); });
  for (std::size_t i : primitives) items.push_back({i, WorkItem::kEveryDevice});
  return items;
}

}  // namespace gp
