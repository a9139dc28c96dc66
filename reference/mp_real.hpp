// The oracle's real type: 50 decimal digits (about 166 bits) of MPFR through Boost.Multiprecision,
// expression templates off so that the reference's generic formulas (written for long double)
// compile unchanged. Only the reference's own sources and the oracle include this header.
#pragma once

#include <boost/multiprecision/mpfr.hpp>

namespace gp::ref {

using MpReal =
    boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<50>, boost::multiprecision::et_off>;

}  // namespace gp::ref
