// Device buffers with canary guards: every buffer is one allocation [guard | data | guard]; the
// data region is handed to kernels as a sub-buffer. Guards hold a position-dependent byte
// pattern; the queue reads them back after kernels that write the buffer and reports changes.
#include "backends/opencl/detail.hpp"

namespace gp::opencl {

ClBuffer::ClBuffer(ClBackend& backend, DType dtype, const Shape& shape) : DeviceBuffer(dtype, shape) {
  guard_ = backend.guard_bytes();
  data_bytes_ = std::max<std::size_t>(bytes(), 1);
  whole_ = cl::Buffer(backend.context(), CL_MEM_READ_WRITE, guard_ + data_bytes_ + guard_);
  cl_buffer_region region{guard_, data_bytes_};
  data_ = whole_.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region);
  backend.fill_guards(whole_, data_bytes_, true);
}

std::string ClBuffer::describe() const {
  return std::string(dtype_name(dtype())) + "[" + shape().to_string() + "] (" + std::to_string(data_bytes_) + " bytes)";
}

const ClBuffer& as_cl(const DeviceBuffer* b) {
  auto* c = dynamic_cast<const ClBuffer*>(b);
  if (!c) throw Error("opencl: buffer was not allocated by an OpenCL backend");
  return *c;
}

ClBuffer& as_cl(DeviceBuffer* b) {
  auto* c = dynamic_cast<ClBuffer*>(b);
  if (!c) throw Error("opencl: buffer was not allocated by an OpenCL backend");
  return *c;
}

// Canary bookkeeping of the queue: reads are enqueued without waiting, and verified at the next
// download() or finish() (or when many are pending), so checks cost no extra synchronisation.
void ClQueue::watch_guards(const ClBuffer& buffer) {
  if (!canaries_) return;
  auto g = std::make_unique<PendingGuard>();
  g->whole = buffer.whole();
  g->what = buffer.describe();
  g->guard = buffer.guard_bytes();
  g->data_bytes = buffer.data_bytes();
  g->before.resize(g->guard);
  g->after.resize(g->guard);
  queue_.enqueueReadBuffer(g->whole, CL_FALSE, 0, g->guard, g->before.data());
  queue_.enqueueReadBuffer(g->whole, CL_FALSE, g->guard + g->data_bytes, g->guard, g->after.data(), nullptr, &g->done);
  g->what += " [case " + case_id_ + "]";
  pending_.push_back(std::move(g));
  if (pending_.size() > 64) check_guards();
}

namespace {
// "N bytes changed at offsets A..B" relative to `origin` (negative: before the data).
std::string describe_changes(const std::vector<std::uint8_t>& got, long long origin) {
  long long first = -1, last = -1, count = 0;
  for (std::size_t k = 0; k < got.size(); ++k) {
    if (got[k] == guard_pattern(k)) continue;
    if (first < 0) first = static_cast<long long>(k);
    last = static_cast<long long>(k);
    ++count;
  }
  if (count == 0) return {};
  return std::to_string(count) + " byte(s) changed at offsets " + std::to_string(origin + first) + ".." +
         std::to_string(origin + last);
}
}  // namespace

void ClQueue::check_guards() {
  if (pending_.empty()) return;
  pending_.back()->done.wait();
  queue_.finish();  // the earlier reads of the list are complete too (in-order queue)
  for (const auto& g : pending_) {
    std::string before = describe_changes(g->before, -static_cast<long long>(g->guard));
    std::string after = describe_changes(g->after, static_cast<long long>(g->data_bytes));
    if (before.empty() && after.empty()) continue;
    std::string text = "out-of-bounds write around " + g->what + ":";
    if (!before.empty()) text += " before the data: " + before + ";";
    if (!after.empty()) text += " after the data (offsets from the data start): " + after + ";";
    backend_.report_violation(text);
    backend_.fill_guards(g->whole, g->data_bytes, false);  // re-arm, so the next report is new
  }
  pending_.clear();
}

}  // namespace gp::opencl
