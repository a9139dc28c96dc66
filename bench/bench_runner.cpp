#include "bench/bench_runner.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "bench/device_bench.hpp"
#include "core/op_work.hpp"
#include "harness/check/open_device.hpp"
#include "harness/training/training_loop.hpp"

namespace gp {

namespace {

bool has_gradient(const Case& c) {
  for (std::size_t k = 0; k < c.call.input_shapes.size(); ++k)
    if (input_is_differentiable(c.decl.op, static_cast<int>(k))) return true;
  return false;
}

}  // namespace

std::vector<BenchRow> bench_rows_of(const Case& c, const std::string& device) {
  std::vector<BenchRow> rows;
  for (Direction d : {Direction::forward, Direction::backward}) {
    if (d == Direction::backward && !has_gradient(c)) continue;  // forward only (the optimizer steps)
    BenchRow r;
    r.case_id = c.id;
    r.op = std::string(op_name(c.decl.op));
    r.dtype = std::string(dtype_name(c.dtype));
    r.device = device;
    r.direction = d;
    const CallWork w = d == Direction::forward ? forward_work(c.call) : backward_work(c.call);
    r.bytes = w.bytes;
    r.flops = w.flops;
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<BenchRow> bench_rows_of(const CompositeSubject& s, const std::string& device) {
  const bool training = s.kind() == SubjectKind::training;
  std::vector<BenchRow> rows;
  for (Direction d : {Direction::forward, Direction::backward}) {
    if (training && d == Direction::forward) continue;  // one row: the step
    BenchRow r;
    r.case_id = s.id();
    r.op = std::string(s.op_name());
    r.dtype = std::string(dtype_name(s.dtype()));
    r.device = device;
    r.direction = d;
    r.subject = training ? BenchSubject::training : BenchSubject::model;
    const CallWork w =
        training ? training_step_work(s.composite()) : graph_work(s.composite(), d == Direction::backward);
    r.bytes = w.bytes;
    r.flops = w.flops;
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<BenchRow> bench_rows_of(const CreationSize& size, const std::string& device) {
  BenchRow r;
  r.case_id = size.id();
  r.op = "creation";
  r.dtype = std::string(dtype_name(size.dtype));
  r.device = device;
  r.subject = BenchSubject::creation;
  r.bytes = size.elements * static_cast<std::int64_t>(dtype_size(size.dtype));
  return {r};
}

std::vector<BenchRow> bench_rows_of(const BenchItems& items, const std::string& device) {
  std::vector<BenchRow> rows;
  auto add = [&rows](std::vector<BenchRow> more) {
    for (BenchRow& r : more) rows.push_back(std::move(r));
  };
  for (const CreationSize& s : items.creations) add(bench_rows_of(s, device));
  for (const Case* c : items.cases) add(bench_rows_of(*c, device));
  for (const CompositeSubject* s : items.composites) add(bench_rows_of(*s, device));
  return rows;
}

std::int64_t calls_for(double seconds_per_call, double min_time, std::int64_t max_calls) {
  if (!(seconds_per_call > 0)) return max_calls;
  const double n = std::ceil(min_time / seconds_per_call);
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::min(n, 1e18)), 1, max_calls);
}

Case copy_probe_case(DType dtype, const DeviceInfo& device, std::int64_t most_elements) {
  const auto size = static_cast<std::int64_t>(dtype_size(dtype));
  std::int64_t bytes = std::min(std::int64_t{1} << 28, most_elements * size);
  if (device.max_buffer_bytes > 0) bytes = std::min(bytes, device.max_buffer_bytes);
  if (device.memory_bytes > 0) bytes = std::min(bytes, device.memory_bytes / 8);
  std::int64_t n = 1;
  while (2 * n * size <= bytes) n *= 2;
  Case c;
  c.decl.op = OpKind::reshape;
  c.decl.attrs.shape = {n};
  c.decl.inputs.push_back({Shape{n}, Domain::range(-1, 1)});
  c.decl.variant = "copy";
  c.dtype = dtype;
  c.id = fmt::format("reshape(copy,shape={},dtype={})", n, dtype_name(dtype));
  c.call = make_call(OpKind::reshape, c.decl.attrs, dtype, {Shape{n}}, c.id);
  return c;
}

BenchMeasurement run_bench(const BenchItems& items, const std::vector<SelectedDevice>& devices,
                           const BenchOptions& opts) {
  BenchMeasurement all;
  for (const SelectedDevice& d : devices) {
    if (opts.stop && opts.stop->load()) break;
    OpenedDevice opened = open_device(d);
    BenchMeasurement m;
    if (!opened.backend) {
      m.rows = bench_rows_of(items, d.id);
      mark_rows(m.rows, 0, BenchOutcome::skipped, opened.reason);
    } else {
      m = bench_device(d, *opened.backend, items, opts);
    }
    for (BenchRow& r : m.rows) {
      if (opts.on_row) opts.on_row(r);
      all.rows.push_back(std::move(r));
    }
    for (DeviceLimit& l : m.limits) all.limits.push_back(std::move(l));
  }
  return all;
}

}  // namespace gp
