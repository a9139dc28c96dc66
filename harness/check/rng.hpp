// A small, fully specified RNG (SplitMix64 seeding + xoshiro256**), with our own uniform and
// Gaussian transforms: std::normal_distribution differs between standard libraries, and the
// inputs of a seed must be the same everywhere a repro line is pasted.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

namespace gp {

class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  // A stream derived from a run seed, a case id and a purpose ("inputs", "cotangent", ...).
  static Rng for_case(std::uint64_t seed, std::string_view case_id, std::string_view purpose);

  std::uint64_t next();
  double uniform();  // [0, 1), 53 random bits
  double uniform(double lo, double hi);
  double normal();  // N(0, 1), Box-Muller
  // Two independent N(0, 1) from one Box-Muller draw (its cosine and sine): the large tier's
  // cotangents, where one logarithm and one sine-cosine per pair halve the cost of a normal.
  std::pair<double, double> normal_pair();
  std::uint64_t below(std::uint64_t n);  // [0, n)

 private:
  std::uint64_t s_[4];
};

std::uint64_t fnv1a64(std::string_view text);

}  // namespace gp
