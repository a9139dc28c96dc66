#!/usr/bin/env python3
"""Fits the f32 erfc used by the Vulkan shaders (math.glsl, ERFC_FIT) and reports its error.

For z >= 0 the shaders compute erfc(z) = exp(-z^2) h(t) / (1 + 2z) with t = (z - L) / (z + L).
The map sends [0, inf) onto [-1, 1), and h(t) = (1 + 2z) exp(z^2) erfc(z) is smooth and bounded
there (1 at z = 0, 2/sqrt(pi) as z -> inf), so a Chebyshev interpolant of low degree fits it to
a relative error far below f32 rounding. The interpolant is printed as monomial coefficients for
Horner's rule; they stay below 1.3 in magnitude, so the evaluation loses nothing to cancellation.

Usage: fit_erfc.py [--degree N] [--scale L]   (defaults: the shaders' 12 and 1.5)
Standard library only: math.erfc is accurate to a few double ulp, far beyond what f32 needs.
"""
import argparse
import math
import struct


def scaled_erfc(z):
    """exp(z^2) erfc(z), by its asymptotic series where erfc underflows in double."""
    if z < 25.0:
        return math.exp(z * z) * math.erfc(z)
    total, term = 1.0, 1.0
    for n in range(1, 12):
        term *= -(2 * n - 1) / (2 * z * z)
        total += term
    return total / (z * math.sqrt(math.pi))


def h(z):
    return (1.0 + 2.0 * z) * scaled_erfc(z)


def chebyshev_coefficients(scale, degree, nodes=256):
    ts = [math.cos(math.pi * (k + 0.5) / nodes) for k in range(nodes)]
    values = [h(scale * (1 + t) / (1 - t)) for t in ts]
    coeffs = []
    for j in range(degree + 1):
        s = sum(v * math.cos(j * math.pi * (k + 0.5) / nodes) for k, v in enumerate(values))
        coeffs.append(s * (1.0 if j == 0 else 2.0) / nodes)
    return coeffs


def to_monomial(cheb):
    """sum c_j T_j(t) as sum m_i t^i."""
    basis = [[1.0], [0.0, 1.0]]
    while len(basis) < len(cheb):
        a = [0.0] + [2.0 * x for x in basis[-1]]
        b = basis[-2] + [0.0] * (len(a) - len(basis[-2]))
        basis.append([x - y for x, y in zip(a, b)])
    mono = [0.0] * len(cheb)
    for c, poly in zip(cheb, basis):
        for i, x in enumerate(poly):
            mono[i] += c * x
    return mono


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def max_relative_error(mono, scale, in_f32):
    worst = 0.0
    for i in range(1, 4001):  # z in (0, 20]: erfc(20) is far below the f32 range
        z = i * 0.005
        if in_f32:
            z = f32(z)
            t = f32(f32(z - scale) / f32(z + scale))
            acc = f32(mono[-1])
            for m in reversed(mono[:-1]):
                acc = f32(acc * t + f32(m))
        else:
            t = (z - scale) / (z + scale)
            acc = 0.0
            for m in reversed(mono):
                acc = acc * t + m
        worst = max(worst, abs(acc / h(z) - 1.0))
    return worst


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--degree", type=int, default=12)
    parser.add_argument("--scale", type=float, default=1.5)
    args = parser.parse_args()
    mono = to_monomial(chebyshev_coefficients(args.scale, args.degree))
    print(f"// fit_erfc.py --degree {args.degree} --scale {args.scale}: h(t) relative error "
          f"{max_relative_error(mono, args.scale, False):.1e} exact, "
          f"{max_relative_error(mono, args.scale, True):.1e} with f32 Horner")
    print(f"const float ERFC_FIT_SCALE = {args.scale!r};")
    body = ", ".join(f"{m:.9e}" for m in mono)
    print(f"const float ERFC_FIT[{len(mono)}] = float[]({body});")


if __name__ == "__main__":
    main()
