// Seeded, domain-respecting inputs: the same bytes go to the reference (widened exactly) and to
// every backend. Each case draws from its own stream (seed, case id), so a case's inputs do not
// depend on which other cases run, on sharding or on order.
#pragma once

#include <cstdint>
#include <vector>

#include "cases/case.hpp"
#include "core/tensor.hpp"

namespace gp {

// A case from a file (Case::given) has its own inputs, whatever the seed.
std::vector<HostTensor> make_inputs(const Case& c, std::uint64_t seed);
// Each strided input as its view holds it (core/strided.hpp, as_viewed): after a draw or a move
// of single elements, the elements an expanded view shares take one value.
void keep_viewable(const Case& c, std::vector<HostTensor>& inputs);
// A Gaussian cotangent (mean 1/2, deviation 1) for the output, rounded to the case dtype;
// `stream` picks another draw. Stream 0 of a case from a file is its file's cotangent if it has one.
HostTensor make_cotangent(const Case& c, std::uint64_t seed, int stream = 0);

}  // namespace gp
