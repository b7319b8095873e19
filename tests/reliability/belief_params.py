"""Parameters of the small LLM belief run used by the fault-injection suite."""

from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.llm_agents import make_params


def llm_belief_params() -> dict:
    config = BeliefConfig(agents=4, facts=5, true_facts=2, false_facts=1, bandwidth=2, rounds=3)
    return make_params(config, seed=1)
