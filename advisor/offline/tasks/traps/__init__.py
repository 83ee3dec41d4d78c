"""Trap checks: what an experienced engineer sees before the calculator's number becomes the verdict (a consumer
card for a regulated production service, a price far from the market). They run before the answer is worded and
lead it (``traps.lead``); the checks and thresholds are data (knowledge/trap_checks.yaml)."""
