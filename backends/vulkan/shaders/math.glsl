// Math in the compute type C. GLSL has no double exp/log/sin/cos/pow/tanh and no erf, expm1 or
// log1p at all; these are written here once, over C, with literals through K() so the f64
// variant keeps full precision. No built-in is used: exp and log (and with them pow, expm1,
// log1p, tanh, sigmoid, erfc) may err by 3 + 2|x| ULP and by an absolute 2^-21 near 1 (lavapipe's
// exp and NVIDIA's log came within 5 % and 15 % of that), sin and cos by an absolute 2^-11; the
// shared code by 3, 4 and 6 ULP at any argument. K() wraps only literals exact in float.

// Irrational constants, written twice so the f64 variant gets double literals (lf) and the
// others need no Float64 capability.
#if defined(IS_F64)
const C INV_SQRT2 = 0.70710678118654752440lf;
const C INV_SQRT_PI = 0.56418958354775628695lf;
const C INV_SQRT_2PI = 0.39894228040143267794lf;
const C SQRT_2_OVER_PI = 0.79788456080286535588lf;
const C GELU_A = 0.044715lf;
#else
const C INV_SQRT2 = 0.70710678118654752440;
const C INV_SQRT_PI = 0.56418958354775628695;
const C INV_SQRT_2PI = 0.39894228040143267794;
const C SQRT_2_OVER_PI = 0.79788456080286535588;
const C GELU_A = 0.044715;
#endif

// 2 atanh(s) = ln((1 + s) / (1 - s)) for |s| <= 0.172: 2 s (1 + s^2/3 + s^4/5 + ... + s^22/23);
// the first term left out, s^24/25, is below 2^-64 relative: enough for f64 and f32 alike.
C atanh2_series(C s) {
  C z = s * s;
  C t = K(1.0) / K(23.0);
  [[dont_unroll]] for (int j = 21; j >= 1; j -= 2) t = t * z + K(1.0) / C(j);
  return K(2.0) * s * t;
}

// e^x = 2^k e^r with x = k ln2 + r, |r| <= ln2/2, ln2 split so that k * LN2_HI is exact
// (Cody-Waite); e^r by its Taylor series to degree EXP_DEGREE (the first term left out is below
// 2^-60 relative in f64, 2^-32 in f32). `precise`: without it Mesa reassociates the two
// subtractions into x - k ln2, and r loses |x| u (70 ULP of exp(-76), 400 of exp(701), measured
// on lavapipe).
#if defined(IS_F64)
const C LOG2E = 1.44269504088896340736lf;
const C LN2_HI = 6.93147180369123816490e-01lf;
const C LN2_LO = 1.90821492927058770002e-10lf;
// e^-746 is below half the smallest subnormal: exp(-inf) rounds to 0 (at -745 it gave 2^-1074).
const C EXP_MIN = -746.0lf, EXP_MAX = 710.0lf;
// 2^k for k in the normal exponent range, built from its bits.
C pow2i(int k) { return packDouble2x32(uvec2(0u, uint(k + 1023) << 20)); }
#else
const C LOG2E = 1.44269504088896340736;
const C LN2_HI = 0.693145751953125;  // 15 significant bits: k * LN2_HI is exact for |k| < 512
const C LN2_LO = 1.42860682030941723212e-6;
const C EXP_MIN = -104.0, EXP_MAX = 89.0;
C pow2i(int k) { return uintBitsToFloat(uint(k + 127) << 23); }
#endif

C m_exp(C x) {
  if (isnan(x)) return x;
  x = clamp(x, EXP_MIN, EXP_MAX);
  C k = roundEven(x * LOG2E);
  precise C r = (x - k * LN2_HI) - k * LN2_LO;
  C p = K(0.0);
#if defined(IS_F64)
  p = p * r + K(1.0) / K(6227020800.0);
  p = p * r + K(1.0) / K(479001600.0);
  p = p * r + K(1.0) / K(39916800.0);
  p = p * r + K(1.0) / K(3628800.0);
  p = p * r + K(1.0) / K(362880.0);
#endif
  p = p * r + K(1.0) / K(40320.0);
  p = p * r + K(1.0) / K(5040.0);
  p = p * r + K(1.0) / K(720.0);
  p = p * r + K(1.0) / K(120.0);
  p = p * r + K(1.0) / K(24.0);
  p = p * r + K(1.0) / K(6.0);
  p = p * r + K(0.5);
  p = p * r + K(1.0);
  p = p * r + K(1.0);
  int ki = int(k);
  int k1 = ki / 2;  // two scalings keep both factors normal down to the subnormal range
  return p * pow2i(k1) * pow2i(ki - k1);
}

// x = m 2^e with m in [1, 2), for normal x > 0; and log's results at 0 and below.
#if defined(IS_F64)
C significand(C x, out int e) {
  uvec2 b = unpackDouble2x32(x);
  e = int((b.y >> 20) & 0x7ffu) - 1023;
  return packDouble2x32(uvec2(b.x, (b.y & 0x000fffffu) | 0x3ff00000u));
}
C m_nan() { return packDouble2x32(uvec2(0u, 0x7ff80000u)); }
C log_of_nonpositive(C x) { return x == 0.0lf ? packDouble2x32(uvec2(0u, 0xfff00000u)) : m_nan(); }
const C SMALLEST_NORMAL = 2.2250738585072014e-308lf, TWO_TO_THE_54 = 18014398509481984.0lf;
const int SUBNORMAL_SHIFT = 54;
#else
C significand(C x, out int e) {
  uint b = floatBitsToUint(x);
  e = int((b >> 23) & 0xffu) - 127;
  return uintBitsToFloat((b & 0x007fffffu) | 0x3f800000u);
}
C m_nan() { return uintBitsToFloat(0x7fc00000u); }
C log_of_nonpositive(C x) { return x == 0.0 ? uintBitsToFloat(0xff800000u) : m_nan(); }
const C SMALLEST_NORMAL = 1.17549435082228750797e-38, TWO_TO_THE_54 = 18014398509481984.0;
const int SUBNORMAL_SHIFT = 54;
#endif

// log x = e ln2 + 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.172, with m in [sqrt(1/2), sqrt 2)
// and ln2 in the two parts of m_exp. Relative accuracy everywhere, near x = 1 too: the f32
// built-in is specified only to an absolute 2^-21 on [0.5, 2] (NVIDIA's came within 15 % of that:
// 172 ULP of a result near 0).
C m_log(C x) {
  if (!(x > K(0.0))) return log_of_nonpositive(x);
  if (isinf(x)) return x;
  int shift = 0;
  if (x < SMALLEST_NORMAL) {
    x *= TWO_TO_THE_54;
    shift = SUBNORMAL_SHIFT;
  }
  int e;
  C m = significand(x, e);
  e -= shift;
  if (m > K(1.41421356237309504880)) {
    m *= K(0.5);
    e += 1;
  }
  C s = (m - K(1.0)) / (m + K(1.0));
  C de = C(e);
  precise C r = de * LN2_HI + (de * LN2_LO + atanh2_series(s));
  return r;
}

// sin and cos of the reduced argument r, |r| <= pi/4, as nested Taylor series evaluated from the
// inside: sin r = r (1 - z/(2*3) (1 - z/(4*5) (1 - ...))), cos r = 1 - z/(1*2) (1 - z/(3*4) (...)),
// z = r^2, to degree 23 / 22 (the next terms are below 1e-24). Each level's error is damped by the
// factor z/((2i)(2i+1)) <= 0.11 before it reaches the result: about 1.5 ULP in all, where summing
// the terms forward rounds the full sum ten times (3 ULP measured on lavapipe). The same series
// in f32 and f64; its steps 1 / ((2i)(2i+1)) are constant expressions, folded by the compiler.
const C SIN_STEP[11] = C[](K(1.0) / K(6.0), K(1.0) / K(20.0), K(1.0) / K(42.0), K(1.0) / K(72.0), K(1.0) / K(110.0),
                           K(1.0) / K(156.0), K(1.0) / K(210.0), K(1.0) / K(272.0), K(1.0) / K(342.0),
                           K(1.0) / K(420.0), K(1.0) / K(506.0));
const C COS_STEP[11] = C[](K(1.0) / K(2.0), K(1.0) / K(12.0), K(1.0) / K(30.0), K(1.0) / K(56.0), K(1.0) / K(90.0),
                           K(1.0) / K(132.0), K(1.0) / K(182.0), K(1.0) / K(240.0), K(1.0) / K(306.0),
                           K(1.0) / K(380.0), K(1.0) / K(462.0));
C sin_poly(C r) {
  C z = r * r, t = K(1.0);
  [[dont_unroll]] for (int i = 10; i >= 0; --i) t = K(1.0) - z * SIN_STEP[i] * t;
  return r * t;
}
C cos_poly(C r) {
  C z = r * r, t = K(1.0);
  [[dont_unroll]] for (int i = 10; i >= 0; --i) t = K(1.0) - z * COS_STEP[i] * t;
  return t;
}
#if defined(IS_F64)
// y rounded to the nearest integer, ties to even, for |y| < 2^52 by the sum with 2^52 (whose
// spacing is 1); larger doubles are integers. Not roundEven and floor: lavapipe (Mesa 22.3.6)
// on a host without AVX-512 rounded doubles past about 2^24 wrongly (sin of 6.4e7 came out 1).
double round_even_f64(double y) {
  precise double t = (abs(y) + 4503599627370496.0lf) - 4503599627370496.0lf;
  return abs(y) < 4503599627370496.0lf ? (y < 0.0lf ? -t : t) : y;
}
double floor_f64(double y) {
  double r = round_even_f64(y);
  return r > y ? r - 1.0lf : r;
}
#define ROUND_EVEN(y) round_even_f64(y)
#define FLOOR(y) floor_f64(y)
#else
#define ROUND_EVEN(y) roundEven(y)
#define FLOOR(y) floor(y)
#endif
// k mod 4 of an integral k, exactly (k / 4, its floor and 4 times it are exact): int(k) is
// undefined past 2^31, where |x| > 3.4e9.
int quadrant(C k) { return int(k - K(4.0) * FLOOR(k * K(0.25))); }
// Past the range where the reduction is exact its products round, by up to u |x|, and r can be
// anything that size: no digit of sin x is left (the budget says so, backends/vulkan/
// math_profile.cpp). r is kept where the series converges (|r| <= pi/4 + rounding elsewhere), so
// the result stays in [-1, 1] instead of overflowing to infinity at |x| = 1.7e19 (f32).
#if defined(IS_F64)
// x = q pi/2 + r with pi/2 in three parts (fdlibm's pio2_1, pio2_2, pio2_2t); accurate while
// q * pio2_1 is exact, i.e. |x| well beyond the [-20, 20] the catalog uses.
double reduce_pio2(double x, out int q) {
  double k = ROUND_EVEN(x * 6.36619772367581382433e-01lf);
  q = quadrant(k);
  precise double r =
      ((x - k * 1.57079632673412561417e+00lf) - k * 6.07710050630396597660e-11lf) - k * 2.02226624879595063154e-21lf;
  return clamp(r, -1.0lf, 1.0lf);
}
#else
// x = q pi/2 + r with pi/2 in four parts, the first three of 12 significant bits: for |q| < 2^12
// (|x| < 6433) every product q * part but the last is exact, and each subtraction is exact
// (Sterbenz) while |r| is below half the product it subtracts, else rounded by u |r|. So r errs
// by about 3 u |r| even next to a zero of sin or cos (the nearest float to 3 pi/2 is 1.2e-8 from
// it). The built-ins are specified (absolute 2^-11) on [-pi, pi] only: near their zeros that was
// hundreds of ULP, and a reduction by 2 pi in two parts left |x| u of absolute error there.
float reduce_pio2(float x, out int q) {
  float k = roundEven(x * 0.636619772367581343076);
  q = quadrant(k);
  precise float r = (((x - k * 1.57080078125) - k * -4.4535845518112183e-06) - k * -8.7061380327213556e-10) -
                    k * 6.2233719696699885e-14;
  return clamp(r, -1.0, 1.0);
}
#endif
// sin(x + q pi/2): sin for q = 0, cos for q = 1, -sin for q = 2 (cos' = -sin).
C m_sin_quadrant(C x, int q_extra) {
  // sin and cos of an infinity are NaN (C Annex F), which the clamp below would turn into a
  // number, and sin(-0) is -0, which x - k pi/2 turns into +0.
  if (isinf(x) || isnan(x)) return m_nan();
  if (x == K(0.0) && q_extra == 0) return x;
  int q;
  C r = reduce_pio2(x, q);
  int k = (q + q_extra) & 3;
  C v = (k & 1) == 0 ? sin_poly(r) : cos_poly(r);
  return k >= 2 ? -v : v;
}

// x^y = e^(y ln x), with C Annex F's values where that form has none or the wrong one: x^0 = 1
// and 1^y = 1 (a NaN operand included; e^(0 ln x) is NaN at x = 0, +inf and NaN), an infinite y
// by |x| against 1 (pow(-2, inf) = +inf, pow(0.5, inf) = +0), -inf to a non-integral y by y's
// sign; a negative x with a finite integral y through |x| (pow(-inf, 2) = +inf).
C m_pow(C x, C y) {
  if (y == K(0.0) || x == K(1.0)) return K(1.0);
  if (isnan(x) || isnan(y)) return x + y;
  const C inf = -log_of_nonpositive(K(0.0));
  if (isinf(y)) {
    if (abs(x) == K(1.0)) return K(1.0);
    return (abs(x) > K(1.0)) == (y > K(0.0)) ? inf : K(0.0);
  }
  if (isinf(x) && x < K(0.0) && y != floor(y)) return y > K(0.0) ? inf : K(0.0);
  if (x < K(0.0) && y == floor(y)) {
    C m = m_exp(y * m_log(-x));
    return y - K(2.0) * floor(y * K(0.5)) == K(0.0) ? m : -m;
  }
  return m_exp(y * m_log(x));
}

// e^x - 1 without cancellation for small x (Taylor series), e^x - 1 elsewhere.
C m_expm1(C x) {
  if (abs(x) < K(0.5)) {
    C t = K(0.0);
    [[dont_unroll]] for (int j = 18; j >= 1; --j) t = (t + K(1.0)) * x / C(j);
    return t;
  }
  return m_exp(x) - K(1.0);
}

// ln(1 + x). Near 0 (x in (-0.25, 0.375), |s| <= 0.158) as 2 atanh(s), s = x / (2 + x): only
// relative roundings, so the result keeps its relative accuracy. Elsewhere |ln(1 + x)| > 0.28
// and the rounding of 1 + x costs at most ~1 ULP of the result. Not Goldberg's
// log(u) * x / (u - 1), u = 1 + x: that needs u - 1 to be computed exactly, and Mesa's
// compiler (lavapipe) folds (1 + x) - 1 to x in shaders without `precise`, which left the
// rounding of u in the result (128 ULP in f64 near x = 0.006).
C m_log1p(C x) {
  // ln(1 + x) = x (1 - x/2 + ...) rounds to x here; x / (2 + x) would halve an x near the
  // smallest normal into the subnormal range, which a flushing device zeroes (NVIDIA: log_softmax
  // lost a result of -1.4e-38 so, found by hunt).
  if (abs(x) < K(1e-20)) return x;
  if (x > K(-0.25) && x < K(0.375)) return atanh2_series(x / (K(2.0) + x));
  return m_log(K(1.0) + x);
}

// tanh from expm1(-2|x|); tanh' = 1 - tanh^2 = 4a / (1 + a)^2 with a = e^(-2|x|), from exp, not
// expm1 + 1, which would cancel where a is small.
C m_tanh(C x) {
  if (x == K(0.0)) return x;  // tanh(-0) = -0
  C em = m_expm1(K(-2.0) * abs(x));
  C t = -em / (K(2.0) + em);
  return x < K(0.0) ? -t : t;
}
C m_sech2(C x) {
  C a = m_exp(K(-2.0) * abs(x));
  return K(4.0) * a / ((K(1.0) + a) * (K(1.0) + a));
}

// sigmoid(x) and sigmoid(-x) from one exponential of -|x| (both keep relative accuracy).
void m_sigmoid_pair(C x, out C s, out C sm) {
  C e = m_exp(-abs(x));
  C big = K(1.0) / (K(1.0) + e), small = e / (K(1.0) + e);
  s = x >= K(0.0) ? big : small;
  sm = x >= K(0.0) ? small : big;
}

C m_sigmoid(C x) {
  if (x >= K(0.0)) return K(1.0) / (K(1.0) + m_exp(-x));
  C e = m_exp(x);
  return e / (K(1.0) + e);
}

#if defined(IS_F64)
// Terms needed for full precision at the switch point x = 2.
#define ERF_SERIES_TERMS 60
#define ERFC_CF_TERMS 60

// erf by its all-positive series erf(x) = 2/sqrt(pi) x e^(-x^2) sum (2x^2)^n / (2n+1)!!, for
// |x| < 2; erfc by a continued fraction (evaluated from the tail) for x >= 2.
C erf_series(C x) {
  C x2 = K(2.0) * x * x, t = K(1.0), s = K(1.0);
  [[dont_unroll]] for (int n = 1; n < ERF_SERIES_TERMS; ++n) {
    t *= x2 / C(2 * n + 1);
    s += t;
  }
  return K(2.0) * INV_SQRT_PI * x * m_exp(-x * x) * s;
}
C erfc_cf(C x) {  // x >= 2
  C f = x;
  [[dont_unroll]] for (int n = ERFC_CF_TERMS; n >= 1; --n) f = x + (C(n) * K(0.5)) / f;
  return m_exp(-x * x) * INV_SQRT_PI / f;
}
// Standard normal CDF Phi(x) from one erfc evaluation, so the lower tail keeps its relative
// accuracy, and the normal density.
void m_phi_density(C x, out C phi, out C density) {
  C z = x * INV_SQRT2;
  C az = abs(z);
  C q = az < K(2.0) ? K(1.0) - erf_series(az) : erfc_cf(az);  // erfc(|z|)
  phi = z < K(0.0) ? K(0.5) * q : K(1.0) - K(0.5) * q;
  density = INV_SQRT_2PI * m_exp(K(-0.5) * x * x);
}
#else
// In f32 the series above needs 25 terms with a division each; gelu was compute-bound at half
// the copy bandwidth on an H200. Instead, for z >= 0, erfc(z) = exp(-z^2) h(t) / (1 + 2z) with
// t = (z - L) / (z + L): h is smooth on t in [-1, 1) and a degree-12 polynomial fits it to 1.4e-8
// (9e-8 evaluated in f32). tools/fit_erfc.py computes the coefficients and both errors. No
// subtraction from 1 anywhere, so the lower tail keeps its relative accuracy; exp(-z^2) is the
// density's exp(-x^2/2), shared with it.
const float ERFC_FIT_SCALE = 1.5;
const float ERFC_FIT[13] = float[](
    1.286341668e+00,
    -3.396271107e-02,
    -2.377378288e-01,
    1.141112812e-01,
    2.102310217e-02,
    -1.807371150e-02,
    -7.413508457e-03,
    1.980556443e-03,
    2.441586456e-03,
    2.591261585e-04,
    -5.135785938e-04,
    -1.249715075e-04,
    4.814116971e-05);

void m_phi_density(C x, out C phi, out C density) {
  C z = min(abs(x) * INV_SQRT2, K(64.0));  // erfc(64) is 0 in f32; keeps t finite for x = inf
  C t = (z - ERFC_FIT_SCALE) / (z + ERFC_FIT_SCALE);
  C h = ERFC_FIT[12];
  for (int i = 11; i >= 0; --i) h = h * t + ERFC_FIT[i];
  C e = m_exp(K(-0.5) * x * x);
  C q = e * h / (K(1.0) + K(2.0) * z);  // erfc(|z|)
  phi = x < K(0.0) ? K(0.5) * q : K(1.0) - K(0.5) * q;
  density = INV_SQRT_2PI * e;
}
#endif
