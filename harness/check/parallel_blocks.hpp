// Work over a huge range split into fixed blocks, on every core: the large tier's tensors of up
// to 2^31 elements take minutes on one (drawing inputs, scanning for extremes). The blocks do
// not depend on the number of threads, so a block's result, and a stream seeded per block, is
// the same on every machine.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace gp {

// fn(block, begin, end) for every block [block * size, min(n, (block + 1) * size)), blocks spread
// over the hardware's threads; the first exception a block throws is rethrown after all end.
template <typename Fn>
void for_each_block(std::int64_t n, std::int64_t size, const Fn& fn) {
  const std::int64_t blocks = (n + size - 1) / size;
  const auto threads =
      static_cast<std::int64_t>(std::min<std::int64_t>(blocks, std::max(1u, std::thread::hardware_concurrency())));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  auto work = [&](std::int64_t t) {
    try {
      for (std::int64_t b = t; b < blocks; b += threads) fn(b, b * size, std::min(n, (b + 1) * size));
    } catch (...) {
      errors[static_cast<std::size_t>(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (std::int64_t t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace gp
