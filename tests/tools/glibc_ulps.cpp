// Measures the largest error of glibc's float and double functions against MPFR, in ULPs of the
// correctly rounded result, over the domains the case catalog draws from. The CPU backend's math
// profile (backends/cpu/math_profile.cpp) raises glibc's documented maxima to at least 1.25x of
// what this finds. Not a test: run it by hand after a glibc update.
//   build/ci/tests/tools/gp_glibc_ulps [samples per function, default 1000000]
#include <mpfr.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace {

using MpfrUnary = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);

// |got - exact| in ULPs of the exact value in T's format.
template <class T>
double ulps(T got, const mpfr_t exact) {
  const long double e = mpfr_get_ld(exact, MPFR_RNDN);
  if (e == 0) return got == 0 ? 0 : INFINITY;
  const int digits = std::numeric_limits<T>::digits, min_exp = std::numeric_limits<T>::min_exponent - 1;
  int exp2 = std::ilogb(e);
  if (exp2 < min_exp) exp2 = min_exp;
  return static_cast<double>(std::fabs(static_cast<long double>(got) - e) / std::ldexp(1.0L, exp2 - digits + 1));
}

template <class T>
void unary(const char* name, T (*f)(T), MpfrUnary exact, double lo, double hi, long samples) {
  mpfr_t x, y;
  mpfr_inits2(200, x, y, static_cast<mpfr_ptr>(nullptr));
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> draw(lo, hi);
  double worst = 0, at = 0;
  for (long i = 0; i < samples; ++i) {
    const T v = static_cast<T>(draw(rng));
    mpfr_set_ld(x, v, MPFR_RNDN);
    exact(y, x, MPFR_RNDN);
    const double e = ulps(f(v), y);
    if (e > worst) worst = e, at = v;
  }
  std::printf("%-6s %-6s [%g, %g]: worst %.3f ULP at %.9g\n", name, sizeof(T) == 4 ? "float" : "double", lo, hi, worst,
              at);
  mpfr_clears(x, y, static_cast<mpfr_ptr>(nullptr));
}

template <class T>
void power(long samples) {
  mpfr_t x, p, y;
  mpfr_inits2(200, x, p, y, static_cast<mpfr_ptr>(nullptr));
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> base(0.1, 10), exponent(-2, 3);
  double worst = 0;
  for (long i = 0; i < samples; ++i) {
    const T a = static_cast<T>(base(rng)), b = static_cast<T>(exponent(rng));
    mpfr_set_ld(x, a, MPFR_RNDN);
    mpfr_set_ld(p, b, MPFR_RNDN);
    mpfr_pow(y, x, p, MPFR_RNDN);
    worst = std::max(worst, ulps(static_cast<T>(std::pow(a, b)), y));
  }
  std::printf("pow    %-6s (0.1, 10] ^ [-2, 3]: worst %.3f ULP\n", sizeof(T) == 4 ? "float" : "double", worst);
  mpfr_clears(x, p, y, static_cast<mpfr_ptr>(nullptr));
}

template <class T>
void all(long n) {
  unary<T>("exp", std::exp, mpfr_exp, -80, 80, n);
  unary<T>("expm1", std::expm1, mpfr_expm1, -10, 10, n);
  unary<T>("expm1", std::expm1, mpfr_expm1, -1e-3, 1e-3, n);
  unary<T>("log", std::log, mpfr_log, 1e-3, 100, n);
  unary<T>("log1p", std::log1p, mpfr_log1p, -0.9, 20, n);
  unary<T>("sin", std::sin, mpfr_sin, -20, 20, n);
  unary<T>("cos", std::cos, mpfr_cos, -20, 20, n);
  unary<T>("tanh", std::tanh, mpfr_tanh, -10, 10, n);
  unary<T>("erf", std::erf, mpfr_erf, -6, 6, n);
  unary<T>("erfc", std::erfc, mpfr_erfc, -6, 10, n);
  power<T>(n);
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 1000000;
  all<float>(n);
  all<double>(n);
}
