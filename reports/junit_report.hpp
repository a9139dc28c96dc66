// JUnit XML for CI systems that read JUnit but not ctest: one <testsuite> per backend, one
// <testcase> per check (classname gradparity.<backend>.<op>, name "<case id> <direction>").
// FAIL is a <failure> and ERROR an <error>, both carrying the reason, the metrics and the repro
// line; SKIP and MISTRUSTED (a check that proves nothing) are <skipped> with their reason.
// Stress runs give one testcase per device x mode. An interrupted run says so in a property.
#pragma once

#include <filesystem>
#include <string>

#include "results/result.hpp"

namespace gp {

std::string report_to_junit(const RunReport& report);
void write_junit(const std::filesystem::path& path, const RunReport& report);

}  // namespace gp
