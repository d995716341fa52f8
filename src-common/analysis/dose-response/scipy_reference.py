"""Reference fits for Vault Desk's dose-response tests and benchmark, by SciPy's curve_fit.

Reads one JSON document on stdin and writes one on stdout:

  {"problems": [{"id", "equation", "x": [...], "y": [...],
                 "fixed": {name: value}, "bounds": {name: [lower, upper]}}],   (null: no bound)
   "regressions": [{"x": [...], "y": [...]}],          (optional: straight lines)
   "quantiles": [[probability, df], ...],             (optional: Student t quantiles)
   "fSurvival": [[f, d1, d2], ...]}                   (optional: F distribution upper tails)
  -> {"scipy": version, "fits": [...], "regressions": [...], "quantiles": [...],
      "fSurvival": [...], "seconds": time spent fitting}

A Hill fit also reports the 95% confidence interval of ic50: log10 ic50 +- t(0.975, n - p) times
the standard error of log10 ic50 from curve_fit's covariance, back-transformed. A fit with two
or more free parameters and residual degrees of freedom also reports the extra sum-of-squares F
test against a horizontal line at the mean response (scipy.stats.f.sf). Straight lines
come from scipy.stats.linregress and numpy.polyfit.

Each problem is fitted with the same model and the same bounds as the TypeScript fitter, but from
starting values this script works out on its own (plateaus from the extreme responses, slope
+1 or -1 by the sign of the correlation with log concentration, the centre at the median tested
concentration), with curve_fit's defaults otherwise ('lm' without bounds, 'trf' with bounds).
Concentrations are searched as log10 (ic50, k_d), as in the TypeScript fitter. Zero concentration
in a Hill problem is the limit of the curve there (its low-concentration plateau).

The convergence verdict, by the rules the TypeScript fitter applies to its own result (fit.ts):
curve_fit returns (no RuntimeError), every parameter is finite, and the data determine the fit:
the squared pivots of the Cholesky factor of the correlation form of J'J over the parameters not
on a bound (1 - R^2 of each Jacobian column on the others before it) all exceed
IDENTIFIABILITY_TOLERANCE; and for Hill, the centre lies within CENTRE_DECADES_BEYOND_TESTED
decades of the tested (positive) concentrations, and at least one of them lies on the transition
(10% to 90% of the way between the plateaus).
"""

import json
import sys
import time
import warnings

import numpy as np
import scipy
from scipy.optimize import OptimizeWarning, curve_fit
from scipy.stats import f as f_distribution
from scipy.stats import linregress
from scipy.stats import t as student_t

IDENTIFIABILITY_TOLERANCE = 1e-9
CENTRE_DECADES_BEYOND_TESTED = 2
LN10 = np.log(10.0)


def hill_parts(x):
    logs = np.full(x.shape, -np.inf)
    positive = x > 0
    logs[positive] = np.log10(x[positive])
    return logs, ~positive


def hill_fraction(logs, zero, slope, centre):
    with np.errstate(over="ignore", invalid="ignore"):
        fraction = 1.0 / (1.0 + np.power(10.0, slope * (centre - logs)))
    if zero.any():
        fraction[zero] = 0.0 if slope > 0 else (1.0 if slope < 0 else 0.5)
    return fraction


def hill_value(x, bottom, top, slope, centre):
    logs, zero = hill_parts(x)
    return bottom + (top - bottom) * hill_fraction(logs, zero, slope, centre)


def hill_jacobian(x, bottom, top, slope, centre):
    logs, zero = hill_parts(x)
    s = hill_fraction(logs, zero, slope, centre)
    common = -(top - bottom) * LN10 * s * (1 - s)
    d_slope = np.where(zero, 0.0, common * np.where(zero, 0.0, centre - logs))
    d_centre = np.where(zero, 0.0, common * slope)
    return np.column_stack([1 - s, s, d_slope, d_centre])


def linear_value(x, slope, intercept):
    return slope * x + intercept


def linear_jacobian(x, slope, intercept):
    return np.column_stack([x, np.ones_like(x)])


def decay_value(x, c0, cmin, k):
    return cmin + (c0 - cmin) * np.exp(-k * x)


def decay_jacobian(x, c0, cmin, k):
    e = np.exp(-k * x)
    return np.column_stack([e, 1 - e, -(c0 - cmin) * x * e])


def mm_value(x, bmax, log_kd):
    kd = 10.0**log_kd
    return bmax * x / (kd + x)


def mm_jacobian(x, bmax, log_kd):
    kd = 10.0**log_kd
    return np.column_stack([x / (kd + x), -bmax * x / (kd + x) ** 2 * kd * LN10])


MODELS = {
    "Hill": (["min", "max", "slope", "ic50"], hill_value, hill_jacobian),
    "Linear": (["slope", "y_intercept"], linear_value, linear_jacobian),
    "Exponential Decay": (["c_0", "c_min", "k"], decay_value, decay_jacobian),
    "Michaelis-Menten": (["b_max", "k_d"], mm_value, mm_jacobian),
}
LOG_PARAMETERS = {"ic50", "k_d"}


def starting_values(equation, x, y):
    positive = x[x > 0]
    median_log = float(np.median(np.log10(np.unique(positive)))) if positive.size else 0.0
    if equation == "Hill":
        r = np.corrcoef(np.log10(x[x > 0]), y[x > 0])[0, 1] if positive.size > 1 else 1.0
        slope = -1.0 if r < 0 else 1.0
        return {"min": y.min(), "max": y.max(), "slope": slope, "ic50": median_log}
    if equation == "Linear":
        return {"slope": 0.0, "y_intercept": float(y.mean())}
    if equation == "Exponential Decay":
        low, high = x.min(), x.max()
        return {
            "c_0": float(y[x == low].mean()),
            "c_min": float(y[x == high].mean()),
            "k": 1.0 / ((high - low) or 1.0),
        }
    extreme = y[np.argmax(np.abs(y))]
    return {"b_max": float(extreme), "k_d": median_log}


def search_value(name, value):
    return np.log10(value) if name in LOG_PARAMETERS else value


def search_bound(name, value, infinity):
    if value is None:
        return infinity
    if name not in LOG_PARAMETERS:
        return value
    return -np.inf if value <= 0 else np.log10(value)


def identifiable(jacobian, moving):
    columns = jacobian[:, moving]
    matrix = columns.T @ columns
    scale = np.sqrt(np.outer(np.diag(matrix), np.diag(matrix)))
    with np.errstate(invalid="ignore", divide="ignore"):
        correlation = np.where(scale > 0, matrix / scale, 0.0)
    k = correlation.shape[0]
    factor = np.zeros_like(correlation)
    for j in range(k):
        diagonal = correlation[j, j] - np.sum(factor[j, :j] ** 2)
        if not diagonal > IDENTIFIABILITY_TOLERANCE:
            return False
        factor[j, j] = np.sqrt(diagonal)
        for i in range(j + 1, k):
            factor[i, j] = (correlation[i, j] - np.sum(factor[i, :j] * factor[j, :j])) / factor[j, j]
    return True


def fit(problem):
    equation = problem["equation"]
    names, value, jacobian = MODELS[equation]
    x = np.asarray(problem["x"], dtype=float)
    y = np.asarray(problem["y"], dtype=float)
    fixed = {name: search_value(name, v) for name, v in problem.get("fixed", {}).items()}
    bounds = problem.get("bounds", {})
    free = [name for name in names if name not in fixed]
    start = starting_values(equation, x, y)
    lower = np.array([search_bound(n, bounds.get(n, [None, None])[0], -np.inf) for n in free])
    upper = np.array([search_bound(n, bounds.get(n, [None, None])[1], np.inf) for n in free])
    p0 = np.array([start[n] for n in free], dtype=float)
    # trf needs a strictly feasible start.
    span = np.where(np.isfinite(upper - lower), upper - lower, 1.0)
    p0 = np.clip(p0, lower + 1e-6 * span, upper - 1e-6 * span)

    def full(vector):
        values = dict(fixed)
        values.update(zip(free, vector))
        return [values[n] for n in names]

    def model(xs, *vector):
        return value(xs, *full(vector))

    def model_jacobian(xs, *vector):
        whole = jacobian(xs, *full(vector))
        return whole[:, [names.index(n) for n in free]]

    bounded = bool(np.isfinite(lower).any() or np.isfinite(upper).any())
    answer = {"id": problem["id"]}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OptimizeWarning)
            warnings.simplefilter("ignore", RuntimeWarning)
            popt, pcov = curve_fit(
                model,
                x,
                y,
                p0=p0,
                jac=model_jacobian,
                bounds=(lower, upper) if bounded else (-np.inf, np.inf),
                method="trf" if bounded else "lm",
            )
    except (RuntimeError, ValueError) as error:
        answer.update(converged=False, reason=str(error))
        return answer
    if not np.all(np.isfinite(popt)):
        answer.update(converged=False, reason="non-finite parameters")
        return answer
    tolerance = 1e-7 * np.maximum(1.0, np.abs(popt))
    moving = [
        i for i in range(len(free)) if popt[i] - lower[i] > tolerance[i] and upper[i] - popt[i] > tolerance[i]
    ]
    whole = model_jacobian(x, *popt)
    if not identifiable(whole, moving):
        answer.update(converged=False, reason="parameters not determined by the data")
        return answer
    values = dict(zip(names, full(popt)))
    if equation == "Hill":
        logs = np.log10(np.unique(x[x > 0]))
        centre, slope = values["ic50"], values["slope"]
        if centre < logs.min() - CENTRE_DECADES_BEYOND_TESTED or centre > logs.max() + CENTRE_DECADES_BEYOND_TESTED:
            answer.update(converged=False, reason="centre far outside the tested concentrations")
            return answer
        fraction = 1.0 / (1.0 + np.power(10.0, slope * (centre - logs)))
        on_transition = fraction if slope > 0 else 1.0 - fraction
        if not np.any((on_transition >= 0.1) & (on_transition <= 0.9)):
            answer.update(converged=False, reason="no tested concentration on the transition")
            return answer
    parameters = {n: (10.0 ** values[n] if n in LOG_PARAMETERS else values[n]) for n in names}
    errors = {}
    if np.all(np.isfinite(pcov)):
        for i, n in enumerate(free):
            errors[n] = float(np.sqrt(pcov[i, i]))
    residuals = y - model(x, *popt)
    degrees = len(x) - len(free)
    if "ic50" in errors and degrees > 0:
        half = student_t.ppf(0.975, degrees) * errors["ic50"]
        centre = values["ic50"]
        answer["ic50Interval"] = [float(10.0 ** (centre - half)), float(10.0 ** (centre + half))]
    flat = float(np.sum((y - y.mean()) ** 2))
    curve = float(residuals @ residuals)
    if len(free) >= 2 and degrees >= 1 and flat > 0 and curve > 0:
        statistic = max(0.0, (flat - curve) / (len(free) - 1) / (curve / degrees))
        answer["flatLine"] = {"f": statistic, "p": float(f_distribution.sf(statistic, len(free) - 1, degrees))}
    answer.update(
        converged=True,
        parameters={n: float(v) for n, v in parameters.items()},
        searchErrors=errors,
        sumOfSquares=float(residuals @ residuals),
        moving=[free[i] for i in moving],
    )
    return answer


def regression(line):
    x = np.asarray(line["x"], dtype=float)
    y = np.asarray(line["y"], dtype=float)
    result = linregress(x, y)
    slope, intercept = np.polyfit(x, y, 1)
    return {
        "slope": float(result.slope),
        "intercept": float(result.intercept),
        "slopeError": float(result.stderr),
        "interceptError": float(result.intercept_stderr),
        "rSquared": float(result.rvalue**2),
        "polyfit": [float(slope), float(intercept)],
    }


def finite_or_null(value):
    """JSON has no infinities: a bound or interval that runs off is written as null."""
    if isinstance(value, float) and not np.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: finite_or_null(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_or_null(item) for item in value]
    return value


def main():
    request = json.load(sys.stdin)
    started = time.perf_counter()
    fits = [fit(problem) for problem in request.get("problems", [])]
    seconds = time.perf_counter() - started
    regressions = [regression(line) for line in request.get("regressions", [])]
    quantiles = [float(student_t.ppf(p, df)) for p, df in request.get("quantiles", [])]
    survival = [float(f_distribution.sf(f, d1, d2)) for f, d1, d2 in request.get("fSurvival", [])]
    json.dump(
        finite_or_null({
            "scipy": scipy.__version__,
            "fits": fits,
            "regressions": regressions,
            "quantiles": quantiles,
            "fSurvival": survival,
            "seconds": seconds,
        }),
        sys.stdout,
        allow_nan=False,
    )


if __name__ == "__main__":
    main()
