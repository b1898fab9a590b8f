"""Generation kwargs as tasks write them, translated for transformers' generate (no torch needed)."""

from __future__ import annotations

import pytest

from harness_models.hf.generation import cut_at_stop, plan_generation


def test_greedy_is_the_default_and_sampling_knobs_are_dropped_when_greedy():
    plan = plan_generation({"temperature": 0, "top_p": 0.9}, {})
    assert plan.kwargs == {"max_new_tokens": 256, "do_sample": False}


def test_temperature_turns_sampling_on_and_keeps_its_knobs():
    plan = plan_generation({"temperature": 0.7, "top_p": 0.95, "max_gen_toks": 32}, {})
    assert plan.kwargs == {"max_new_tokens": 32, "do_sample": True, "temperature": 0.7, "top_p": 0.95}


def test_task_kwargs_override_preset_defaults():
    plan = plan_generation({"max_new_tokens": 8}, {"max_new_tokens": 256})
    assert plan.kwargs["max_new_tokens"] == 8


def test_n_samples_and_stop_strings():
    plan = plan_generation({"temperature": 1.0, "n": 5, "until": ["\n\n", "Question:"]}, {})
    assert plan.num_samples == 5 and plan.kwargs["num_return_sequences"] == 5
    assert cut_at_stop("B) red\n\nQuestion: next", plan.stop) == "B) red"
    assert cut_at_stop("no stop here", plan.stop) == "no stop here"


def test_n_greater_than_one_with_greedy_decoding_is_refused():
    with pytest.raises(ValueError, match="n=2"):
        plan_generation({"n": 2}, {})
