// The oracle check's comparison and its aggregation (sub-problems: oracle_sample.cpp).
#include "harness/audit/oracle_check.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "backends/registry.hpp"

namespace gp {

namespace {

// The inputs behind element i of an elementwise op's output (reported with the worst element).
std::vector<double> inputs_at(const Case& c, const ReferenceData& d, std::int64_t i) {
  const OpFamily f = op_family(c.decl.op);
  if (i < 0 || (f != OpFamily::unary && f != OpFamily::binary)) return {};  // -1: no element compared
  if (f == OpFamily::binary) {
    BroadcastPlan p = broadcast_plan(c.call.input_shapes[0], c.call.input_shapes[1]);
    if (i >= p.numel) return {};
    return {d.inputs[0].get(p.a_index(i)), d.inputs[1].get(p.b_index(i))};
  }
  std::vector<double> v;
  for (const auto& t : d.inputs)
    if (i < t.numel()) v.push_back(t.get(i));
  return v;
}

}  // namespace

std::string oracle_op_label(const Case& c) {
  std::string attrs = attrs_to_string(c.decl.op, c.decl.attrs), kept;
  std::stringstream ss(attrs);
  for (std::string part; std::getline(ss, part, ',');) {
    const std::string key = part.substr(0, part.find('='));
    if (key == "axis" || key == "keepdim" || key == "shape" || key == "start" || key == "stop" || key == "step")
      continue;
    kept += (kept.empty() ? "" : ",") + part;
  }
  return std::string(op_name(c.decl.op)) + (kept.empty() ? "" : "(" + kept + ")");
}

double OracleCaseResult::worst_ratio() const {
  if (!error.empty()) return std::numeric_limits<double>::infinity();
  double w = 0;
  for (const auto& d : directions) w = std::max(w, d.worst_ratio);
  return w;
}

std::vector<DeviceMath> devices_or_every_provider(std::vector<DeviceMath> devices) {
  if (devices.empty())
    for (const auto& p : backend_providers())
      if (p.math) devices.push_back({p.math, false});
  return devices;
}

TightestBound::TightestBound(const Case& c, const ReferenceData& data, std::vector<DeviceMath> devices)
    : data_(data), devices_(devices_or_every_provider(std::move(devices))) {
  for (const DeviceMath& d : devices_) tolerances_.push_back(tolerance_for(c, *d.profile, d.flush));
}

double TightestBound::operator()(int input, std::size_t i) const {
  double b = std::numeric_limits<double>::infinity();
  for (std::size_t p = 0; p < devices_.size(); ++p) {
    const ref::Bounded& bd = data_.bounded(devices_[p].profile, devices_[p].flush);
    const ref::RefTensor& t = input < 0 ? bd.output : bd.grads[static_cast<std::size_t>(input)];
    b = std::min(b, tolerances_[p].bound(t.err[i], static_cast<double>(t.v[i])));
  }
  return b;
}

void compare_with_oracle(const std::function<double(std::size_t)>& bound, const ref::RefTensor& reference,
                         const ref::OracleTensor& oracle, const std::vector<std::int64_t>& map, OracleDirection& into) {
  for (std::size_t i = 0; i < oracle.hi.size() && i < map.size(); ++i) {
    if (map[i] < 0) continue;
    const auto full = static_cast<std::size_t>(map[i]);
    const long double ref = reference.v[full];
    const long double err = std::fabs(oracle.error_of(i, ref));
    const double b = bound(full);
    // Exact ops (bound 0) must match bit for bit; a NaN anywhere is a failure.
    double ratio = err == 0 ? 0.0 : (b > 0 ? static_cast<double>(err) / b : std::numeric_limits<double>::infinity());
    if (std::isnan(ratio) || std::isnan(static_cast<double>(ref)) != std::isnan(static_cast<double>(oracle.hi[i])))
      ratio = std::numeric_limits<double>::infinity();
    ++into.points;
    const long double o = std::fabs(oracle.hi[i]);
    if (o > 0) into.max_rel = std::max(into.max_rel, static_cast<double>(err / o));
    if (ratio > into.worst_ratio || into.worst_index < 0) {
      into.worst_ratio = ratio;
      into.worst_index = map[i];
      into.reference = static_cast<double>(ref);
      into.oracle = static_cast<double>(oracle.hi[i] + oracle.lo[i]);
      into.bound = b;
    }
  }
}

OracleCaseResult oracle_check_case(const Case& c, const ReferenceData& data, std::uint64_t seed,
                                   const OracleOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  OracleCaseResult r;
  r.case_id = c.id;
  r.op_label = oracle_op_label(c);
  const TightestBound tightest(c, data, opts.devices);
  OracleDirection forward;
  std::vector<OracleDirection> backward(data.grads.size());
  for (std::size_t k = 0; k < backward.size(); ++k) {
    backward[k].direction = Direction::backward;
    backward[k].input = static_cast<int>(k);
  }
  const std::vector<OracleSubProblem> problems = oracle_subproblems(c, data, opts, seed);
  if (opts.max_full > 0 && problems.size() == 1 && problems[0].call.input_shapes == c.call.input_shapes) {
    std::int64_t elements = 0;
    for (const auto& t : data.ref_inputs) elements += t.numel();
    if (elements > opts.max_full) {
      r.skipped = true;
      return r;
    }
  }
  for (const OracleSubProblem& p : problems) {
    const ref::OracleResult o = ref::oracle_evaluate(p.call, p.inputs, p.dout);
    compare_with_oracle([&](std::size_t i) { return tightest(-1, i); }, data.output, o.output, p.out_map, forward);
    for (std::size_t k = 0; k < backward.size(); ++k)
      if (!data.grads[k].v.empty() && k < o.grads.size())
        compare_with_oracle([&, k](std::size_t i) { return tightest(static_cast<int>(k), i); }, data.grads[k],
                            o.grads[k], p.grad_map[k], backward[k]);
  }
  r.directions.push_back(forward);
  for (auto& b : backward)
    if (b.points > 0) r.directions.push_back(b);
  for (auto& d : r.directions) {
    d.worst_inputs = inputs_at(c, data, d.worst_index);
    r.points += d.points;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::vector<OracleCaseResult> run_oracle(
    const std::vector<const Case*>& cases, std::uint64_t seed, const OracleOptions& opts, int jobs,
    const std::function<void(std::size_t, std::size_t, const OracleCaseResult&)>& progress) {
  std::vector<OracleCaseResult> out(cases.size());
  std::mutex lock;
  std::size_t next = 0, done = 0;
  auto worker = [&] {
    for (;;) {
      std::size_t i;
      {
        std::lock_guard<std::mutex> g(lock);
        if (next == cases.size()) return;
        i = next++;
      }
      OracleCaseResult r;
      try {
        r = oracle_check_case(*cases[i], prepare_reference(*cases[i], seed, opts.cache), seed, opts);
      } catch (const std::exception& e) {
        r.case_id = cases[i]->id;
        r.op_label = std::string(op_name(cases[i]->decl.op));
        r.error = e.what();
      }
      std::lock_guard<std::mutex> g(lock);
      out[i] = std::move(r);
      ++done;
      if (progress) progress(done, cases.size(), out[i]);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::max(jobs, 1); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  return out;
}

std::vector<OracleSummaryRow> summarize_oracle(const std::vector<OracleCaseResult>& results) {
  std::map<std::pair<std::string, std::string>, OracleSummaryRow> rows;
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& r : results) {
    for (const auto& d : r.directions) {
      auto key = std::make_pair(r.op_label, direction_label(d.direction, d.input));
      auto [it, inserted] = rows.try_emplace(key);
      if (inserted) order.push_back(key);
      OracleSummaryRow& row = it->second;
      row.op_label = key.first;
      row.direction = key.second;
      ++row.cases;
      row.points += d.points;
      row.max_rel = std::max(row.max_rel, d.max_rel);
      if (row.worst_case.empty() || d.worst_ratio > row.worst_ratio) {
        row.worst_ratio = d.worst_ratio;
        row.worst_case = r.case_id;
        row.worst = d;
      }
    }
  }
  std::vector<OracleSummaryRow> out;
  out.reserve(order.size());
  for (const auto& k : order) out.push_back(rows.at(k));
  return out;
}

OracleTotals oracle_totals(const std::vector<OracleCaseResult>& results) {
  OracleTotals t;
  for (const auto& r : results) {
    t.points_skipped += r.points_skipped;
    if (r.skipped) {
      ++t.skipped;
      continue;
    }
    ++t.cases;
    t.points += r.points;
    if (!r.error.empty()) {
      t.worst_ratio = std::numeric_limits<double>::infinity();
      t.worst_case = r.case_id;
      t.worst_direction = "error: " + r.error;
      continue;
    }
    for (const auto& d : r.directions)
      if (t.worst_case.empty() || d.worst_ratio > t.worst_ratio) {
        t.worst_ratio = d.worst_ratio;
        t.worst_case = r.case_id;
        t.worst_direction = direction_label(d.direction, d.input);
        t.worst_index = d.worst_index;
      }
  }
  return t;
}

ReferenceAccuracy reference_accuracy(const std::vector<OracleCaseResult>& results) {
  std::vector<OracleCaseResult> ran;
  for (const auto& r : results)
    if (!r.case_id.empty()) ran.push_back(r);
  ReferenceAccuracy a;
  if (ran.empty()) return a;  // no small-tier case in the run: nothing verified, nothing claimed
  const OracleTotals t = oracle_totals(ran);
  a.oracle = ref::oracle_description();
  a.cases = t.cases;
  a.cases_skipped = t.skipped;
  a.points_skipped = t.points_skipped;
  a.points = t.points;
  a.worst_ratio = t.worst_ratio;
  a.limit = kOracleRatioLimit;
  a.worst_case = t.worst_case;
  a.worst_direction = t.worst_direction;
  a.worst_index = t.worst_index;
  for (const auto& r : ran) a.seconds += r.seconds;
  return a;
}

}  // namespace gp
