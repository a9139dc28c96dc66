// Device buffers with canary guards: every buffer is one allocation [guard | data | guard]; the
// data region is handed to kernels as a sub-buffer. Guards hold a position-dependent byte
// pattern; the queue reads them back after kernels that write the buffer and reports changes.
#include "backends/opencl/detail.hpp"

namespace gp::opencl {

std::optional<ClAllocation> ClBufferPool::take(std::size_t data_bytes) {
  std::lock_guard lock(mutex_);
  auto it = free_.find(data_bytes);
  if (it == free_.end()) return std::nullopt;
  ClAllocation a = std::move(it->second);
  free_.erase(it);
  kept_bytes_ -= data_bytes;
  return a;
}

void ClBufferPool::give_back(ClAllocation allocation) noexcept {
  try {
    std::lock_guard lock(mutex_);
    if (kept_bytes_ + allocation.data_bytes > max_bytes_) return;  // released when `allocation` goes
    kept_bytes_ += allocation.data_bytes;
    free_.emplace(allocation.data_bytes, std::move(allocation));
  } catch (...) {
    // No memory for the pool's entry: the allocation is released instead.
  }
}

void ClBufferPool::clear() noexcept {
  std::lock_guard lock(mutex_);
  free_.clear();
  kept_bytes_ = 0;
}

ClBuffer::ClBuffer(ClBackend& backend, DType dtype, const Shape& shape)
    : DeviceBuffer(dtype, shape), pool_(backend.pool()), guard_(backend.guard_bytes()) {
  const std::size_t data_bytes = std::max<std::size_t>(bytes(), 1);
  if (auto pooled = pool_->take(data_bytes)) {
    allocation_ = std::move(*pooled);
  } else {
    allocation_.data_bytes = data_bytes;
    allocation_.whole = cl::Buffer(backend.context(), CL_MEM_READ_WRITE, guard_ + data_bytes + guard_);
    cl_buffer_region region{guard_, data_bytes};
    allocation_.data = allocation_.whole.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region);
  }
  guards_written_ = allocation_.guards_written;
}

ClBuffer::~ClBuffer() {
  allocation_.guards_written = guards_written_;
  pool_->give_back(std::move(allocation_));
}

std::string ClBuffer::describe() const {
  return std::string(dtype_name(dtype())) + "[" + shape().to_string() + "] (" + std::to_string(data_bytes()) +
         " bytes)";
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

void ClQueue::arm_guards(const cl::Buffer& whole, std::size_t data_bytes) {
  // The pattern lives as long as the backend, which outlives its queues: no wait needed. (One
  // rectangle write of two rows would do both guards in a call; NVIDIA refuses a rectangle whose
  // slice pitch reaches past the buffer, which two rows a whole buffer apart always do.)
  const std::size_t guard = backend_.guard_bytes();
  queue_.enqueueWriteBuffer(whole, CL_FALSE, 0, guard, backend_.guard_image().data());
  queue_.enqueueWriteBuffer(whole, CL_FALSE, guard + data_bytes, guard, backend_.guard_image().data());
}

void ClQueue::prepare(const ClBuffer& buffer, bool overwritten_whole) {
  if (!buffer.guards_written_) {
    arm_guards(buffer.whole(), buffer.data_bytes());
    buffer.guards_written_ = true;
  }
  if (buffer.filled_) return;
  // 0xFF bytes are NaN in every float dtype: an output element a kernel forgets to write shows.
  if (!overwritten_whole) queue_.enqueueFillBuffer(buffer.mem(), cl_uchar{0xFF}, 0, buffer.data_bytes());
  buffer.filled_ = true;
}

void ClQueue::prepare_all(Inputs buffers) {
  for (const DeviceBuffer* b : buffers)
    if (b) prepare(as_cl(b));
}

// Up to this size a buffer's guards are read in one read of the whole allocation: a call of the
// driver costs more than moving 64 KiB (NVIDIA: 13 us a call on one thread, several times that
// when threads contend).
constexpr std::size_t kWholeGuardReadBytes = std::size_t{64} << 10;

// Canary bookkeeping of the queue: reads are enqueued without waiting, and verified at the next
// download() or finish() (or when many are pending), so checks cost no extra synchronisation.
void ClQueue::watch_guards(const ClBuffer& buffer) {
  if (!canaries_) return;
  auto g = std::make_unique<PendingGuard>();
  g->whole = buffer.whole();
  g->what = buffer.describe() + " [case " + case_id_ + "]";
  g->guard = buffer.guard_bytes();
  g->data_bytes = buffer.data_bytes();
  if (g->data_bytes <= kWholeGuardReadBytes) {
    g->bytes.resize(2 * g->guard + g->data_bytes);
    queue_.enqueueReadBuffer(g->whole, CL_FALSE, 0, g->bytes.size(), g->bytes.data(), nullptr, &g->done);
  } else {
    g->bytes.resize(2 * g->guard);
    queue_.enqueueReadBuffer(g->whole, CL_FALSE, 0, g->guard, g->bytes.data());
    queue_.enqueueReadBuffer(g->whole, CL_FALSE, g->guard + g->data_bytes, g->guard, g->bytes.data() + g->guard,
                             nullptr, &g->done);
  }
  pending_.push_back(std::move(g));
  if (pending_.size() > 64) check_guards();
}

namespace {
// "N bytes changed at offsets A..B" relative to `origin` (negative: before the data).
std::string describe_changes(std::span<const std::uint8_t> got, long long origin) {
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
    const std::span<const std::uint8_t> bytes(g->bytes);
    std::string before = describe_changes(bytes.first(g->guard), -static_cast<long long>(g->guard));
    std::string after = describe_changes(bytes.last(g->guard), static_cast<long long>(g->data_bytes));
    if (before.empty() && after.empty()) continue;
    std::string text = "out-of-bounds write around " + g->what + ":";
    if (!before.empty()) text += " before the data: " + before + ";";
    if (!after.empty()) text += " after the data (offsets from the data start): " + after + ";";
    backend_.report_violation(text);
    arm_guards(g->whole, g->data_bytes);  // so that the next report is new
  }
  pending_.clear();
}

}  // namespace gp::opencl
