# The public names of exactdp.mechanisms, for type checkers and for the lazy loader: exactdp._lazy reads
# this file at import to learn which module defines each name (one table, read by both).

from exactdp.mechanisms.calibration._calibration import (
    Calibration as Calibration,
)
from exactdp.mechanisms.accounting.accountant import (
    AccountCheck as AccountCheck,
    AccountResult as AccountResult,
    account as account,
)
from exactdp.mechanisms.accounting.curve import (
    PrivacyCurve as PrivacyCurve,
)
from exactdp.mechanisms.accounting.composition import (
    AdvancedComposition as AdvancedComposition,
    OptimalComposition as OptimalComposition,
    advanced_composition as advanced_composition,
    compose_optimal_exact as compose_optimal_exact,
    compose_sequential as compose_sequential,
    compose_zcdp as compose_zcdp,
    optimal_composition as optimal_composition,
    optimal_epsilon as optimal_epsilon,
)
from exactdp.mechanisms.calibration.discrete import (
    DiscreteGaussianDelta as DiscreteGaussianDelta,
    discrete_gaussian_delta as discrete_gaussian_delta,
    discrete_gaussian_rho as discrete_gaussian_rho,
    discrete_gaussian_sigma_squared as discrete_gaussian_sigma_squared,
    discrete_laplace_epsilon as discrete_laplace_epsilon,
    discrete_laplace_pmf as discrete_laplace_pmf,
    discrete_laplace_scale as discrete_laplace_scale,
    discrete_laplace_tail as discrete_laplace_tail,
)
from exactdp.mechanisms.calibration.gaussian import (
    analytic_sigma as analytic_sigma,
    check_sigma as check_sigma,
    classic_sigma as classic_sigma,
    delta_of_sigma as delta_of_sigma,
    epsilon_of_sigma as epsilon_of_sigma,
)
from exactdp.mechanisms.distribution import (
    Distribution as Distribution,
    Divergence as Divergence,
    hockey_stick as hockey_stick,
    pure_epsilon as pure_epsilon,
    renyi as renyi,
    total_variation as total_variation,
)
from exactdp.mechanisms.calibration.laplace import (
    laplace_epsilon as laplace_epsilon,
    laplace_scale as laplace_scale,
)
from exactdp.mechanisms.mechanism import (
    Mechanism as Mechanism,
    make_mechanism as make_mechanism,
    mechanism_names as mechanism_names,
)
from exactdp.mechanisms.models.randomized_response import (
    RandomizedResponse as RandomizedResponse,
)
from exactdp.mechanisms.models.noise import (
    DiscreteGaussian as DiscreteGaussian,
    DiscreteLaplace as DiscreteLaplace,
    Gaussian as Gaussian,
    Laplace as Laplace,
)
from exactdp.mechanisms.models.samplers import (
    float_exponential_sampler_distribution as float_exponential_sampler_distribution,
    float_laplace_distribution as float_laplace_distribution,
    float_threshold_rr_distribution as float_threshold_rr_distribution,
    grid_sampler_counts as grid_sampler_counts,
    grid_sampler_distribution as grid_sampler_distribution,
)
from exactdp.mechanisms.models.selection import (
    ExponentialMechanism as ExponentialMechanism,
    PermuteAndFlip as PermuteAndFlip,
)
from exactdp.mechanisms.calibration.noise_choice import (
    compare_noise as compare_noise,
    laplace_better_below as laplace_better_below,
)
from exactdp.mechanisms.calibration.typical import (
    GaussianMixture as GaussianMixture,
    expected_sensitivity as expected_sensitivity,
    sensitivity_sampler_guarantee as sensitivity_sampler_guarantee,
    sensitivity_sampler_plan as sensitivity_sampler_plan,
    true_epsilon as true_epsilon,
)
from exactdp.mechanisms.calibration.utility import (
    discrete_gaussian_error as discrete_gaussian_error,
    discrete_laplace_error as discrete_laplace_error,
    error_table as error_table,
    gaussian_error as gaussian_error,
    laplace_error as laplace_error,
    noisy_mean_error as noisy_mean_error,
)
from exactdp.mechanisms.accounting.ledger import (
    BudgetExceeded as BudgetExceeded,
    BudgetLedger as BudgetLedger,
    Spend as Spend,
)
from exactdp.mechanisms.accounting.zcdp import (
    epsilon_of_rho as epsilon_of_rho,
    rho_of_epsilon as rho_of_epsilon,
    rho_of_sigma as rho_of_sigma,
)

from exactdp.mechanisms.accounting.calibrate import (
    Calibrated as Calibrated,
    calibrate_dp_sgd as calibrate_dp_sgd,
)

__all__ = ['Calibrated', 'calibrate_dp_sgd', 'Calibration', 'AccountCheck', 'AccountResult', 'account', 'PrivacyCurve', 'AdvancedComposition', 'OptimalComposition', 'advanced_composition', 'compose_optimal_exact', 'compose_sequential', 'compose_zcdp', 'optimal_composition', 'optimal_epsilon', 'DiscreteGaussianDelta', 'discrete_gaussian_delta', 'discrete_gaussian_rho', 'discrete_gaussian_sigma_squared', 'discrete_laplace_epsilon', 'discrete_laplace_pmf', 'discrete_laplace_scale', 'discrete_laplace_tail', 'analytic_sigma', 'check_sigma', 'classic_sigma', 'delta_of_sigma', 'epsilon_of_sigma', 'Distribution', 'Divergence', 'hockey_stick', 'pure_epsilon', 'renyi', 'total_variation', 'laplace_epsilon', 'laplace_scale', 'Mechanism', 'make_mechanism', 'mechanism_names', 'RandomizedResponse', 'DiscreteGaussian', 'DiscreteLaplace', 'Gaussian', 'Laplace', 'float_exponential_sampler_distribution', 'float_laplace_distribution', 'float_threshold_rr_distribution', 'grid_sampler_counts', 'grid_sampler_distribution', 'ExponentialMechanism', 'PermuteAndFlip', 'compare_noise', 'laplace_better_below', 'GaussianMixture', 'expected_sensitivity', 'sensitivity_sampler_guarantee', 'sensitivity_sampler_plan', 'true_epsilon', 'discrete_gaussian_error', 'discrete_laplace_error', 'error_table', 'gaussian_error', 'laplace_error', 'noisy_mean_error', 'BudgetExceeded', 'BudgetLedger', 'Spend', 'epsilon_of_rho', 'rho_of_epsilon', 'rho_of_sigma']
