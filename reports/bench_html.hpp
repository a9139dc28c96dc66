// bench.html: a self-contained page (no network) of what `gradparity bench` measured: per device,
// the bandwidth-bound calls against the copy bandwidth and the contractions under its slope; per
// op, each call's speed against its parity margin (with --check or --parity).
#pragma once

#include <string>

#include "results/bench.hpp"

namespace gp {

std::string bench_to_html(const BenchReport& report);

}  // namespace gp
