"""Mechanisms: exact privacy maps, and parameters that never underestimate.

Every parameter comes back as a :class:`Calibration` (or a result of its own kind) with the
exact value, or an enclosure of it, and the float on the safe side.

Names are imported on first use (:mod:`exactdp._lazy`): importing one module of the
package, such as :mod:`exactdp.mechanisms.accounting.ledger`, loads only what it needs.

>>> from exactdp.mechanisms import laplace_scale
>>> c = laplace_scale("0.3", 1)
>>> c.exact, c.safe_float
(Fraction(10, 3), 3.3333333333333335)
"""

from exactdp._lazy import exports_of, lazy_exports

_EXPORTS = exports_of({
    "exactdp.mechanisms.calibration._calibration": ("Calibration",),
    "exactdp.mechanisms.accounting.accountant": ("AccountCheck", "AccountResult", "account",),
    "exactdp.mechanisms.accounting.curve": ("PrivacyCurve",),
    "exactdp.mechanisms.accounting.composition": ("AdvancedComposition", "advanced_composition", "compose_sequential", "compose_zcdp",),
    "exactdp.mechanisms.calibration.discrete": ("DiscreteGaussianDelta", "discrete_gaussian_delta", "discrete_gaussian_rho", "discrete_gaussian_sigma_squared", "discrete_laplace_epsilon", "discrete_laplace_pmf", "discrete_laplace_scale", "discrete_laplace_tail",),
    "exactdp.mechanisms.calibration.gaussian": ("analytic_sigma", "check_sigma", "classic_sigma", "delta_of_sigma", "epsilon_of_sigma",),
    "exactdp.mechanisms.distribution": ("Distribution", "Divergence", "hockey_stick", "pure_epsilon", "renyi", "total_variation",),
    "exactdp.mechanisms.calibration.laplace": ("laplace_epsilon", "laplace_scale",),
    "exactdp.mechanisms.mechanism": ("Mechanism", "make_mechanism", "mechanism_names",),
    "exactdp.mechanisms.models.randomized_response": ("RandomizedResponse",),
    "exactdp.mechanisms.models.noise": ("DiscreteGaussian", "DiscreteLaplace", "Gaussian", "Laplace",),
    "exactdp.mechanisms.models.samplers": ("float_exponential_sampler_distribution", "float_laplace_distribution", "float_threshold_rr_distribution", "grid_sampler_counts", "grid_sampler_distribution",),
    "exactdp.mechanisms.models.selection": ("ExponentialMechanism", "PermuteAndFlip",),
    "exactdp.mechanisms.calibration.noise_choice": ("compare_noise", "laplace_better_below",),
    "exactdp.mechanisms.typical": ("GaussianMixture", "expected_sensitivity", "height_mixture", "sensitivity_sampler_guarantee", "sensitivity_sampler_plan", "true_epsilon",),
    "exactdp.mechanisms.calibration.utility": ("discrete_gaussian_error", "discrete_laplace_error", "error_table", "gaussian_error", "laplace_error", "noisy_mean_error",),
    "exactdp.mechanisms.accounting.ledger": ("BudgetExceeded", "BudgetLedger", "Spend",),
    "exactdp.mechanisms.accounting.zcdp": ("epsilon_of_rho", "rho_of_epsilon", "rho_of_sigma",),
})

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
