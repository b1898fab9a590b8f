"""Registers the baseline models (lazily, by reference)."""

from harness.hookspecs import hookimpl


@hookimpl
def register_models(register):
    register(
        "random",
        "harness_models.baselines.random_model:RandomModel",
        "seeded, uniform over the task's declared answer space (chance level)",
    )
    register(
        "prior",
        "harness_models.baselines.prior_model:PriorModel",
        "blind: the most frequent training-split answer per question family",
    )
    register(
        "oracle",
        "harness_models.baselines.oracle_model:OracleModel",
        "returns the target: proves a task's pipeline scores 100 %",
    )
