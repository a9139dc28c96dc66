// Helpers shared by the Vulkan backend tests: a backend with validation on (skipping when no
// device exists) and one-call forward/backward drivers.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "backends/vulkan/vulkan_backend.hpp"
#include "core/op.hpp"
#include "core/tensor.hpp"
#include "support/backend_calls.hpp"

namespace gp::vktest {

inline std::string temp_cache_dir(const std::string& tag) {
  auto dir = std::filesystem::temp_directory_path() / ("gp_vk_test_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

// nullptr (and the reason) when the machine has no usable Vulkan device.
inline std::unique_ptr<VulkanBackend> make_backend(const std::string& cache_dir, std::string& why) {
  BackendOptions opts;
  opts.cache_dir = cache_dir;
  opts.vulkan_validation = true;
  auto entries = make_vulkan_provider().discover(opts);
  if (entries.empty() || !entries[0].create) {
    why = entries.empty() ? "no Vulkan device" : entries[0].unavailable;
    return nullptr;
  }
  return std::make_unique<VulkanBackend>(opts, 0);
}

using backend_calls::run;
using backend_calls::RunResult;
using backend_calls::tensor;

// A test's backend (validation on; the test skips without a device), and after the test: no
// validation message, no canary violation, the pipeline cache folder removed.
class BackendTest : public ::testing::Test {
 protected:
  explicit BackendTest(std::string tag) : tag_(std::move(tag)) {}
  void SetUp() override {
    cache_dir_ = temp_cache_dir(tag_);
    std::string why;
    backend_ = make_backend(cache_dir_, why);
    if (!backend_) GTEST_SKIP() << why;
  }
  void TearDown() override {
    if (!backend_) return;
    for (const auto& m : backend_->take_validation_messages()) ADD_FAILURE() << "validation: " << m;
    EXPECT_TRUE(backend_->take_canary_violations().empty());
    backend_.reset();
    std::filesystem::remove_all(cache_dir_);
  }
  static OpCall call(OpKind k, DType dt, std::vector<Shape> shapes, OpAttrs a = {}) {
    return make_call(k, std::move(a), dt, std::move(shapes), std::string(op_name(k)));
  }
  std::string tag_;
  std::string cache_dir_;
  std::unique_ptr<VulkanBackend> backend_;
};

}  // namespace gp::vktest
