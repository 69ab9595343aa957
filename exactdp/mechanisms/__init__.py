"""Mechanisms: exact privacy maps, and parameters that never underestimate.

Every parameter comes back as a :class:`Calibration` (or a result of its own kind) with the
exact value, or an enclosure of it, and the float on the safe side.

>>> from exactdp.mechanisms import laplace_scale
>>> c = laplace_scale("0.3", 1)
>>> c.exact, c.safe_float
(Fraction(10, 3), 3.3333333333333335)
"""

from exactdp.mechanisms.calibration._calibration import Calibration
from exactdp.mechanisms.accounting.accountant import AccountCheck, AccountResult, account
from exactdp.mechanisms.accounting.curve import PrivacyCurve
from exactdp.mechanisms.accounting.composition import (
    AdvancedComposition,
    advanced_composition,
    compose_sequential,
    compose_zcdp,
)
from exactdp.mechanisms.calibration.discrete import (
    DiscreteGaussianDelta,
    discrete_gaussian_delta,
    discrete_gaussian_rho,
    discrete_gaussian_sigma_squared,
    discrete_laplace_epsilon,
    discrete_laplace_pmf,
    discrete_laplace_scale,
    discrete_laplace_tail,
)
from exactdp.mechanisms.calibration.gaussian import (
    analytic_sigma,
    check_sigma,
    classic_sigma,
    delta_of_sigma,
)
from exactdp.mechanisms.distribution import (
    Distribution, Divergence, hockey_stick, pure_epsilon, renyi, total_variation,
)
from exactdp.mechanisms.calibration.gaussian import epsilon_of_sigma
from exactdp.mechanisms.calibration.laplace import laplace_epsilon, laplace_scale
from exactdp.mechanisms.mechanism import Mechanism, make_mechanism, mechanism_names
from exactdp.mechanisms.models.randomized_response import RandomizedResponse
from exactdp.mechanisms.models.noise import DiscreteGaussian, DiscreteLaplace, Gaussian, Laplace
from exactdp.mechanisms.models.samplers import (
    float_exponential_sampler_distribution, float_laplace_distribution,
    float_threshold_rr_distribution, grid_sampler_counts, grid_sampler_distribution,
)
from exactdp.mechanisms.models.selection import ExponentialMechanism, PermuteAndFlip
from exactdp.mechanisms.calibration.noise_choice import compare_noise, laplace_better_below
from exactdp.mechanisms.typical import (
    GaussianMixture, expected_sensitivity, height_mixture, sensitivity_sampler_guarantee,
    sensitivity_sampler_plan, true_epsilon,
)
from exactdp.mechanisms.calibration.utility import (
    discrete_gaussian_error, discrete_laplace_error, error_table, gaussian_error, laplace_error,
    noisy_mean_error,
)
from exactdp.mechanisms.accounting.ledger import BudgetExceeded, BudgetLedger, Spend
from exactdp.mechanisms.accounting.zcdp import epsilon_of_rho, rho_of_epsilon, rho_of_sigma

__all__ = [
    "Calibration", "AdvancedComposition", "advanced_composition", "compose_sequential",
    "compose_zcdp", "DiscreteGaussianDelta", "discrete_gaussian_delta", "discrete_gaussian_rho",
    "discrete_gaussian_sigma_squared", "discrete_laplace_epsilon", "discrete_laplace_pmf",
    "discrete_laplace_scale", "discrete_laplace_tail", "analytic_sigma", "check_sigma",
    "classic_sigma", "delta_of_sigma", "laplace_epsilon", "laplace_scale", "BudgetExceeded",
    "BudgetLedger", "Spend", "epsilon_of_rho", "rho_of_epsilon", "rho_of_sigma",
    "Distribution", "Divergence", "hockey_stick", "pure_epsilon", "renyi", "total_variation",
    "epsilon_of_sigma", "Mechanism", "make_mechanism", "mechanism_names", "RandomizedResponse",
    "DiscreteGaussian", "DiscreteLaplace", "Gaussian", "Laplace", "ExponentialMechanism",
    "PermuteAndFlip", "grid_sampler_counts", "grid_sampler_distribution",
    "float_threshold_rr_distribution", "float_exponential_sampler_distribution",
    "float_laplace_distribution", "compare_noise", "laplace_better_below",
    "AccountCheck", "AccountResult", "account", "PrivacyCurve",
    "GaussianMixture", "expected_sensitivity", "height_mixture", "sensitivity_sampler_guarantee",
    "sensitivity_sampler_plan", "true_epsilon", "discrete_gaussian_error", "discrete_laplace_error",
    "error_table", "gaussian_error", "laplace_error", "noisy_mean_error",
]
