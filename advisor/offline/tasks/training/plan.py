"""The training task's plan: what a message asks (an MFU to judge, two cards to compare for training speed, a cut
in cards to check, a run to time: its tokens, epochs and rent) and the arguments of the tools that answer it. No wording; the sentences are render.py's."""

from __future__ import annotations

from advisor.nlu.subjects import Subjects
from advisor.offline.tasks.specs import compare
from advisor.markdown import money, number
from advisor.offline.tasks.facility import plan as facility_plan
from advisor.offline.tasks.specs.compare_view import PEFT
from advisor.offline.tasks.tco import plan as tco_plan
from advisor.offline.turn import Turn
from advisor.offline.wording import Wording
from knowledge.bilingual import Text
from knowledge.facility import Tariff, shipped_facility_data
from tools.cost.mfu_verdict import MfuJudgementRequest

RUN_TIME = Wording("training", "run_time")  # the assumptions a training run's reading makes
ONE_SERVER = 8  # without a count, an MFU is judged on one 8-GPU server, and the answer says so
# The run both cards are timed on. Time is FLOPs / (GPUs × peak × MFU), so the ratio does not depend on it, as
# long as both sit in the same MFU row (up to 8,192 GPUs of one class).
REFERENCE_PARAMS_B = 70
REFERENCE_TOKENS = 1e12
REFERENCE_GPUS = 8  # one standard server, when the user named no count
FP4 = "fp4"
FP4_FORMATS = frozenset({FP4, "nvfp4", "mxfp4"})  # the block-scaled FP4 formats count as FP4 wherever FP4 is asked
# A training run timed and priced (run_time.py)
QUARTER_DAYS = 90  # a run longer than this is told how many cards would finish it within the quarter
CHINCHILLA_TOKENS_PER_PARAM = 20  # Hoffmann et al. 2022 compute-optimal ratio
FULL_TRAINING = {"pretrain", "train", "full_finetune", "finetune"}
FINE_TUNING = {"full_finetune", "finetune", *PEFT}
FINE_TUNE_TOKENS = 1e8  # a round amount to scale from when a fine-tune's data set is not given
# one sample's tokens when only a count of samples is said ("50k samples"): an assumption the answer states in its lead
# for the user to correct (a chat or instruction sample of a few turns), not a measured figure
SAMPLE_TOKENS = 1024
SAMPLE_TOKENS_DATE = "2026-12-07"  # when the assumption was set (no published average stands behind it; the answer says so)


def judges_mfu(turn: Turn, asked: Subjects) -> bool:
    """The question states an MFU and the GPU it was measured on, both usable ("MFU 0.0 on 1e-300 A100s" is
    left to the answers that explain why such figures cannot be computed)."""
    mfu, count = turn.slots.mfu, turn.slots.gpu_count
    usable = mfu is not None and 0 < mfu < 1 and (count is None or (count >= 1 and float(count).is_integer()))
    return "mfu" in asked.get("topic", ()) and usable and bool(turn.slots.gpus)


def mfu_count(turn: Turn) -> int:
    """The GPUs the stated MFU was measured on: the stated count, else one server."""
    return turn.slots.gpu_count or ONE_SERVER


def mfu_request(turn: Turn) -> MfuJudgementRequest:
    return MfuJudgementRequest(mfu=turn.slots.mfu, gpu=turn.slots.gpus[0], num_gpus=mfu_count(turn))


def compares_speed(turn: Turn) -> bool:
    """Two or more cards named and no model: the question is the cards' speed, not a run's."""
    return turn.model_reference() is None and len(compare.options(turn)) >= 2


def speed_count(turn: Turn, pairs: list[tuple[str, int | None]]) -> int:
    """The GPUs both cards are timed at: a count said with either card, else the stated count, else one server."""
    return next((c for _, c in pairs[:2] if c), None) or turn.slots.gpu_count or REFERENCE_GPUS


def speed_args(turn: Turn, gpu: str, count: int, precision: str) -> dict:
    """estimate_training_time's arguments for the reference run on ``count`` of ``gpu``."""
    return {"params_b": REFERENCE_PARAMS_B, "tokens": REFERENCE_TOKENS, "gpu": gpu, "num_gpus": count, "precision": precision, "mfu": turn.slots.mfu}


def speed_precision(turn: Turn, new, old) -> str:
    """FP8 when asked for (or FP4, which the estimator does not time) and both cards have it; BF16 otherwise."""
    said = set(turn.slots.frame.all("precision"))
    if said & {"fp8", *FP4_FORMATS} and new.fp8_tflops and old.fp8_tflops:
        return "fp8"
    return "bf16"


def card_cut(turn: Turn) -> tuple[str, float] | None:
    """A quoted cut in cards ("half the cards") and the speed factor it needs, as the NLU read it."""
    return turn.ask.card_cut


def hourly_price(turn: Turn, currency: str, gpus: int) -> float | None:
    """The rental price per GPU-hour; a monthly or yearly bill ("over 400k a month") is spread over its
    hours and, unless it was said per card, over the GPUs, and the answer says so."""
    price = turn.slots.hourly_price
    amount = tco_plan.in_currency(price, currency)
    if price is None or amount is None or price.per not in tco_plan.PERIOD_HOURS:
        return amount
    cards = 1 if turn.ask.price_per_card else gpus
    hourly = amount / tco_plan.PERIOD_HOURS[price.per] / cards
    period = RUN_TIME.text("hourly_price.a_month" if price.per == "month" else "hourly_price.a_year")
    whole = RUN_TIME.text("hourly_price.for_gpus", cards=cards) if cards > 1 else Text(en="", zh="")
    turn.assume(*RUN_TIME.both("lines.bill_per_gpu_hour", amount=money(amount, currency), period=period, whole=whole,
                              hourly=money(hourly, currency), hours=f"{tco_plan.PERIOD_HOURS[price.per]:g}"))
    return hourly


def asks_run_bill(turn: Turn) -> bool:
    """"and the power bill?" after a run's time: the electricity of that run (its energy at a price per kWh), not a
    server's yearly bill."""
    return turn.reading.follow_up and facility_plan.bill_asked(turn)


def bill_tariff(turn: Turn, currency: str) -> Tariff | None:
    """The published tariff a run's energy is priced at when its bill is asked and no price per kWh was stated (the
    region's industrial tariff the site plans use); None otherwise."""
    if not asks_run_bill(turn) or turn.slots.power_price is not None:
        return None
    return shipped_facility_data().tariff(turn.slots.region, currency)


def over_budget(cost_low: float, cost_high: float, budget: float) -> str:
    """Where a run's cost (a band) stands against a budget: "fits" (all of it within), "over" (all of it above), "partly"."""
    return "fits" if cost_high <= budget else "over" if cost_low > budget else "partly"


def data_tokens(turn: Turn) -> tuple[float | None, str | None]:
    """The training data in tokens and how it was read: "samples" (a sample count times the length stated beside it),
    "samples_assumed" (times SAMPLE_TOKENS), "given" (tokens stated), None when no data was said. A slot that took the
    sample count or the sample's length for the data's tokens ("50k samples" read as 51,200 tokens) is not a token total."""
    said, tokens = turn.ask.samples, turn.slots.tokens
    if said is None:
        return tokens, None if tokens is None else "given"
    if tokens is not None and not any(abs(tokens - misread) < 1 for misread in said.misreadings()):
        return tokens, "given"
    return said.count * (said.length_tokens or SAMPLE_TOKENS), "samples" if said.length_tokens else "samples_assumed"


def tokens_seen(turn: Turn) -> float | None:
    """The tokens the run processes: the training data times its epochs ("40M tokens x 3 epochs")."""
    tokens, epochs = data_tokens(turn)[0], turn.slots.frame.get("epochs")
    if epochs is None:
        return tokens
    if tokens is None:
        turn.ignore("epochs", *RUN_TIME.pair("tokens_seen.epochs_multiply_the_training_data"))
        return None
    turn.slots.mark("epochs")
    total = tokens * epochs
    turn.assume(*RUN_TIME.both("tokens_seen.m_tokens_processed_m_epochs", total_millions=number(total / 1e6), tokens_millions=number(tokens / 1e6), epochs=number(epochs)))
    return total
