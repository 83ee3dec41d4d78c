"""LLM serving-speed estimator: decode/prefill physics scaled by measured engine efficiencies."""
