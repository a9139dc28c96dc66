// The CPU queue: runs every command synchronously on the calling thread. It validates each
// call against its buffers, stages f16/bf16 data through float, runs the family kernel, then
// checks the canary guards of every buffer the command touched.
#pragma once

#include "backends/backend.hpp"

namespace gp::cpu {

class CpuBackend;

class CpuQueue final : public Queue {
 public:
  explicit CpuQueue(CpuBackend& backend) : backend_(backend) {}

  void upload(DeviceBuffer& dst, const HostTensor& src) override;
  HostTensor download(const DeviceBuffer& src) override;
  void forward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, DeviceBuffer& out) override;
  void backward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, const DeviceBuffer& out,
                const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) override;
  void finish() override {}  // nothing is ever pending
  bool arithmetic_probe(DeviceBuffer& out, int steps) override;

 private:
  CpuBackend& backend_;
};

}  // namespace gp::cpu
