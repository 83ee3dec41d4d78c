"""What the answers read from the conversation's slot frame, named the way the tools take it.

The frame holds what the user stated (see ``advisor.nlu``); this view turns it into
tool-ready values and records which slots an answer used, so the planner can name every stated
value that did not reach a tool instead of silently dropping it.
"""

from __future__ import annotations

import math
from pathlib import Path

from advisor.nlu.entity_words import weights_multiple
from advisor.nlu.number_values import SECONDS_PER
from advisor.nlu.frame import CONDITIONS, Frame, Money, RequestRate
from advisor.nlu.slot_schema import SLOT_SCHEMA, SlotSchema
from advisor.nlu.tco_said import RequestCount
from advisor.offline.tasks.serving.serving_traffic import TrafficLoad, period_of, said_online, said_per_user, traffic_load, volume_unit
from knowledge.audience import ONLINE, PeakLoad, peak_load
from knowledge.wording import Wording

TURN_TEXT = Wording(Path(__file__).with_name("turn_text.yaml"))

METHOD_TO_WORKLOAD = {
    "inference": "inference", "lora": "lora", "qlora": "qlora", "full_finetune": "full_finetune",
    "pretrain": "pretrain", "finetune": "finetune", "train": "train",
}  # fmt: skip


# traffic over a period, by the unit the reader kept it in, or the audience's period words (knowledge/audience.yaml)
TRAFFIC_PERIODS = {"requests/day": "requests_per_day", "requests/month": "requests_per_month"}
AUDIENCE_TRAFFIC = {"daily": "daily_users", "monthly": "monthly_users"}

CALCULATED_CURRENCIES = ("USD", "CNY")  # the calculators' currencies; no exchange rate is kept for any other


class Slots:
    def __init__(self, frame: Frame):
        self.frame = frame
        self.used: set[str] = set()
        self.unusable: dict[str, tuple[str, str]] = {}  # slot → why no tool could take it (English, Chinese)
        self.load_from_headcount = ""  # the headcount a load was taken from, when no load was stated
        self.peak_load: PeakLoad | TrafficLoad | None = None  # how that load was taken from it
        self.said = ""  # the user's messages, for the words around a stated load (Turn sets it)
        self.fresh: Frame | None = None  # what the latest message alone states (Turn sets it)
        self.requests_said: RequestCount | None = None  # a count of requests with no period (Turn sets it from the Ask)
        self.tokens_said: float | None = None  # tokens a day said as a volume (Turn sets it from the Ask)
        # a figure each user holds ("the KV cache for 8 users"): the worst case is every one of a headcount at once, not the peak share
        self.every_user = False

    def _get(self, slot: str, default=None):
        if self.frame.has(slot):
            self.used.add(slot)
        return self.frame.get(slot, default)

    def _money(self, slot: str) -> Money | None:
        value = self.frame.get(slot)
        if isinstance(value, Money) and value.currency not in CALCULATED_CURRENCIES:
            self.unusable[slot] = TURN_TEXT.both("currency_not_calculated", currency=value.currency)
            return None
        return self._get(slot)

    def _all(self, slot: str) -> list:
        if self.frame.has(slot):
            self.used.add(slot)
        return self.frame.all(slot)

    def _each(self, slot: str) -> list:
        """Every value of the slot once, in the order given (a card named twice is one card)."""
        return list(dict.fromkeys(self._all(slot)))

    def mark(self, *slots: str) -> None:
        self.used.update(s for s in slots if self.frame.has(s))

    # A slot read as it is stated (``slots.precision``, ``slots.gpu_count``, ``slots.budget``…) is a property made from its
    # row in advisor/nlu/data/schema.yaml (``read_as``, ``read``) below the class; the properties here read more than that.

    # workload
    @property
    def workloads(self) -> list[str]:
        return [METHOD_TO_WORKLOAD[m] for m in self._all("method") if m in METHOD_TO_WORKLOAD]

    @property
    def offload(self) -> bool:
        return "offload" in self._all("sharding")

    # sizes and counts
    @property
    def request_rate(self) -> RequestRate | None:
        """A load stated as a rate ("50 QPS", "3000 requests per minute"): requests arriving, not requests in flight. Traffic over
        a day or a month ("3M requests a month", "50k daily actives") is the rate of its busiest hour (tools/serving/traffic.py)."""
        stated = self.frame.get("concurrency")
        traffic = self.traffic
        if traffic is not None:
            return RequestRate(traffic.per_second)
        if not isinstance(stated, RequestRate):
            return None
        self.used.add("concurrency")
        return stated

    def _period_audience(self):
        """The stated daily or monthly users ("10k DAU", "200k monthly actives"), if any."""
        headcount = next((v for v in self.frame.slots.get("audience", []) if isinstance(v.value, int | float)), None)
        return headcount if headcount is not None and period_of(self.said, headcount.surface) in AUDIENCE_TRAFFIC else None

    @property
    def traffic(self) -> TrafficLoad | None:
        """Daily or monthly users, or a request volume a day or a month, converted to the peak (said as an assumption)."""
        stated = self.frame.get("concurrency")
        if self.fresh is not None and self.fresh.has("audience") and not self.fresh.has("concurrency"):
            stated = None  # "what if it were 20k daily actives?" after a request volume: the users said now are the load
        if isinstance(stated, RequestRate) and stated.unit in TRAFFIC_PERIODS:
            self.used.add("concurrency")
            surface = next((v.surface for v in self.frame.slots.get("concurrency", []) if isinstance(v.value, RequestRate)), "")
            amount = stated.per_second * SECONDS_PER[stated.unit.split("/")[1]]
            users = self._period_audience()
            if users is not None and said_per_user(self.said, surface):  # "what if each user sends 30 a day?" after "10k DAU"
                per_day = stated.per_second * SECONDS_PER["day"]
                self.used.add("audience")
                self.peak_load = traffic_load(users.value, AUDIENCE_TRAFFIC[period_of(self.said, users.surface)], users.surface, per_day)
                return self.peak_load
            self.peak_load = traffic_load(amount, TRAFFIC_PERIODS[stated.unit], surface or f"{amount:,.0f}", volume_unit=volume_unit(surface))
            return self.peak_load
        if stated is not None:  # a count in flight, or sessions online at once (``concurrency`` reads those)
            return None
        headcount = self._period_audience()
        if headcount is None and self.requests_said is not None:  # "10,000 requests" with no period: a month's, said in the chain
            self.peak_load = traffic_load(self.requests_said.count, "requests_per_month", self.requests_said.said, period_assumed=True)
            return self.peak_load
        if headcount is None and self.tokens_said is not None:  # "5M tokens a day": requests of the default size
            said = next((v.surface for v in self.frame.slots.get("training_tokens", [])), "")
            self.used.add("training_tokens")
            self.peak_load = traffic_load(self.tokens_said, "requests_per_day", said or f"{self.tokens_said:,.0f}", volume_unit="tokens")
            return self.peak_load
        if headcount is None:
            return None
        kind = period_of(self.said, headcount.surface)
        self.used.add("audience")
        self.load_from_headcount = headcount.surface
        self.peak_load = traffic_load(headcount.value, AUDIENCE_TRAFFIC[kind], headcount.surface)
        return self.peak_load

    @property
    def concurrency(self) -> int | None:
        """The stated load in flight, else the peak share of a headcount ("for twenty-odd developers", "500 daily users";
        knowledge/audience.yaml). A stated rate is no count in flight: ``request_rate`` reads it."""
        traffic = self.traffic
        if traffic is not None:  # "20k daily users", "1M requests a day": the sequences in flight at the peak, not all at once
            return traffic.concurrent
        stated = self._get("concurrency")
        if isinstance(stated, RequestRate):
            return None
        online = self._online_sessions(stated)
        if online is not None:  # "500 people online at the busiest hour": open sessions, a share of them generating at once
            self.peak_load = peak_load(stated, online, ONLINE)
            return self.peak_load.concurrent
        headcount = next((v for v in self.frame.slots.get("audience", []) if isinstance(v.value, int | float)), None)
        if stated is not None or headcount is None:
            return stated
        self.used.add("audience")
        self.load_from_headcount = headcount.surface
        if self.every_user:
            self.peak_load = None
            return max(1, int(round(headcount.value)))
        self.peak_load = peak_load(headcount.value, headcount.surface)  # an audience is not all there at once
        return self.peak_load.concurrent

    def _online_sessions(self, stated) -> str | None:
        """The words of a count said as users online at once ("200 online at the peak"), else None: such users are sessions, not
        sequences in flight, so the answer sizes for the share of them generating at once (knowledge/audience.yaml)."""
        if not isinstance(stated, int | float) or isinstance(stated, bool):
            return None
        value = next((v for v in self.frame.slots.get("concurrency", []) if v.value == stated), None)
        return value.surface if value is not None and said_online(self.said, value.surface) else None

    @property
    def parallel_gpus(self) -> int | None:
        """GPUs a stated parallel layout spans: TP × PP × DP ("tp=8 pp=4 dp=16" is 512)."""
        degrees = [d for d in (self.tp, self.pp, self.dp) if d]
        return math.prod(degrees) if len(degrees) >= 2 or self.dp else None

    @property
    def deadline_hours(self) -> float | None:
        value = self._get("deadline")
        return value if isinstance(value, float) else None

    # money and time
    @property
    def hourly_price(self) -> Money | None:
        price = self._money("cloud_price")
        return price if isinstance(price, Money) else None

    @property
    def api_price(self) -> Money | None:
        """An API's price per million tokens the user stated ("$0.5 per million tokens")."""
        price = self._money("api_price")
        return price if isinstance(price, Money) else None

    @property
    def mfu(self) -> float | None:
        """The MFU the user gave, as a fraction ("40% MFU" is 0.4)."""
        share = self._get("mfu")
        return share / 100 if isinstance(share, float) else None

    @property
    def horizon_years(self) -> float | None:
        value = self._get("horizon")
        return value if isinstance(value, float) else None

    @property
    def objective(self) -> str | None:
        """The ranking the user asked for; "data-center cards only" and "buyable in China" are filters, not rankings."""
        return next((o for o in self._all("objective") if o not in CONDITIONS), None)

    def keeps_to(self, condition: str) -> bool:
        """Whether the user limited the options: "datacenter_only", "china_buyable" or "domestic"."""
        return condition in self._all("objective")

    @property
    def for_a_team(self) -> bool:
        if "team" not in self.frame.all("audience"):
            return False
        self.used.add("audience")
        return True

    @property
    def quotes_rule_of_thumb(self) -> bool:
        return self._get("claim") is not None

    @property
    def claimed_bytes_per_parameter(self) -> float | None:
        """The figure of the quoted rule ("16 bytes per parameter": 16); None when the rule was named without one."""
        claim = self._get("claim")
        return float(claim) if isinstance(claim, (int, float)) else None

    @property
    def claimed_weights_multiple(self) -> float | None:
        """The multiple of a rule that scales the weights ("1.2x the weights": 1.2), else None."""
        return weights_multiple(self._get("claim"))


def _stated(slot: str, how: str) -> property:
    """The property that reads ``slot`` as it was stated, marking it used: its first value, every value once in order
    ("each"), or an amount in a currency the calculators take ("money")."""
    method = {"one": "_get", "each": "_each", "money": "_money"}[how]
    return property(lambda self: getattr(self, method)(slot), doc=f"The stated {slot} (advisor/nlu/data/schema.yaml, read: {how}).")


def read_by_schema(view: type[Slots], schema: SlotSchema) -> None:
    """Give ``view`` a property for each slot the schema reads as it is stated (its ``read_as``)."""
    for name, (slot, how) in schema.readers.items():
        if hasattr(view, name):
            raise TypeError(f"schema.yaml: slot {slot} is read as Slots.{name}, which the class already defines")
        setattr(view, name, _stated(slot, how))


read_by_schema(Slots, SLOT_SCHEMA)
