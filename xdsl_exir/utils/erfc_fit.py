"""
A rational fit of the scaled complementary error function, shared by the numpy
kernel of `erf` (float64) and the decomposition of `special_log_ndtr`.

erfcx(x) = erfc(x) exp(x^2) = P(x)/Q(x) on 1 <= x <= 6, relative error 1.5e-18,
fitted for this project by `scripts/fit_erf.py` (linearised least squares on
Chebyshev nodes with Lawson reweighting, in mpmath at 60 digits). Coefficients
are in increasing powers. Both users need erfc where it is far below 1, which
`1 - erf` cannot give.
"""

ERFCX_P = (
    0.99999999223902539246, 1.8454600011074560022, 1.6794922425139468717, 0.94642216044937140947,
    0.35328409433699600349, 0.087387598590108716523, 0.013391784760518223376, 0.0010092391287794535914,
)
ERFCX_Q = (
    1.0, 2.9738390835710645179, 4.0351107550014016711, 3.2779692669349824186, 1.7540479636723134542,
    0.6380473427286406478, 0.15578493123560666713, 0.023736319425869438773, 0.0017888297971208989191,
)
ERFCX_LOW, ERFCX_HIGH = 1.0, 6.0
"""The interval of the fit."""
