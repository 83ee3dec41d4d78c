"""Which answer a message gets, as data: ``routes.yaml`` lists the task handlers and the routes in order of
precedence; this module holds the named conditions and handlers the table refers to, and runs the table.

A route's conditions are checked in the table's order and stop at the first that fails, so each condition is
evaluated exactly where the former if-chain evaluated it (some read slots, which marks them used).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, model_validator

from advisor.contract import ToolCall
from advisor.registry import ToolOutcome
from advisor.markdown import number
from advisor.nlu.ask import Ask
from advisor.nlu.dialogue import only_values, restated_question
from advisor.nlu.facets import SPECS
from advisor.nlu.frame import Frame
from advisor.nlu.pipeline import PIPELINE
from advisor.nlu.reader import Understanding
from advisor.nlu.reading import Reading
from advisor.nlu.subjects import TOKEN_RATE, VARIANT_CHOICE, subjects_of, uncatalogued_gpus, variant_card
from advisor.offline.tasks.concept import capability, compliance, equivalent, knowledge, precision_decision
from advisor.offline.tasks.concept import plan as concept_plan
from advisor.offline.tasks.dialogue import new_subject, setup_question
from advisor.offline.tasks.dialogue import plan as dialogue_plan
from advisor.offline.tasks.dialogue import render as dialogue_render
from advisor.offline.tasks.facility import colocation_rate, facility
from advisor.offline.tasks.facility import plan as facility_plan
from advisor.offline.tasks.memory import runnable, sizing
from advisor.offline.tasks.recommend import recommend
from advisor.offline.tasks.recommend import claim_view, premium_view, shortlist, vendor_rows
from advisor.offline.tasks.recommend import plan as recommend_plan
from advisor.offline.tasks.serving import plan as serving_plan
from advisor.offline.tasks.serving import serving
from advisor.offline.tasks.specs import compare, gap_view, specs
from advisor.offline.tasks.tco import costs, price_trend, rent_tiers, reservation, useful_life
from advisor.offline.tasks.tco import plan as tco_plan
from advisor.offline.tasks.training import efficiency, run_time
from advisor.offline.tasks.training import plan as training_plan
from advisor.offline.tasks.troubleshoot import trouble
from advisor.retrieval.concept_cards import CARD_PREFIX
from knowledge.concepts import load_concepts
from advisor.offline.takeovers import ROUTES_FILE, Section, TakeOver, TakeOvers, all_hold, gathered, routes_data, unknown_conditions
from advisor.offline.workload import model_of
from advisor.offline.turn import Turn
from knowledge.subjects import load_subjects, topics_computed_by
from knowledge.wording import Wording

NO_TASK = "none"  # how the table writes "no task"
VENDOR_CLAIM = "vendor_claim"  # the facet of a vendor's multiple (advisor/nlu/data/facets.yaml)
STRATEGY = "strategy"  # the facet of what to do: buy, wait, self-host (advisor/nlu/data/facets.yaml)
# Below this the classifier is guessing: a knowledge answer plus the closest calculator is safer
# than a confident table for a question that was not asked (both thresholds declared in nlu/pipeline.yaml).
MIN_CONFIDENCE = PIPELINE.classify.min_confidence
CALCULATION_MASS = PIPELINE.classify.calculation_mass
GUARDED = ("injection", "out_of_scope", "greeting")
GUARD_CONFIDENCE = PIPELINE.classify.guard_confidence  # below this a refusal, an off-topic reply or a greeting gives way
OUT_OF_SCOPE_FLOOR = PIPELINE.classify.out_of_scope_floor  # at or above this an unsure message is off-topic, not a card's
# threads whose own answer computes no serving latency: a latency complaint on them is answered by the serving estimate
# (serving_speed answers it itself; recommend, tco, training and facility questions keep their own answers)
LATENCY_COMPLAINT_TASKS = (None, "troubleshoot", "concept", "specs", "memory", "max_fit")
WORDING = Wording(Path(__file__).with_name("planner_text.yaml"))
WHERE_FROM = WORDING.pair("where_from")
HARDWARE_SLOTS = {"gpu", "gpu_count", "server_count", "gpus_per_server"}
INFERENCE = "inference"  # the method value of serving (nlu/data/entities.yaml method)
SHORT_FOLLOW_UP = PIPELINE.continue_thread.short_chars


@dataclass
class Routing:
    """One message on its way through the table: the turn, the task as redirected so far, and the reader (some
    routes read an earlier message of the thread again)."""

    turn: Turn
    task: str | None
    understanding: Understanding
    taken: list[str] = field(default_factory=list)
    previous: list[ToolCall] = field(default_factory=list)  # the tool calls behind the last answer, when the client sends them back

    @property
    def reading(self) -> Reading:
        return self.turn.reading


Condition = Callable[[Routing], bool]
Handler = Callable[[Routing], str]
TaskHandler = Callable[[Turn], str]

# ---- the task handlers: each task's own answer; the smaller writers that answer its question another way are the rows
# of routes.yaml take_overs.<task>, run before it (TASKS below) with the words the packages give ----
TASK_ANSWERS: dict[str, TaskHandler] = {
    "recommend": recommend.recommend,
    "memory": sizing.memory,
    "max_fit": sizing.memory,  # "what can I run on two 3090s?" names no model: take_overs.max_fit lists the largest that fit
    "specs": specs.answer,
    "serving_speed": serving.answer,
    "training_time": run_time.training_time,
    "tco": costs.rent_or_buy,
    "troubleshoot": trouble.answer,
    "facility": facility.answer,
}
# The words routes.yaml take_overs.<task> may use (the order and the pairing are the table's).
TAKE_OVER_CONDITIONS = gathered(
    capability.TAKE_OVER_CONDITIONS, serving.TAKE_OVER_CONDITIONS, costs.TAKE_OVER_CONDITIONS,
    {"names_model": lambda turn: bool(model_of(turn))},
)
TAKE_OVER_WRITERS = gathered(
    capability.TAKE_OVER_WRITERS, serving.TAKE_OVER_WRITERS, costs.TAKE_OVER_WRITERS,
    {"runnable_models": lambda turn: runnable.answer(turn) or None},
)


def _registers_in(names: dict) -> Callable:
    """A decorator that lists a function in ``names`` under its own name, the name routes.yaml uses."""

    def register(function: Callable) -> Callable:
        names[function.__name__] = function
        return function

    return register


# ---- the conditions a route may name (besides the Ask's yes/no fields) ----
CONDITIONS: dict[str, Condition] = {}
condition = _registers_in(CONDITIONS)


@condition
def unreadable(routing: Routing) -> bool:
    return dialogue_plan.unreadable_kind(routing.turn) is not None


@condition
def leans_out_of_scope(routing: Routing) -> bool:
    """"is mining with six 3080s still profitable?": the classifier gives off-topic a share at or above the declared floor
    and is not sure of a calculation that outweighs it: the out-of-scope reply, not a card matched by one of its words."""
    reading = routing.reading
    off = reading.probabilities.get("out_of_scope", 0.0)
    if off < OUT_OF_SCOPE_FLOOR:
        return False
    return not (reading.intent in TASKS and reading.confidence >= max(off, MIN_CONFIDENCE))


@condition
def in_scope_by_construction(routing: Routing) -> bool:
    """What the advisor is about, whatever share the classifier gives off-topic: a message that names a model, an
    accelerator vendor ("NVIDIA's closest part to the 910B?") or a catalog GPU beside a side of it the advisor answers
    (serving, an engine, a precision, porting...), or that continues a thread ("so owning wins here, correct?" after a
    rent-or-buy answer), is answered, never sent to the out-of-scope reply by the floor. A GPU named alone is what the
    off-topic requests near the advisor name too (mining income on 3080s, a 4080's frame rate): the floor still judges those."""
    ask, reading = routing.turn.ask, routing.reading
    in_thread = reading.follow_up or ask.thread_messages > 1
    return in_thread or bool(ask.vendors_named) or names_model(routing) or bool(set(ask.named) - {"gpu"})


@condition
def decides_precision(routing: Routing) -> bool:
    """"is FP8 safe for our fine-tune?": whether a named precision can be trusted is the decision asked (Ask.decision)."""
    return routing.turn.ask.decision == "precision_safe"


@condition
def card_judges(routing: Routing) -> bool:
    """A card surely answers the judgement asked of the parts named (concept plan.judging_card)."""
    return concept_plan.judging_card(routing.turn) is not None


@condition
def weighs_named_parts(routing: Routing) -> bool:
    """"Is one MI300X enough for a 70B, or are two H100s the safer bet?", "L40S or A100, which for inference?": two or more
    catalog cards named and a choice between them asked (a judgement, or the user's own options to pick from)."""
    ask = routing.turn.ask
    if len(ask.named.get("gpu", ())) < 2 or uncatalogued_gpus(ask.named, routing.turn.catalog):
        return False
    return ask.asks_judgement or ask.weighs_shortlist


@condition
def asks_what_to_do(routing: Routing) -> bool:
    """The side asked is what to do ("worth buying?", "wait or buy now?": the strategy facet, nlu/data/facets.yaml),
    which between named cards is the comparison's value verdict unless a card on those cards says it."""
    return routing.reading.facet.name == STRATEGY


@condition
def card_on_named_parts(routing: Routing) -> bool:
    """A card about every part named covers what is asked of them (concept plan.card_on_parts): that card may answer;
    a card matched by one word, about none of them, may not."""
    return concept_plan.card_on_parts(routing.turn) is not None


@condition
def card_shows_how(routing: Routing) -> bool:
    """A card on the platform named and the side asked (serving on the 910B) says how to do it, whatever the model named."""
    return concept_plan.judging_card(routing.turn, model_too=True) is not None


@condition
def catalog_decides_capability(routing: Routing) -> bool:
    """"can the V100 run BF16?", "does the L40S do FP8?": a capability the named card has or
    lacks, asked of the card itself (no other facet such as answer quality): the catalog computes the verdict
    (check_capability), so no card stands in for it."""
    found = capability.asked(routing.turn)
    return found is not None and found[0].kind == "presence" and routing.reading.facet.name == SPECS


@condition
def sure_concept(routing: Routing) -> bool:
    """The classifier is sure the message is a concept question (a guess under the confidence floor is not)."""
    return routing.reading.intent == "concept" and routing.reading.confidence >= MIN_CONFIDENCE


@condition
def quotes_card_cut(routing: Routing) -> bool:
    """"finance wants to halve the cards": a cut in cards quoted beside the parts, which the speed ratio must carry (a
    calculation on the two cards, not a card's judgement)."""
    return routing.turn.ask.card_cut is not None


@condition
def claims_between_parts(routing: Routing) -> bool:
    # a claim resting on one capability ("the H100 runs FP4 5x faster") is checked on that capability first
    return recommend_plan.claims_between_parts(routing.turn) and not capability.claims_a_capability(routing.turn)


@condition
def claim_far_beyond_figures(routing: Routing) -> bool:
    return recommend_plan.claim_far_beyond_figures(routing.turn)


@condition
def checks_observed_speed(routing: Routing) -> bool:
    return serving_plan.checks_observed_speed(routing.turn)


@condition
def asks_for_cost_line(routing: Routing) -> bool:
    return bool(tco_plan.asked_for_line(routing.turn))


@condition
def asks_colocation_rate(routing: Routing) -> bool:
    """"colo cost per kW in Virginia / in Shanghai?": a colocation rate asked on its own for a region the data lists."""
    return facility_plan.colocation_region(routing.turn) is not None


@condition
def asks_compliance(routing: Routing) -> bool:
    named = routing.turn.ask.named
    return compliance.asks_compliance(named) or (compliance.asks_remote_use(named) and routing.reading.facet.name == "compliance")


@condition
def asks_equivalent_part(routing: Routing) -> bool:
    """A stand-in from another vendor's side is asked for a named card, and every part named has a catalog row
    ("can the Cambricon 590 stand in for an A100?" names a part without one: its card answers)."""
    return not uncatalogued_gpus(routing.turn.ask.named, routing.turn.catalog) and concept_plan.asks_equivalent(routing.turn)


@condition
def names_uncatalogued_part(routing: Routing) -> bool:
    """"Cambricon 590 vs 910B?": a part with no catalog row gets its card, not a spec sheet missing it."""
    return bool(uncatalogued_gpus(routing.turn.ask.named, routing.turn.catalog))


@condition
def asks_another_facet(routing: Routing) -> bool:
    """The message asks a side of its subject that the calculation it reads as would miss: the facet takes that
    task over ("is the 910B mature enough to train on?" is no spec sheet), or a follow-up that states no values of
    its own asks a new side of the thread ("can this go in a normal server room?" after a sizing)."""
    reading, task = routing.reading, routing.task
    if task == "memory" and _sizes_the_stated_memory(routing):  # "my 4090 modded to 48gb: does a 32B fit?": the fit, in the memory said
        return False
    if task == "specs" and routing.turn.ask.figures_stated:  # "the vendor says the B200 is 192 GB, right?": the figure is checked on the sheet
        return False
    if _names_computed_topic(routing):  # "cost per million tokens on our H100s vs an API?": the API is a side of the sum
        return False
    if reading.facet.overrides("troubleshoot" if reading.intent == "troubleshoot" else task):
        # "4090D or 4090, which should I buy?": a choice between the cards named is the comparison, with its verdict
        return not (reading.facet.yields_to_choice and len(set(routing.turn.entities.gpus)) > 1)
    # a troubleshooting thread gathers facts ("the room runs hot"): they go on into the diagnosis
    return reading.follow_up and task in TASKS and task != "troubleshoot" and reading.facet.name != SPECS and not reading.frame.names()


def _names_computed_topic(routing: Routing) -> bool:
    """The message names a topic the task's calculation works out (knowledge/subjects.yaml ``computed_by``): a facet cue
    beside it is a side of that calculation, not another question."""
    return bool(topics_computed_by(routing.task) & set(routing.turn.ask.named.get("topic", ())))


def _sizes_the_stated_memory(routing: Routing) -> bool:
    """Whether a named model fits on a card whose memory the message states (a modified 48 GB 4090): the sizing checks
    it against the memory said, which no card on the modified part answers ("are modded 4090s ok for a 70B?" still gets the card)."""
    turn = routing.turn
    return turn.ask.asks_if_fits and bool(turn.entities.models or turn.entities.params) and routing.reading.frame.has("gpu_memory")


@condition
def weighs_technique_in_thread(routing: Routing) -> bool:
    """"would prefix caching help here?" after a serving answer: a technique weighed for the thread's calculation, with no
    value to re-run it with ("with TP 8" is a re-run): the card on the technique, read against the thread's setup."""
    turn = routing.turn
    return turn.ask.asks_technique and turn.ask.opened_earlier and routing.reading.task in TASKS and not routing.reading.frame.names()


@condition
def asks_of_thread_setup(routing: Routing) -> bool:
    """"so will 4 cards be 4x faster?", "and does that need NVLink?": a follow-up asking a subject of its own about the
    layout the thread's answer gave (Ask.follow_up_asks), changing at most the card count."""
    return dialogue_plan.asks_of_setup(routing.turn, routing.task)


@condition
def asks_new_subject_of_thread(routing: Routing) -> bool:
    """"how much power would that draw?" after a recommendation, "and what would that cost?" after a sizing: a later
    message asking a side of the thread's configuration its calculation did not answer (Ask.follow_up_subject)."""
    return dialogue_plan.asks_new_subject(routing.turn, _thread_task(routing), TASKS)


def _thread_task(routing: Routing) -> str | None:
    """The calculation behind the previous answer: the task the user's previous message was read as asking or continuing."""
    earlier = routing.turn.earlier
    if not earlier:
        return None
    return _thread_reading(routing).task


def _thread_reading(routing: Routing) -> Reading:
    earlier = routing.turn.earlier
    return routing.understanding.read(earlier[-1], earlier[:-1])


@condition
def judges_mfu(routing: Routing) -> bool:
    return training_plan.judges_mfu(routing.turn, routing.turn.ask.named)


@condition
def mfu_low(routing: Routing) -> bool:
    return efficiency.is_low(routing.turn)


@condition
def asks_hosting_of_site(routing: Routing) -> bool:
    """"and what will hosting them cost a month?" after a site plan (power, racks, cooling): colocation at the sourced rate
    on that plan's load, not a card on renting or buying."""
    turn = routing.turn
    if not turn.earlier or "hosting" not in turn.ask.facility_asks_now or "comparison" in turn.ask.facility_asks_now:
        return False
    return any(call.name == "plan_facility" for call in routing.previous) or _thread_task(routing) == "facility"


@condition
def continues_facility(routing: Routing) -> bool:
    """A follow-up of values only ("and the A100?", "and four of them?") after a power/rack answer asks the same of the new
    values: the subject kind of the last answer carries on, though the card alone reads as a spec question."""
    reading = routing.reading
    if not reading.follow_up or routing.task == "facility" or not any(call.name == "plan_facility" for call in routing.previous):
        return False
    # only hardware values, in a message too short to ask anything of its own ("and an A100 one?", in either language)
    hardware_only = set(reading.frame.names()) <= HARDWARE_SLOTS and reading.frame.names()
    if only_values(reading) or bool(hardware_only and len(routing.turn.message.strip()) <= SHORT_FOLLOW_UP):
        return True
    # "and at 1.2 yuan per kWh?", "and at a PUE of 1.5?": a value only the site plan takes (a tariff, a PUE, a rack budget), with
    # the hardware at most, re-runs that plan, unless the message asks to weigh renting against buying
    stated = set(reading.frame.names())
    return bool(stated & facility_plan.SITE_INPUTS) and stated <= HARDWARE_SLOTS | facility_plan.SITE_INPUTS and not facility_plan.asks_now(routing.turn, "comparison")


@condition
def compares_vendors(routing: Routing) -> bool:
    return recommend_plan.compares_vendors(routing.turn)


@condition
def asks_fabric(routing: Routing) -> bool:
    return facility_plan.asks_fabric(routing.turn)


@condition
def asks_site_of_thread(routing: Routing) -> bool:
    return facility_plan.asks_site_of_thread(routing.turn)


@condition
def asks_wall_socket(routing: Routing) -> bool:
    """An ordinary socket asked about for hardware the conversation names: the facility plan on that socket's rating."""
    return facility_plan.on_wall_socket(routing.turn) and bool(routing.turn.slots.gpus)


@condition
def prepares_site(routing: Routing) -> bool:
    return facility_plan.prepares_site(routing.turn)


@condition
def facility_takes_over(routing: Routing) -> bool:
    return facility_plan.takes_over(routing.turn)


@condition
def follow_up(routing: Routing) -> bool:
    return routing.reading.follow_up


@condition
def asks_anew(routing: Routing) -> bool:
    """A follow-up to a concept answer that asks about another side of the thread (its cost, its software,
    whether to use it at all) than the question first asked: a new question, answered in the thread's context."""
    facet = routing.reading.facet.name
    return facet != SPECS and facet != routing.understanding.read_one(routing.reading.task_messages[0]).facet.name


@condition
def opened_as_concept(routing: Routing) -> bool:
    """The thread's first question was answered from the cards: a concept question, or one no calculation read surely."""
    if not routing.reading.task_messages:  # no thread to have opened (a message the reader could not place)
        return False
    first = routing.understanding.read_one(routing.reading.task_messages[0])
    return first.intent == "concept" or first.intent not in TASKS or (first.confidence < MIN_CONFIDENCE and not unsure_which_calculation(first))


@condition
def names_new_subject(routing: Routing) -> bool:
    """"and MXFP8?" after "what is FP8?": the follow-up names a subject (a precision, an engine, a capability) the
    question did not, and replaces none of the question's values ("and fp8?" after "does int4 hurt quality?" is that
    question restated): a question of its own about the new subject, not the first card again."""
    read, catalog = routing.understanding.read_one, routing.turn.catalog
    if not routing.reading.task_messages:
        return False
    first = routing.reading.task_messages[0]
    named_then, named_now = subjects_of(first, catalog), subjects_of(routing.turn.message, catalog)
    if not any(ids - named_then.get(kind, frozenset()) for kind, ids in named_now.items() if kind not in concept_plan.UNNAMED_KINDS):
        return False
    question, change = read(first), read(routing.turn.message)
    return not any(question.frame.has(slot) for slot in change.frame.names())


@condition
def asks_what_a_card_answers(routing: Routing) -> bool:
    """The message asks what only a card judges (knowledge/subjects.yaml card_first): which variant of one GPU, how big
    a UPS, a card with no fan, a daily volume as a rate. A message that names a model asks for that model's calculation."""
    ask = routing.turn.ask
    asks = ask.named.get("ask", frozenset()) & frozenset(load_subjects().card_first)
    if ask.asks_spec_sheet:  # "compare the specs of the H100 PCIe and SXM": the figures side by side, not which to take
        asks -= {VARIANT_CHOICE}
    if VARIANT_CHOICE in asks and variant_card(ask.named, routing.turn.catalog) is None:  # no card on that pair: the comparison judges it
        asks -= {VARIANT_CHOICE}
    if ask.weighs_api:  # "30k requests a day to an API: would self-hosting pay?": the daily volume is the API bill's input
        asks -= {TOKEN_RATE}
    return bool(asks) and not names_model(routing)


@condition
def asks_variant_choice(routing: Routing) -> bool:
    """The message weighs two variants of one named GPU ("H800 PCIe or SXM?", "A800 40GB or 80GB?"): a form factor or memory
    size of that card, never another card, whatever the classifier makes of the sentence."""
    return VARIANT_CHOICE in routing.turn.ask.named.get("ask", ())


@condition
def names_model(routing: Routing) -> bool:
    return bool(routing.turn.entities.models or routing.turn.entities.params)


@condition
def weighs_shortlist_for_job(routing: Routing) -> bool:
    """"H20 instead of H100 for a 70B?": the user's own options and a model, no multiple claimed: each option weighed
    for the job (the shortlist), not a verdict on the parts' figures."""
    ask = routing.turn.ask
    return ask.weighs_shortlist and ask.claimed_multiple is None and names_model(routing)


@condition
def complains_of_serving_latency(routing: Routing) -> bool:
    """"the first reply takes 8 s on our QwQ", "p99 TTFT is seconds at peak": a latency described about serving a model the
    conversation names, on a thread no calculation of its own answers (troubleshooting, a concept, or none)."""
    turn = routing.turn
    if "estimate_throughput" not in turn.registry.names() or routing.task not in LATENCY_COMPLAINT_TASKS:
        return False
    return bool(turn.slots.models)


@condition
def names_gpu(routing: Routing) -> bool:
    return bool(routing.turn.entities.gpus)


@condition
def states_training_data(routing: Routing) -> bool:
    """The message says how much data a run trains on (tokens, or samples): a run time can be computed from it, so a speed
    short of the plan said beside it ("1T tokens, but at half the planned throughput: how long now?") leaves the question a run time."""
    return routing.turn.entities.frame.has("training_tokens") or routing.turn.ask.samples is not None


@condition
def no_confident_task(routing: Routing) -> bool:
    return routing.task not in TASKS or (routing.reading.confidence < MIN_CONFIDENCE and not unsure_which_calculation(routing.reading))


@condition
def asks_only_electricity(routing: Routing) -> bool:
    return facility_plan.asks_only_electricity(routing.turn)


@condition
def asks_run_bill(routing: Routing) -> bool:
    return training_plan.asks_run_bill(routing.turn)


@condition
def asks_about_last_figure(routing: Routing) -> bool:
    """"why so much?" after a figure, stating no value: the planner folds that answer after its explanation too."""
    return explains_last_figure(routing.turn)


@condition
def turns_to_training(routing: Routing) -> bool:
    """"and training?", "and for fine-tuning?" after a serving answer: the follow-up states a training method where the thread
    served the model, so the question is whether the cards hold that training, not the serving speed again."""
    reading = routing.reading
    if not reading.follow_up or not reading.frame.has("method"):
        return False
    return reading.frame.get("method") != INFERENCE and reading.before.get("method") in (None, INFERENCE)


@condition
def asks_of_previous_figure(routing: Routing) -> bool:
    """"is that per GPU or total?", "does that include the usual overheads?" after a calculated answer, stating no value: a question about
    that answer's figure (Ask.asks_of_figure), however the message alone was classified (a greeting, a new question)."""
    turn = routing.turn
    if turn.ask.asks_of_figure is None or routing.reading.frame.names() or not turn.earlier:
        return False
    return dialogue_plan.figure_tool(routing.previous) is not None or _thread_task(routing) in TASKS


# ---- the handlers a route may name ----
HANDLERS: dict[str, Handler] = {}
handler = _registers_in(HANDLERS)


@handler
def task(routing: Routing) -> str:
    """The task's own answer."""
    return TASKS[routing.task](routing.turn)


HANDLERS["unreadable"] = lambda routing: dialogue_render.unreadable(routing.turn, dialogue_plan.unreadable_kind(routing.turn))
HANDLERS["out_of_scope"] = lambda routing: dialogue_render.out_of_scope(routing.turn)
HANDLERS["greeting"] = lambda routing: dialogue_render.greeting(routing.turn)
HANDLERS["price_trend"] = lambda routing: price_trend.answer(routing.turn)
HANDLERS["rent_tiers"] = lambda routing: rent_tiers.answer(routing.turn)
HANDLERS["observed_speed"] = lambda routing: serving.observed_verdict(routing.turn)
HANDLERS["serving_latency"] = lambda routing: serving.latency_answer(routing.turn)
HANDLERS["expected_rate"] = lambda routing: TASKS["serving_speed"](routing.turn)  # a rate to expect is the serving estimate's
HANDLERS["troubleshoot"] = lambda routing: TASKS["troubleshoot"](routing.turn)
HANDLERS["facility"] = lambda routing: facility.answer(routing.turn)
HANDLERS["concept"] = lambda routing: knowledge.concept(routing.turn)
HANDLERS["vendor_rows"] = lambda routing: vendor_rows.answer(routing.turn)
HANDLERS["shortlist"] = lambda routing: shortlist.answer(routing.turn)
HANDLERS["equivalent_part"] = lambda routing: equivalent.answer(routing.turn)
HANDLERS["useful_life"] = lambda routing: useful_life.answer(routing.turn)
HANDLERS["reserved_or_on_demand"] = lambda routing: reservation.answer(routing.turn)
HANDLERS["api_bill"] = lambda routing: TASKS["tco"](routing.turn)  # the tco task opens with the API bill when one is weighed


@handler
def injection(routing: Routing) -> str:
    return dialogue_render.injection(routing.turn) + beside_injection(routing)


@handler
def gpu_claim(routing: Routing) -> str:
    """A claim that one part matches, beats or replaces another: the verdict on like-for-like figures."""
    return claim_view.answer(routing.turn)


@condition
def asks_worth_of_compared(routing: Routing) -> bool:
    """"Is it worth buying one?" after two cards were compared: what to do (worth it, buy or wait) asked of the cards the
    thread compared, this message naming no card of its own; the comparison's two cards are the ones weighed."""
    turn = routing.turn
    if routing.reading.task != "specs" or turn.entities.frame.has("gpu") or not (asks_what_to_do(routing) or turn.ask.asks_judgement):
        return False
    return len(compare.options(turn)) >= 2


@handler
def value_premium(routing: Routing) -> str:
    """"Is X worth the premium over Y?": the price premium against the gain for the job, then when it pays."""
    return premium_view.answer(routing.turn)


@condition
def weighs_premium_of_parts(routing: Routing) -> bool:
    return recommend_plan.weighs_premium_of_parts(routing.turn)


@handler
def concept_in_thread(routing: Routing) -> str:
    """A knowledge answer read in the thread's context, offering the task's calculator."""
    return knowledge.concept(routing.turn, offer=routing.task, in_thread=True)


@handler
def colocation_rate_asked(routing: Routing) -> str:
    """The region's sourced rate, or its gap and the sourced fallback (not a rent-or-buy of a default machine)."""
    return colocation_rate.answer(routing.turn, facility_plan.colocation_region(routing.turn))


@handler
def uncatalogued_part(routing: Routing) -> str:
    """A part with no catalog row: its card in the thread, after the recorded gap when a figure is asked of it ("Hygon K100
    compute?": no sourced figure, and the domestic parts that have one)."""
    turn = routing.turn
    return "\n\n".join(filter(None, [gap_view.lead(turn, uncatalogued_gpus(turn.ask.named, turn.catalog)), concept_in_thread(routing)]))


@handler
def vendor_claim(routing: Routing) -> str:
    """A multiple far beyond every like-for-like figure of the parts ("GB200 30x an H100?"): the card on vendor claims says
    which benchmark setup such a figure comes from, however the question is worded. The verdict on like-for-like figures
    leads (is the multiple true card for card?), the card follows as the reason, the figures' table after it."""
    verdict, _, figures = claim_view.answer(routing.turn).partition("\n\n")
    card = knowledge.concept(routing.turn, offer=routing.task, in_thread=True, facet=VENDOR_CLAIM)
    return "\n\n".join(filter(None, [verdict, card, figures]))


@handler
def card_first(routing: Routing) -> str:
    """The card that judges what was asked, then the calculation its tool makes of the values the message gives
    ("how big a UPS for four 8x H100 servers?": the sizing pattern, then the four servers' load)."""
    turn = routing.turn
    sized = facility_plan.has_hardware(turn)  # the stated servers get their plan below: no offer to compute it
    # "A100 40GB or 80GB, is the difference big?": the card on that pair judges it for the work, then the two variants'
    # comparison carries the figures (the verdict by figure, the table), so no comparison is offered
    compared = VARIANT_CHOICE in turn.ask.named.get("ask", ()) and len(set(turn.entities.gpus)) > 1
    body = knowledge.concept(turn, offer=routing.task if routing.task in TASKS else None, offer_tool=not (sized or compared))
    asked = "" if compared else specs.asked_of_one(turn)  # "is the L40S passive or active?": the card's own figure first,
    if asked and asked not in body:  # then the card on what it means (unless the spec answer already led with it)
        body = f"{asked}\n\n{body}"
    if sized and knowledge.card_calculation(turn) == "facility":
        body += "\n\n" + facility.answer(turn)
    elif compared and turn.ask.spec_fields_asked:  # "which has the faster NVLink, H100 SXM or PCIe?": the figure asked leads (the
        body = TASKS["specs"](turn) + "\n\n" + body  # comparison's first line), the card on the pair explains below it
    elif compared:
        body += "\n\n" + TASKS["specs"](turn)
    return body


@handler
def parts_compared(routing: Routing) -> str:
    """The named cards weighed for the job: the user's own options sized for the model named (the shortlist), else the
    cards side by side with the verdict (the specs task, whose take-overs size the comparison when a model makes one)."""
    if weighs_shortlist_for_job(routing):
        return shortlist.answer(routing.turn)
    return TASKS["specs"](routing.turn)


@handler
def variant_comparison(routing: Routing) -> str:
    """Two variants of one card weighed with no card on that pair: the comparison of the two, verdict first."""
    return TASKS["specs"](routing.turn)


@handler
def judgement_card(routing: Routing) -> str:
    """"can the 910B run vLLM?", "H20 or 910B for serving?": the card that judges it answers, with no spec sheet under it
    (a card for a facet is not a spec table); the named parts' figures follow only when the question also asks for
    figures ("H20 or 910B for serving, and what bandwidth has each?": Ask.spec_fields_asked)."""
    turn = routing.turn
    if not turn.ask.spec_fields_asked:
        return knowledge.concept(turn)
    return knowledge.concept(turn, offer_tool=False) + "\n\n" + TASKS["specs"](turn)


@handler
def platform_how_to(routing: Routing) -> str:
    """"How do I serve Qwen2.5-72B on the 910B?": the platform's card says how (engine, software stack, what to check), then
    the model's own calculation on that platform (the serving estimate for a stated setup, else the task's sizing)."""
    turn = routing.turn
    card = concept_plan.judging_card(turn, model_too=True)
    task = "serving_speed" if serving_plan.estimates_setup(turn) else routing.task
    if task not in TASKS:
        return knowledge.concept(turn, chosen_card=card)
    return knowledge.concept(turn, offer_tool=False, chosen_card=card) + "\n\n" + TASKS[task](turn)


@handler
def concept_new_subject(routing: Routing) -> str:
    """The card on the subject a follow-up newly names, read in the thread (the card just given set aside)."""
    return knowledge.concept(routing.turn, in_thread=True, no_calculation=True)


@handler
def concept_thread(routing: Routing) -> str:
    """The open concept question as its follow-ups have changed it."""
    return knowledge.concept(routing.turn, question=_topic(routing), asked_first=routing.reading.task_messages[0])


@handler
def concept_with_offer(routing: Routing) -> str:
    return knowledge.concept(routing.turn, offer=routing.task if routing.task in TASKS else None)


@handler
def technique_in_thread(routing: Routing) -> str:
    """The card on the technique asked about, then the thread's setup it is read against (the calculation offered)."""
    return dialogue_render.with_setup(routing.turn, knowledge.concept(routing.turn, offer=routing.reading.task))


@handler
def precision_judged(routing: Routing) -> str:
    """"Is FP8 safe for fine-tuning our 70B?", "will a 70B served in INT4 lose much quality?": the verdict on the precision for that use and
    card, with its sourced evidence; with a model named, the calculation of the setup follows (below the fold)."""
    turn = routing.turn
    body = precision_decision.answer(turn)
    if routing.task in TASKS and routing.task != "specs" and model_of(turn):
        return f"{body}\n\n{TASKS[routing.task](turn)}"
    return body


@handler
def technique_judged(routing: Routing) -> str:
    """A technique judged for the situation stated ("long prompts stall everyone: would chunked prefill help?"): its card is
    the judgement; with a model and a card named for serving, the estimate at that setup follows as the numbers it is read against."""
    turn = routing.turn
    sized = serving_plan.estimates_setup(turn)
    body = knowledge.concept(turn, offer=None if sized else "serving_speed", offer_tool=not sized)
    return f"{body}\n\n{serving.answer(turn)}" if sized else body


@handler
def thread_setup_question(routing: Routing) -> str:
    """The verdict on what the follow-up asks of the thread's setup, then the thread's calculation it rests on."""
    return setup_question.answer(routing.turn, TASKS[dialogue_plan.thread_task(routing.turn, routing.task)])


@handler
def card_why(routing: Routing) -> str:
    """"why?" after a card's answer: the previous message answered again unseen (the route it took), then the verdict it
    gave explained from the card it cites; that answer again when it cites no card."""
    turn, thread = routing.turn, _thread_reading(routing)
    before = Turn(thread.text, thread, turn.registry, turn.catalog, earlier=turn.earlier[:-1])
    earlier = start(before, routing.understanding, routing.previous)
    row = _first_admitting(earlier)
    answered = HANDLERS[row.handler](earlier) if row.name != "card_why" else ""
    cited = sorted(knowledge.cards_cited(before))
    card = load_concepts().card(cited[0].removeprefix(CARD_PREFIX)) if cited else None
    explained = dialogue_render.why_card(turn, answered, card) if card is not None and answered else ""
    return explained or knowledge.concept(turn)


@handler
def new_subject_of_thread(routing: Routing) -> str:
    """The new subject's answer for the configuration behind the previous answer, never that answer again."""
    turn, thread = routing.turn, _thread_reading(routing)
    before = Turn(thread.text, thread, turn.registry, turn.catalog, earlier=turn.earlier[:-1])  # the previous message, to read its configuration
    return new_subject.answer(turn, before, thread.task, TASKS, routing.previous)


@handler
def site_hosting(routing: Routing) -> str:
    """What hosting the thread's servers costs: the site plan of the previous message's hardware, counts and site values
    (what this message states wins), led by colocation and energy, though the message alone may read as another task."""
    turn, thread = routing.turn, _thread_reading(routing)
    state = Frame({**thread.state.slots, **turn.reading.frame.slots})
    return TASKS["facility"](dataclasses.replace(turn, reading=dataclasses.replace(turn.reading, state=state, task="facility")))


@handler
def site_of_thread(routing: Routing) -> str:
    """The site side of the thread ("what about cooling?" after a sizing on H20, "how much power would these draw?" after a rent-or-buy) for the
    configuration the previous answer concluded with (1,200 cards sized, two servers bought), not only the words said."""
    turn, thread = routing.turn, _thread_reading(routing)
    if thread.task not in TASKS:
        return TASKS["facility"](turn)
    before = Turn(thread.text, thread, turn.registry, turn.catalog, earlier=turn.earlier[:-1])
    return new_subject.answer(turn, before, thread.task, TASKS, routing.previous, route="facility")


@handler
def mfu_verdict(routing: Routing) -> str:
    """A low MFU: the verdict, then where the time goes."""
    return efficiency.verdict(routing.turn) + "\n\n" + TASKS["troubleshoot"](routing.turn)


@handler
def figure_of_previous(routing: Routing) -> str:
    """The previous answer's figures explained from its tool result: the calls the history carries, else that
    calculation run again for the previous message (a client that sends text only). The calls are kept on this turn,
    so a later follow-up still compares against them."""
    turn = routing.turn
    calls = list(routing.previous)
    if dialogue_plan.figure_tool(calls) is None:
        thread = _thread_reading(routing)
        before = Turn(thread.text, thread, turn.registry, turn.catalog, earlier=turn.earlier[:-1])
        if thread.task in TASKS:
            TASKS[thread.task](before)
        calls = before.calls
    turn.calls.extend(ToolOutcome(**call.model_dump()) for call in calls if call.name == getattr(dialogue_plan.figure_tool(calls), "name", None))
    return dialogue_render.figure(turn, calls)


@handler
def where_from(routing: Routing) -> str:
    turn = routing.turn
    body = TASKS[routing.task](turn)
    explained = dialogue_render.why(turn, trouble.why_figures)  # the main driver with its formula; the rest is folded
    return (explained or turn.t(*WHERE_FROM) + _largest_part(turn)) + "\n\n" + body


# ---- the table ----
class Route(BaseModel):
    """One row of routes.yaml (see its header)."""

    model_config = ConfigDict(extra="forbid")
    name: str
    intent: list[str] = []
    not_intent: list[str] = []
    task: list[str] = []
    not_task: list[str] = []
    when: list[str] = []
    handler: str | None = None
    redirect: str | None = None

    @model_validator(mode="after")
    def _one_outcome(self) -> Route:
        if (self.handler is None) == (self.redirect is None):
            raise ValueError(f"route {self.name}: give exactly one of handler and redirect")
        return self

    def admits(self, routing: Routing) -> bool:
        intent, task = routing.reading.intent, routing.task or NO_TASK
        if (self.intent and intent not in self.intent) or intent in self.not_intent:
            return False
        if (self.task and task not in self.task) or task in self.not_task:
            return False
        return all_hold(self.when, CONDITIONS, routing, routing.turn.ask)


class RouteTable(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tasks: dict[str, str]
    take_overs: dict[str, list[TakeOver]] = {}  # run by takeovers.TakeOvers: a task's table by TASKS below, a writer's by that writer
    sections: dict[str, list[Section]] = {}  # a writer's parts in order, run by takeovers.Sections (spec_sheet: specs.SECTIONS)
    routes: list[Route]


@lru_cache(maxsize=1)
def table() -> RouteTable:
    return RouteTable.model_validate(routes_data())


TASKS: dict[str, TaskHandler] = {
    name: TakeOvers(name, TAKE_OVER_CONDITIONS, TAKE_OVER_WRITERS).before(TASK_ANSWERS[answer]) for name, answer in table().tasks.items()
}


def chosen(routing: Routing) -> Route:
    """The first route that admits the message, following redirects (which change ``routing.task``); every route
    taken, redirects included, is added to ``routing.taken``."""
    return _first_admitting(routing)


def _first_admitting(routing: Routing) -> Route:
    """``chosen``'s walk down the table; an earlier message answered again unseen (card_why) takes it directly."""
    for row in table().routes:
        if not row.admits(routing):
            continue
        routing.taken.append(row.name)
        if row.redirect is None:
            return row
        routing.task = row.redirect
    raise LookupError("routes.yaml must end with a route that admits every message")


def explains_last_figure(turn: Turn) -> bool:
    """"why?" with no value of its own: the last answer's figure is to be explained, not redone."""
    reading = turn.reading
    return reading.follow_up and not reading.frame.names() and turn.ask.asks_why


def start(turn: Turn, understanding: Understanding, previous: list[ToolCall] = ()) -> Routing:
    """The message ready for the table: unsure guards settled, the task it asks or continues."""
    _settle_guards(turn.reading, turn.message)
    reading = turn.reading
    return Routing(turn, reading.task if reading.intent == "follow_up" else reading.intent, understanding, previous=list(previous))


def route(turn: Turn, understanding: Understanding, previous: list[ToolCall] = ()) -> str:
    """The answer's body, written by the handler of the first route that admits the message."""
    routing = start(turn, understanding, previous)
    new_subject.keep_concluded_count(turn, routing.task, routing.previous, lambda: _concluded_layout(routing))
    return HANDLERS[chosen(routing).handler](routing)


def _concluded_layout(routing: Routing) -> dict | None:
    """The configuration a count question just before this message concluded with ("how many H100s…?"), its calculation
    run again unseen; None when the previous message asked no count (its layout is then what the user stated)."""
    turn, thread = routing.turn, _thread_reading(routing)
    if thread.task not in TASKS:
        return None
    before = Turn(thread.text, thread, turn.registry, turn.catalog, earlier=turn.earlier[:-1])
    if not before.count_asked:
        return None
    TASKS[thread.task](before)
    return setup_question.layout_of(before, before.calls)


def _settle_guards(reading: Reading, message: str) -> None:
    """An unsure refusal, off-topic reply or greeting is worse than an answer: below GUARD_CONFIDENCE it gives way
    (reading only the classifier's probabilities, so it may run before the unreadable check, which does not)."""
    guarded = sum(p for intent, p in reading.probabilities.items() if intent in GUARDED)
    if all(m == message for m in reading.task_messages):  # a first message continues nothing: its follow-up share is noise
        guarded /= max(1.0 - reading.probabilities.get("follow_up", 0.0), GUARD_CONFIDENCE)
    if reading.intent in GUARDED and max(reading.confidence, guarded) < GUARD_CONFIDENCE:
        reading.settle_besides(GUARDED)  # but "ok unrelated, a pasta recipe?" (off-topic 0.5, greeting 0.4) is no question of ours


def unsure_which_calculation(reading: Reading) -> bool:
    """The classifier spreads its probability over calculations ("does the A100 do FP8?": memory or specs), not
    between a calculation and a concept question: the likeliest calculation answers, it is no guess. Continuing a
    calculated thread counts as a calculation ("and how many of card B instead?" split between recommend and
    follow_up is sure it wants a number; which one the thread decides)."""
    calculating = (reading.intent in TASKS) or (reading.intent == "follow_up" and reading.task in TASKS)
    if not calculating:
        return False
    return sum(p for intent, p in reading.probabilities.items() if intent in TASKS or intent == "follow_up") >= CALCULATION_MASS


def _topic(routing: Routing) -> str:
    """The open concept question as the follow-ups have changed it."""
    read = routing.understanding.read_one
    first, *changes = routing.reading.task_messages
    question = read(first)
    for change in changes:
        question = read(restated_question(question, read(change)))
    return question.text


def beside_injection(routing: Routing) -> str:
    """What is left once the injection sentences are removed (a question, a pasted log) still gets its answer."""
    turn, read = routing.turn, routing.understanding.read_one
    rest = routing.understanding.beside_injection(turn.message)
    if not rest.strip():
        return ""
    reading = read(rest)
    if reading.confidence < MIN_CONFIDENCE or reading.intent not in TASKS:
        return ""
    reading.task, reading.state = reading.intent, reading.frame
    inner = Turn(rest, reading, turn.registry, turn.catalog, turn.calls, turn.sources, turn.assumptions)
    return "\n\n" + TASKS[reading.intent](inner)


def _largest_part(turn: Turn) -> str:
    """The line item that weighs most in the itemised result, with its formula: most of a "why so much?"."""
    items = [i for call in turn.calls for i in (call.result or {}).get("items", []) if isinstance(i, dict) and "value" in i]
    if not items:
        return ""
    top = max(items, key=lambda i: i["value"])
    return turn.t(*WORDING.pair("largest_part")).format(
        label=turn.text(top["label"]), value=number(top["value"], 2), unit=top["unit"], formula=turn.formula(top)
    )


def _check_names() -> None:
    """Every name the table uses exists here, so a typo fails at import, not on the first message that reaches it."""
    unknown = [f"tasks.{t}: {a}" for t, a in table().tasks.items() if a not in TASK_ANSWERS]
    for row in table().routes:
        if row.handler is not None and row.handler not in HANDLERS:
            unknown.append(f"{row.name}: handler {row.handler}")
        unknown += [f"{row.name}: condition {name}" for name in unknown_conditions(row.when, CONDITIONS)]
    if unknown:
        raise LookupError(f"{ROUTES_FILE.name} names what router.py does not have: " + "; ".join(unknown))


_check_names()
