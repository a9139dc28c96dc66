// What a check belongs to; apart from result.hpp so that the run's profile (profile.hpp) can
// count by it without the result types.
#pragma once

#include <cstdint>
#include <string_view>

namespace gp {

// A primitive case, a composite model, or a training run of a model.
enum class SubjectKind : std::uint8_t { primitive, model, training };
inline constexpr SubjectKind kAllSubjectKinds[] = {SubjectKind::primitive, SubjectKind::model, SubjectKind::training};
std::string_view subject_kind_name(SubjectKind k);  // "primitive", "model", "training"

}  // namespace gp
