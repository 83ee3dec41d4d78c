"""What the user asked, typed: the one object answers read for "what was asked", built once per turn
from the understanding layer's Reading. Answers read ``turn.ask.<field>``, never the message itself:
every word-based decision about the question is made here (cue words in ``data/ask_cues.yaml``, the
serving and line-item words in their own tables), so understanding is decided in one place.

The workload (model, task, precision, context, batch, ZeRO/TP) is resolved here once per turn too
(``Ask.workload``, ``advisor/nlu/workload.py``): how the model was read is kept as notes, which
``offline/workload.py`` says as assumptions in the answer that uses the model."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from advisor.name_matcher import normalize_text
from advisor.nlu.asked_measures import measures_asked
from advisor.nlu.asked import (
    Asked,
    asks_if_observed_is_normal,
    asks_precision_choice,
    is_latency_target,
    names_reasoning_model,
    names_tail_latency,
    states_latency_budget,
    observed_scope,
    observed_speed,
    claims_rate,
    reports_latency,
    shares_prefix,
    weighs_parallelism,
    job_joins,
    reports_serving,
    reports_slowdown,
    serving_asks,
    serving_asks_earlier,
)
from advisor.nlu.cues import says, without
from advisor.nlu.facets import cue_pattern
from advisor.nlu.frame import Frame, SlotValue
from advisor.nlu.follow_up import NewSubject, asks_to_confirm, follow_up_asks, follow_up_subject, is_question, new_subjects
from advisor.nlu.part_prices import PartPrice, part_prices
from advisor.nlu.pattern_words import pattern_words
from advisor.nlu.regions import site_region
from advisor.nlu.model import NONE
from advisor.nlu.pipeline import PIPELINE
from advisor.nlu.values import find_values
from advisor.nlu.reading import Reading
from advisor.nlu.speed_scope import Scope, scope_of
from advisor.nlu.spec_claim import ComparisonClaim, comparison_claim, spec_fields
from advisor.nlu.shortlist import Candidate, candidate_configs
from advisor.nlu.samples import SamplesSaid, samples_said
from advisor.nlu.site import card_cut, facility_asks, read_circuit, read_node_count, read_rack_count
from advisor.nlu.subjects import TOKEN_RATE, capabilities_named, capability_of, subjects_of
from advisor.nlu.vague_counts import VagueCount, vague_counts
from advisor.nlu.workload import Workload
from advisor.nlu.tco_said import ApiUsage, GpuHours, HorizonRange, LoadShape, RequestCount, Reservation, gpu_hours_used, requests_no_period, load_shape, reservation_in_thread, RatioClaim, RunningCost, api_usage, commitment_terms, daily_token_volume, horizon_ranges, payback_word_starts, ratio_claim, rent_tiers_named, running_costs
from advisor.retrieval.glossary import default_glossary
from knowledge.answer_text import asked_line, word_positions
from knowledge.capabilities import Capability
from knowledge.catalog import Catalog
from knowledge.equivalents import equivalents
from knowledge.subjects import load_subjects
from knowledge.vendor_options import vendor_options
from tools.troubleshoot.diagnose import pasted_output


SAME_SIZE = 1.15  # sizes within 15% of each other name one model, not the two ends of a range
UPTIME_FLOOR = 95.0  # a percentage said beside an uptime word is a target from here up ("99.9% SLA"); below, a share of something else
SERVICE_CONTEXTS = ("regulated_sector", "client_premises", "production_service")  # the deployment kinds data/ask_cues.yaml names


class StatedFigure(BaseModel):
    """A figure the message states of the card it names, to be checked against the catalog ("B200 is 192 GB, right?")."""

    model_config = ConfigDict(frozen=True)

    kind: str = Field(description='"memory" (a size in GB) or "number" (a bare figure, such as "1979" said of TFLOPS).')
    value: float
    surface: str = Field(description="The words as written.")


STATED_KINDS = ("memory", "number")  # the values a claim about one card's figures can state
STATED_FLOOR = 10.0  # a bare number below this is a count or a ratio ("2 of them", "3x"), never a figure on a spec sheet


class Ask(BaseModel):
    """The question of one turn, as understood."""

    model_config = ConfigDict(frozen=True)

    task: str | None = Field(None, description="The calculation asked for: this message's task or, for a follow-up, the one it continues.")
    workload: Workload = Field(default_factory=Workload, description="The job the conversation describes: model, task, precision, "
                               "context, batch, ZeRO/TP, resolved once (advisor/nlu/workload.py).")
    asks_why: bool = Field(False, description='"why so much?", "how was that worked out": the message asks where the last answer came from.')
    asks_table: bool = Field(False, description='"give me a table", "compare them in a table": the answer\'s table was asked for, so it is shown, not folded away.')
    asks_count: bool = Field(False, description='"how many would it take", "how many servers": the number of cards is the question, not a given.')
    points_at_setup: bool = Field(False, description='"how much power would these draw?", "what do those boxes cost?": the message points at the configuration the '
                                  "thread described, which it inherits unless it restates a value (data/ask_cues.yaml points_at_setup).")
    renting: bool = Field(False, description="The task's messages speak of renting or the cloud.")
    buying: bool = Field(False, description="The task's messages speak of buying or owning.")
    price_only: bool = Field(
        False, description='The priority said is the lowest price ("cheapest", "lowest cost"), not the best value for money.'
    )
    price_per_card: bool = Field(False, description='The rent stated is the price of one card ("per GPU", "each card"), not of the machine.')
    latency_target: bool = Field(
        False, description='The speed target stated is a time ("first token under 500 ms"), not tokens/s per user.'
    )
    serving_asks: Asked = Field("speed", description="What a serving question asks for: a speed, a concurrency, a GPU count or a latency.")
    count_asked_earlier: bool = Field(
        False, description='The newest earlier message that asked a serving question asked for a GPU count ("how many L20 for 2,000 users?").'
    )
    weighs_precision: bool = Field(False, description='"should we use FP8?": a precision named here is a choice to weigh, not a setting.')
    decision: Literal["precision_safe"] | None = Field(
        None, description='The decision this message asks for instead of a figure: "precision_safe" ("is FP8 safe for our fine-tune?", '
        '"will INT4 lose much quality when we deploy?": a precision named and whether it can be trusted for the use; data/ask_cues.yaml judges_quality, '
        "not said of the KV cache). The answer leads with the verdict, the calculation follows.",
    )
    throughput_scope: Scope | None = Field(
        None, description='Whom the speed stated is of: "per_user" ("20 tok/s each"), "total" ("2000 tok/s total for 500 users": the '
        "deployment's output tokens/s); None when no speed is stated (advisor/nlu/speed_scope.py).",
    )
    observed_speed: float | None = Field(None, description="The tokens/s such a question says it measured (per user or in total: observed_scope).")
    observed_scope: Scope | None = Field(None, description='Whom the measured speed is of: "total" ("our batch job does 2k tok/s on 8 A100s", '
                                         '"overall 900 tok/s"), "per_user" ("12 tok/s per user"); None when no speed is judged.')
    claimed_rate: bool = Field(False, description='"the vendor says 30k tok/s on 8 H100s, realistic?": the speed judged (observed_speed) '
                               "is someone's claim, not a measurement: the verdict says plausible, optimistic by a multiple, or beyond the ceiling "
                               "(data/serving_asks.yaml rate_claim).")
    observed_in_thread: bool = Field(
        False, description="A message of the task asked whether a measured speed is normal: the tokens/s it stated is no target."
    )
    speaks_of_serving: bool = Field(False, description="The task's messages speak of serving (an engine, requests, users), slow or not.")
    job_joins: tuple[int, ...] = Field(
        (), description='Where this message joins one job to the next ("serve a 70B and LoRA a 30B": the offset of "and"), '
        "so a task word across it goes with the other job's model."
    )
    reports_serving: bool = Field(
        False, description="The task's messages report a slowdown and place it in serving (engine, requests, inference)."
    )
    reasoning_model: bool = Field(False, description="The task's messages name a reasoning model (long outputs per request).")
    reports_latency: bool = Field(
        False, description='The task\'s messages describe a late first token or a latency tail ("text appears after 8 s", "p99 TTFT is seconds").'
    )
    weighs_parallelism: bool = Field(False, description='This message weighs how the cards split the model ("expert parallel or TP=2 replicas?").')
    shared_prefix: bool | None = Field(
        None, description='The task\'s messages describe a prompt part shared by many requests (True: "same system prompt") or say '
        'none is (False: "every prompt different"); the newest that says either wins.'
    )
    tail_latency: bool = Field(False, description='The task\'s messages place the latency in the tail or under load ("p99", "at peak", "under load").')
    tco_line: str | None = Field(None, description='The cost line asked for by name ("what is the power bill?" → "energy"), if any.')
    committed_billing: bool = Field(False, description='Reserved or committed capacity ("1yr commit", "yearly plan") is said in the question.')
    names_kv_cache: bool = Field(False, description="The message names the KV cache in either language (the glossary's phrases).")
    pasted_config: str | None = Field(None, description="A model's config.json pasted into the message, as text for the model tools.")
    asks_rental_price: bool = Field(
        False, description='The task asks what renting costs or whether a rate is fair ("what is a fair price to rent one H100?").'
    )
    names_hyperscaler: bool = Field(
        False, description="The task names a hyperscaler (AWS, Azure, GCP…), whose list price the user compares with."
    )
    weighs_owning: bool = Field(
        False, description="The task weighs owning against renting: a purchase, a quoted payback, a server's price."
    )
    market: str | None = Field(None, description='Where the hardware is bought, decided once: "cn" for a region said to be mainland China, '
                               'a budget in yuan or a Chinese-language question; "global" for another region said; None otherwise.')
    vendors_named: tuple[str, ...] = Field((), description='Accelerator vendors this message names ("NVIDIA vs Ascend vs Hygon"), in order; '
                                           'knowledge/vendor_options.yaml.')
    asks_price: bool = Field(False, description='"how much is an A800 server?": this message asks what hardware costs.')
    owns_hardware: bool = Field(False, description='"we already own 16 A100s": the cards are there; owning is no purchase to weigh.')
    personal_machine: bool = Field(
        False, description='"the RTX 4090 in my desktop", "the workstation in our lab": the setting is the user\'s own desktop or workstation, judged by what '
        "it runs, its speed, purchase and power, not by a cloud rate or a data-centre load.",
    )
    cards_on_hand: bool = Field(
        True, description='The cards the conversation names are the user\'s to run on ("on our 4 A100s", "we already own 16 A100s"), '
        'not cards whose purchase is weighed against renting them ("buy or rent 8 H100s?"): said to be owned, or named with no '
        "rent-or-buy around them.",
    )
    asks_spec_sheet: bool = Field(False, description='"compare the specs of the H100 PCIe and SXM": the figures side by side are asked for, '
                                  "not a judgement (data/ask_cues.yaml asks_spec_sheet).")
    asks_yes_no: bool = Field(False, description='"is that my problem?", "this is the bottleneck, is it?": the message asks for a yes or a no '
                                "about what the thread is on (data/ask_cues.yaml asks_yes_no).")
    beyond_reach: bool = Field(False, description='The message asks how to run the servers in a way no card or tool covers ("how do we access it remotely?").')
    asks_if_fits: bool = Field(False, description='"does a 32B in fp8 fit on it?": whether a model fits in a card\'s memory is asked.')
    asks_judgement: bool = Field(False, description='"can the 910B run vLLM?", "H20 or 910B for serving?": a judgement of a part is asked '
                                 "(can it, should we, is it worth it, which for a job), not its figures (data/ask_cues.yaml asks_judgement).")
    asks_how_to: bool = Field(False, description='"how do I serve Qwen2.5-72B on the 910B?": the way to do it on a platform is '
                              "asked, not only whether it can (data/ask_cues.yaml asks_how_to).")
    asks_off_topic_use: bool = Field(False, description='"how many fps does a 4080 get in Starfield?": a use or a '
                                     "subject the advisor does not answer (gaming, mining income, trivia), with no AI work named "
                                     "(data/ask_cues.yaml off_topic_use, ai_work).")
    asks_expected_rate: bool = Field(False, description='"how many tokens per hour can we expect on 8 H100s?", "2k tok/s on 8 A100s, what should '
                                     'we be getting?": the serving rate to expect is the figure asked, not a training time nor a triage '
                                     "(data/ask_cues.yaml names_token_rate with expects_figure, and no training_words).")
    timeline: Literal["near", "open"] | None = Field(None, description='How near a go-live date the conversation states: "we need it running '
                                                     'by March" → "near", "no rush, next year" → "open" (data/ask_cues.yaml timeline_*).')
    asks_useful_life: bool = Field(False, description='"depreciate over 6 years, realistic?": how long GPUs last, on the books or in use, is asked.')
    asks_renting_side: bool = Field(False, description='"what if we rent instead?": the renting side of a rent-or-buy is asked.')
    leans_on_active: bool = Field(False, description='The question leans on an MoE model\'s active parameter count ("only 37B active").')
    billing_said_earlier: bool = Field(False, description='Reserved or committed billing was said in an earlier message of the task.')
    capability: Capability | None = Field(
        None, description='The one capability asked of a GPU ("does the L4 have NVLink?"); a follow-up naming only another card keeps it.'
    )
    capabilities_named: tuple[Capability, ...] = Field(
        (), description='Every capability this message names, which a question may rely on ("four 4090s over NVLink for FP8 training").'
    )
    thread_messages: int = Field(0, description="How many of the user's messages built the task's question, this one included.")
    opened_earlier: bool = Field(False, description="The task's question was opened by an earlier message, not by this one.")
    named: dict[str, frozenset[str]] = Field(default_factory=dict, description="What this message names, by kind "
                                             "(advisor/nlu/subjects.py): GPUs, models, precisions, engines, topics such as MFU or export rules.")

    facility_asks_now: frozenset[str] = Field(frozenset(), description='What this message asks of a site ("bill", "fabric", "power"…; data/site_words.yaml).')
    facility_asks: frozenset[str] = Field(frozenset(), description="What the task's messages together ask of a site.")
    fabric_opened: bool = Field(False, description="The task's first message asked to size the cluster network.")
    circuit: dict | None = Field(None, description="The power feeds stated anywhere in the conversation, the latest figure winning.")
    states_circuit: bool = Field(False, description="This message states power feeds (amps and volts).")
    rack_count: int | None = Field(None, description='Whole-rack systems counted ("two NVL72 racks").')
    node_count: int | None = Field(None, description='Servers written as nodes ("a 16-node cluster", "16 nodes" in Chinese).')
    card_cut: tuple[str, float] | None = Field(None, description='A quoted cut in cards ("half the cards") and the speed factor it needs.')
    names_fp4: bool = Field(False, description="The message names FP4.")
    replaces_hardware: bool = Field(
        False, description='The message weighs swapping the GPUs in place for another part ("move our A100 boxes to H200"): '
        "it names two or more GPUs, the first being the one in place.",
    )
    asks_technique: bool = Field(
        False, description='The message asks whether a serving or training technique would help ("would prefix caching help?", '
        '"expert parallelism here?"), not for a new value of the calculation.',
    )
    weighs_technique: bool = Field(
        False, description='This message judges a serving technique it names (knowledge/subjects.yaml serving_techniques) ("long prompts stall everyone: would chunked '
        'prefill help?", "is speculative decoding worth it at batch 128?"): its card answers, not failure triage of the symptom words.',
    )

    follow_up_asks: str | None = Field(
        None, description='What a follow-up asks of the thread\'s setup besides any value it changes: "scaling" ("so will 4 cards be '
        '4x faster?") or "interconnect" ("and does that need NVLink?"): a question of its own, with the thread\'s model and '
        "cards, not a changed value to re-run (data/follow_up_subjects.yaml).",
    )
    follow_up_subject: NewSubject | None = Field(
        None, description='A side of the thread\'s configuration a later message asks that the thread\'s calculation did not answer: '
        '"site" ("how much power would that draw?" after a recommendation), "price" ("and what would that cost?" after a sizing), '
        '"speed", "form_factor" ("does the chassis matter?"); answered for that configuration, never by re-running the last '
        "calculation (data/follow_up_subjects.yaml new_subjects).",
    )
    asks_of_figure: Literal["scope", "includes"] | None = Field(
        None, description='A later message asking about the figure the previous answer gave, stating no value of its own: "scope" ("is '
        'that per GPU or total?"), "includes" ("does that include cooling overhead?", the same in Chinese); '
        "answered from that answer's tool result, never by a new question (data/ask_cues.yaml asks_figure_scope, asks_figure_includes).",
    )
    confirms_side: str | None = Field(
        None, description='"so buying is cheaper, right?", "owning wins, correct?": a follow-up asking to confirm one side of a rent-or-buy '
        '("buy" or "rent", the one side it names), answered yes or no first.',
    )
    aside_models: tuple[str, ...] = Field((), description='Models this message names beside its question ("we used to run Llama 2 13B, '
                                          'now …", "instead of Llama 70B"), by catalog name; none of them is sized (nlu/aside.py).')
    model_sizes_b: tuple[float, ...] = Field(
        (), description='Sizes (billions of parameters) of the models the thread names, smallest first: two or more are a range '
        '("7B to 72B", "14B–32B", "Qwen2.5-14B and 32B") that serving answers per end.',
    )
    message_lines: int = Field(1, description="Lines in this message: a pasted log's newest evidence sits within them.")
    pasted_output: bool = Field(
        False, description="The message holds a line of tool output the troubleshooting parsers read (a log, an error, an "
        "nvidia-smi reading), not only words describing a failure.",
    )
    problem_phase: str | None = Field(
        None, description='When a reported problem happens: "startup" (launch, init, before the first step) or "under_load" '
        "(traffic, concurrency); the newest message of the task that says one wins."
    )
    quantised: bool = Field(False, description='The task\'s messages speak of quantised weights ("a 70B quantised") with or without a format.')
    quality_first: bool = Field(False, description='The conversation puts output quality first ("no quantisation", "quality first"): serving is sized '
                                'with 16-bit weights, not the format the card is usually served in.')
    recurring: bool = Field(
        False, description='The task\'s messages say the reported fault came back ("Xid 79 again, third time this month on the same '
        'card"): the troubleshooting plan states it, and a fault with a disposition leads with the repeat\'s (data/ask_cues.yaml recurring).',
    )
    reports_oom: bool = Field(
        False, description='The task\'s messages report an out-of-memory failure (not "is it memory?", which asks about a suspect).'
    )
    short_of_plan: bool = Field(
        False, description='The task\'s messages say a speed falls short of the plan or the estimate ("training throughput is about half of '
        'what we planned", observed against expected): a symptom the troubleshooting answers, not a run time to compute (data/ask_cues.yaml short_of_plan).',
    )
    running_costs: tuple[RunningCost, ...] = Field((), description='Colocation and staff amounts the reader took for a price, '
                                                   'told by the words of their clause ("colo $200 per kW-month").')
    ratio_claim: RatioClaim | None = Field(None, description='A quoted "cloud costs N× owning" in this message or, for a follow-up, the thread.')
    payback_word_starts: tuple[int, ...] = Field((), description='Where this message claims a payback ("pays back in 8 months"), not asks one.')
    speaks_of_payback: bool = Field(False, description='The message speaks of a payback, asked or claimed ("how long to pay back?", "pays back in 8 months").')
    commitment_terms: tuple[int, ...] = Field((), description='Where this message\'s spans of time that are a commitment\'s term start ("1yr commit").')
    horizon_ranges: tuple[HorizonRange, ...] = Field((), description='Spans of time written as a range ("for 2-3 years"), both ends in years.')
    requests_no_period: RequestCount | None = Field(None, description='A count of requests this message says with no period ("10,000 requests"): '
                                                       "the load answers read it as a month's and say so.")
    tokens_per_day: float | None = Field(None, description='Tokens a day this message states as a volume ("we process 5M tokens a day", '
                                         '"3B tokens a month" as its daily share, the same in Chinese): a serving answer sizes the requests they make.')
    api_usage: ApiUsage | None = Field(None, description='The API traffic this message weighs against self-hosting ("we send 200M tokens a day to an API").')
    weighs_api: bool = Field(False, description="The message weighs an API it pays against self-hosting: an API named with a daily volume or hosting "
                             "words, or a price per million tokens with self-hosting words (\"our provider charges $2 per million tokens: run our own GPUs?\").")
    weighs_claim: bool = Field(
        False, description='"the vendor says eight 4090s beat an H100 server, true?", "can an L20 stand in for an A100?": the message '
        "names two or more GPUs and claims or asks that one matches, beats or replaces another.",
    )
    claimed_multiple: float | None = Field(None, description='A multiple this message states ("30x an H100", "2.5 times faster"): a ratio '
                                           "between parts to check, never a count of cards.")
    link_speed_gbps: float | None = Field(None, description='The scale-out network link rate the conversation states, in Gb/s ("400G IB", '
                                          '"200Gb/s RoCE", "8 x 400G NICs" → 400): an interconnect fact, never a card\'s memory.')
    link_count: int | None = Field(None, description='How many links of that rate are said together ("8×400G NDR", "8 x 400G NICs" → 8), '
                                   "per server as users write it; never a count of cards.")
    weighs_premium: bool = Field(False, description='"is the H200 worth the premium over the H100?", "worth paying extra for a 4090?": two parts '
                                 "named and the dearer one's value asked: its premium against the gain for the job.")
    whole_server: bool = Field(False, description='A card is named as a whole server ("one DGX H100", "an H100 box").')
    rents_out: bool = Field(False, description='The owner rents the GPUs out to others ("rent them out at $2/GPU-hour", "lease to others"): '
                            "the rent is revenue, the question the lessor's margin and payback (read over the task's messages).")
    site_region: str | None = Field(None, description='Where the servers run, as the conversation last placed them ("in Frankfurt" → "eu"; '
                                    "knowledge/region_tariffs.yaml): whose electricity and colocation prices a cost answer uses.")
    asks_equivalent: bool = Field(False, description='"Huawei\'s answer to the H100?", "can the 910B replace our A100s?": a part that stands '
                                  "in for a named one is asked (an answer only when another vendor's side is named too).")
    equivalent_vendors: tuple[str, ...] = Field((), description='Catalog vendors the message names a side by ("Huawei"; "domestic" → '
                                                "Huawei and Cambricon), in the order of knowledge/equivalents.yaml.")
    service_context: tuple[str, ...] = Field((), description='What the hardware is for, as the conversation says it: "regulated_sector" (a bank, '
                                             'a hospital, government), "client_premises" (on-prem in the client\'s data centre), "production_service" '
                                             '(customer-facing, 24/7); data/ask_cues.yaml.')
    uptime_target: float | None = Field(None, description='An availability target said in the conversation ("99.9% uptime SLA"), in percent.')
    quote_per_card: bool = Field(False, description='A price this message quotes is said of one card ("¥18k each", "per card"), not of the machine.')
    part_prices: tuple[PartPrice, ...] = Field((), description='The card price this message quotes for each named part, in a clause naming '
                                               'that part alone with no count ("4090 sells for 16k yuan, 5090 for 20k").')
    gpu_hours: GpuHours | None = Field(None, description='Use stated as GPU-hours over a period ("300 gpu-hours a week"): it sets the hours a '
                                       "cost is worked on (utilisation), never the number of cards.")
    reservation: Reservation | None = Field(None, description='Reserved weighed against on-demand ("1-yr reserved at $3.9/hr vs on-demand '
                                            '$6.9"), each rate bound to its billing word.')
    asks_price_trend: bool = Field(False, description='"will H100 rental prices drop next year?": where a rent or price is '
                                   'going is asked (a future word with a price or rent word in the task\'s messages), not only today\'s figure.')
    rent_tiers_named: tuple[str, ...] = Field((), description='The rent tiers the task\'s messages name ("Vast or RunPod, or stay on AWS?" → '
                                              '"hyperscaler", "marketplace"; data/tco_words.yaml rent_tiers), "asks_tier" when a word asks which tier.')
    compares_rent_tiers: bool = Field(False, description='Rent tiers are weighed and nothing is bought ("on-demand, reserved or a GPU cloud like '
                                      'Lambda?", "Vast or AWS for our fine-tunes?"): each tier at the stated use, not a rent-or-buy payback; a '
                                      'reservation weighed against on-demand alone keeps its own answer.')
    weighs_reservation: bool = Field(False, description="The message, or the thread it continues, weighs reserved (committed) capacity against "
                                     'on-demand for its use ("what if we only use it half the time?" after one keeps the rates said).')
    load_shape: LoadShape | None = Field(None, description='The load as said: base GPUs busy all the time, the peak count and its hours a day '
                                         '("8 around the clock, bursting to 24 for 6 hours a day").')
    figures_stated: tuple[StatedFigure, ...] = Field((), description='Memory sizes and bare figures this message states beside the card it '
                                                     'names ("the B200 is 192 GB, right?", "the H100 has 1979 TFLOPS, right?"): claims the spec answer checks first.')
    spec_fields_asked: tuple[str, ...] = Field((), description='The catalog figures this message asks of a card, in the order written: '
                                               '"What is the H200\'s memory bandwidth?" → ("bandwidth_gbs",) (nlu/spec_claim.py).')
    comparison_claim: ComparisonClaim | None = Field(None, description='A comparison this message states between two named cards: '
                                                     '"the L40S has more TFLOPS than the A100, right?" → bf16_tflops, more, L40S over A100; '
                                                     'the spec answer leads with right or wrong and the two figures.')
    states_comparison: bool = Field(False, description='comparison_claim is set: the message states a comparison of one figure '
                                    'between two named cards ("H20 has more memory than the H100, right?").')
    candidate_configs: tuple[Candidate, ...] = Field((), description='The user\'s own shortlist, (card, count) pairs in the order '
                                                     'named: "quotes for 2x H100, 4x L40S or 1x H200 — which?" → (h100, 2), (l40s, 4), (h200, 1); '
                                                     'two or more, else none (nlu/shortlist.py). Each is evaluated for the stated job.')
    weighs_shortlist: bool = Field(False, description='The message offers its own candidate configurations to choose between ("4 used 3090s '
                                   'or 2 4090s?"): candidate_configs holds them.')
    parts: tuple[str, ...] = Field((), description='The measures this message asks for, in the order written (data/asked_measures.yaml): '
                                   '"power draw and network for 4x8 H100 nodes?" → ("power", "network"); two or more make a question of '
                                   'several parts, each answered by its own calculation.')
    samples: SamplesSaid | None = Field(None, description='A data set said as a count of samples in this message or the task\'s '
                                        '("fine-tune on 50k samples", "50 thousand samples of about 2000 tokens each", said in Chinese with its own count word): samples, not tokens nor a context '
                                        "length; a training time works from samples × the length of one (nlu/samples.py).")
    asks_one_card: bool = Field(False, description='"what does one H100 cost?", "is a single 4090 enough?": this message counts one card and '
                                "no server word, so a price or plan is of that one card, not of the 8-GPU machine it is usually sold in.")
    rents_only: bool = Field(False, description='The user rents and does not buy ("we only use the cloud", "we never buy hardware", '
                             "its Chinese forms; read over the task's messages): tiers and the lead are what renting costs, no purchase is offered.")
    renting_ok: bool = Field(False, description='Renting is acceptable without being the only way ("cloud is fine", "happy to rent", its '
                             "Chinese forms; read over the task's messages): the rent of each configuration leads, the purchase follows.")
    no_server_room: bool = Field(False, description='The site has no server room or data centre ("we have no server room", its Chinese '
                                 "forms; read over the conversation): machines that stand in an office, no rack server.")
    vague_counts: tuple[VagueCount, ...] = Field((), description='Counts this message says as an order of magnitude ("dozens of users", '
                                                 '"a few hundred people"): the range the words span and the planning value sized for '
                                                 "(nlu/vague_counts.py), which the answer says as an assumption.")
    holds_cards: bool = Field(False, description='The user says the cards named are theirs ("I have 2 A6000s", "we already own 16 A100s"); '
                              'never for a message about buying ("we have quotes for 2x H100", "should we buy"): only then is '
                              '"use what you have" an answer.')

    @classmethod
    def read(cls, reading: Reading, catalog: Catalog, earlier: list[str] = ()) -> Ask:
        """The Ask of ``reading``: from its message, the task's messages, the user's ``earlier`` messages (for
        what holds for the whole conversation, such as a site's feeds) and the conversation's frame."""
        message = reading.text
        thread = reading.task_messages or [message]
        state = reading.state
        prices = state.slots.get("cloud_price")
        opened_earlier = bool(reading.task_messages) and reading.task_messages[0] != message
        named = subjects_of(message, catalog)
        gpus_at = [(v.value.start, v.value.value) for v in reading.tagged if v.value.kind == "gpu"]
        comparison = None if says("asks_which", message) else comparison_claim(message, gpus_at)
        if (tokens_per_day := daily_token_volume(message, reading.tagged)) is not None:  # "100M tokens a day": a volume to turn into a rate
            named = named | {"ask": named.get("ask", frozenset()) | {TOKEN_RATE}}
        return cls(
            task=reading.task,
            workload=Workload.read(state, catalog),
            asks_why=says("asks_why", message),
            asks_table=says("asks_table", message),
            asks_count=says("asks_count", without("pointer_holds_count", message)),  # a pointer holding a count word ("these few boxes") asks no count
            points_at_setup=says("points_at_setup", message),
            renting=(renting := says("renting", *reading.task_messages) or says("renting_ok", *reading.task_messages)),  # "cloud is fine" speaks of renting
            buying=(buying := says("buying", *reading.task_messages)),
            price_only=says("price_only", *(v.surface for v in state.slots.get("objective", []))),  # any of the objective words
            price_per_card=bool(prices) and prices[0].said_per_card,
            latency_target=is_latency_target(state.surface("speed_target"), catalog),
            serving_asks=serving_asks(thread),
            count_asked_earlier=serving_asks_earlier(earlier) == "gpu_count",
            weighs_precision=asks_precision_choice(message),
            decision=_decision(message, named),
            throughput_scope=None if is_latency_target(state.surface("speed_target"), catalog)
            else scope_of(thread, state.surface("speed_target"), _number(state.get("speed_target"))),
            observed_speed=observed_speed(message, catalog),
            observed_scope=observed_scope(message, catalog),
            claimed_rate=claims_rate(message) and observed_speed(message, catalog) is not None,
            observed_in_thread=any(asks_if_observed_is_normal(text) for text in thread),
            speaks_of_serving=any(reports_serving(text) for text in thread),
            reports_serving=any(reports_serving(text) for text in thread) and any(reports_slowdown(text) for text in thread),
            job_joins=job_joins(message),
            reasoning_model=any(names_reasoning_model(text) for text in thread),
            # a first-token time stated as a requirement ("TTFT under 2 s: how many cards?") is a target to size for, not a complaint
            reports_latency=any(reports_latency(text) for text in thread)
            and not (is_latency_target(state.surface("speed_target"), catalog) and any(states_latency_budget(text) for text in thread)),
            weighs_parallelism=weighs_parallelism(message),
            shared_prefix=next((said for text in reversed(thread) if (said := shares_prefix(text)) is not None), None),
            tail_latency=any(names_tail_latency(text) for text in thread),
            tco_line=asked_line("tco_line", message),
            committed_billing=any(word_positions("tco_billing", text) for text in thread),
            names_kv_cache=_names_kv_cache(message),
            pasted_config=pasted_config(message),
            asks_rental_price=says("rental_price", *thread),
            names_hyperscaler=says("hyperscaler", *thread),
            weighs_owning=says("owning", *thread) or any(word_positions("tco_claim", text) for text in thread),
            market=_market(reading),
            vendors_named=tuple(v.id for v in vendor_options().named_in(message.casefold())),
            asks_price=says("asks_price", message),
            owns_hardware=(owns := says("owns_hardware", message)),
            personal_machine=says("personal_machine", *thread),
            # "buy or rent 8 H100s?" weighs the purchase of the cards named: they are not the user's until said to be
            cards_on_hand=owns or not (buying and renting),
            leans_on_active=says("leans_on_active", message),
            asks_renting_side=says("asks_renting_side", message),
            asks_useful_life=says("speaks_of_life", message) and says("judges_life", message),
            beyond_reach=says("beyond_reach", message),
            asks_yes_no=says("asks_yes_no", message),
            asks_if_fits=says("asks_if_fits", message),
            asks_judgement=says("asks_judgement", message),
            asks_how_to=says("asks_how_to", message),
            asks_off_topic_use=says("off_topic_use", message) and not says("ai_work", message),
            asks_expected_rate=says("names_token_rate", message) and says("expects_figure", message) and not says("training_words", message),
            timeline="open" if says("timeline_open", *earlier, message) else "near" if says("timeline_near", *earlier, message) else None,
            asks_spec_sheet=says("asks_spec_sheet", message),
            billing_said_earlier=any(word_positions("tco_billing", text) for text in reading.task_messages[:-1]),
            capability=_capability_asked(reading),
            capabilities_named=tuple(capabilities_named(message)),
            thread_messages=len(reading.task_messages),
            opened_earlier=opened_earlier,
            named=named,
            facility_asks_now=facility_asks(without("pointer_holds_count", message)),
            facility_asks=facility_asks(" ".join(without("pointer_holds_count", text) for text in thread)),
            fabric_opened="fabric" in facility_asks(reading.task_messages[0]) if reading.task_messages else False,
            circuit=read_circuit([*earlier, message]),
            states_circuit=read_circuit([message]) is not None,
            rack_count=read_rack_count(message),
            node_count=read_node_count(message),
            card_cut=card_cut(message),
            names_fp4="fp4" in normalize_text(message),
            replaces_hardware=says("replaces_hardware", message) and len(named.get("gpu", ())) >= 2,
            asks_technique=says("asks_technique", message),
            weighs_technique=bool(named.get("topic", frozenset()) & frozenset(load_subjects().serving_techniques)) and says("judges_technique", message),
            follow_up_asks=follow_up_asks(message) if opened_earlier else None,
            follow_up_subject=new_subjects()[name] if earlier and (name := follow_up_subject(message)) else None,
            asks_of_figure=_figure_question(message) if earlier else None,
            confirms_side=_side_confirmed(message) if opened_earlier else None,
            model_sizes_b=_model_sizes(reading, catalog),
            aside_models=_aside_models(reading, catalog),
            message_lines=message.count("\n") + 1,
            pasted_output=pasted_output(message),
            problem_phase=problem_phase(thread),
            quantised=says("quantised", *thread),
            quality_first=says("quality_first", *earlier, *thread),  # "no quantisation" holds for the conversation, a new question too
            recurring=says("recurring", *thread),
            reports_oom=any(says("reports_oom", text) and not says("asks_if_oom", text) for text in thread),
            short_of_plan=says("short_of_plan", *thread),
            running_costs=running_costs(message, state),
            ratio_claim=ratio_claim([message, *reversed(reading.task_messages[:-1])] if opened_earlier else [message]),
            payback_word_starts=payback_word_starts(message),
            speaks_of_payback=bool(word_positions("tco_claim", message)),
            commitment_terms=commitment_terms(message, reading.frame),
            horizon_ranges=horizon_ranges(state),
            requests_no_period=requests_no_period(message, reading.tagged),
            tokens_per_day=tokens_per_day,
            api_usage=(usage := api_usage(message, reading.tagged)),
            link_speed_gbps=(link := _stated_link(reading, catalog))[0],
            link_count=link[1],
            claimed_multiple=(multiple := next((v.value.value for v in reading.tagged if v.value.kind == "ratio"), None)),
            # a multiple said between two parts ("is the B200 really 30x an H100?") is a claim to check, with or without a cue word
            # a claim on one named figure with no multiple ("the 4090 has more bandwidth than the L40S, true?") is the
            # comparison_claim, checked on that figure, not weighed on every figure
            weighs_claim=((says("weighs_claim", message) and comparison is None) or multiple is not None) and len(named.get("gpu", ())) >= 2,
            weighs_premium=says("weighs_premium", message) and len(named.get("gpu", ())) >= 2,
            whole_server=says("whole_server", message),
            # an API named with a volume or serving words, or a price per million tokens said beside self-hosting words
            weighs_api=(usage is not None and (usage.tokens_per_day is not None or usage.tokens_no_period is not None
                                               or reading.frame.get("method") == "inference"))
            or (reading.frame.get("api_price") is not None and says("self_hosting", message)),
            rents_out=says("rents_out", *thread),
            site_region=site_region([*earlier, message]),
            asks_equivalent=says("asks_equivalent", message),
            equivalent_vendors=vendors_named(message),
            service_context=tuple(kind for kind in SERVICE_CONTEXTS if says(kind, *earlier, message)),  # type: ignore[arg-type]
            uptime_target=uptime_target([*earlier, message], catalog),
            part_prices=(prices := part_prices(reading)),
            quote_per_card=bool(prices) or quote_per_card(reading),
            gpu_hours=(used := gpu_hours_used(message)),
            reservation=(reserved := reservation_in_thread(thread, reading.frame, state)),
            load_shape=load_shape(message, reading.tagged, used),
            weighs_reservation=reserved is not None,
            asks_price_trend=says("price_future", message) and (says("rental_price", *thread) or says("renting", *thread) or says("asks_price", *thread)),
            rent_tiers_named=(tiers := rent_tiers_named(thread)),
            compares_rent_tiers=_compares_rent_tiers(tiers, reserved is not None, reading.frame, state)
            and not (says("owning", *thread) or any(word_positions("tco_claim", text) for text in thread)),
            figures_stated=_figures_stated(reading) if asks_to_confirm(message) or says("asks_yes_no", message) else (),
            spec_fields_asked=_figures_asked(message, named),
            comparison_claim=comparison,
            states_comparison=comparison is not None,
            candidate_configs=(candidates := candidate_configs(message, reading.frame, _aside_cards(reading))),
            weighs_shortlist=bool(candidates),
            # "we have quotes for ...", "should we buy": a having word in a purchase question owns nothing
            rents_only=says("rents_only", *thread),
            renting_ok=says("renting_ok", *thread),
            no_server_room=says("no_server_room", *earlier, message),
            asks_one_card=reading.frame.get("gpu_count") == 1 and bool(named.get("gpu")) and not says("whole_server", message),
            vague_counts=vague_counts(normalize_text(message)),
            holds_cards=owns or (says("has_cards", message) and not says("purchase_offer", message)),
            parts=measures_asked(message),
            samples=next((found for text in [message, *reversed(reading.task_messages)] if (found := samples_said(text, catalog))), None),
        )


BILLING_TIERS = frozenset({"hyperscaler", "on_demand", "committed"})  # one cloud's ways to bill: reserved_or_on_demand weighs them


def _compares_rent_tiers(tiers: tuple[str, ...], weighs_reservation: bool, frame: Frame, state: Frame) -> bool:
    """Two rent tiers named, or one with a word asking which tier, with no purchase price or API bill in the conversation;
    a reservation weighed against on-demand of one cloud only stays with the reservation answer."""
    named = [tier for tier in tiers if tier != "asks_tier"]
    if not named or (len(named) < 2 and "asks_tier" not in tiers):
        return False
    if any(f.has(slot) for f in (frame, state) for slot in ("server_price", "budget")):
        return False
    return not (weighs_reservation and set(named) <= BILLING_TIERS)


@lru_cache(maxsize=1)
def _vendor_patterns() -> tuple[tuple[tuple[str, ...], re.Pattern[str]], ...]:
    return tuple((group.vendors, cue_pattern(group.cues)) for group in equivalents().vendor_groups)


def vendors_named(message: str) -> tuple[str, ...]:
    """The catalog vendors whose words the message says ("Huawei" → Huawei; "domestic" → every domestic vendor), each once."""
    text = normalize_text(message)
    found = [vendor for vendors, pattern in _vendor_patterns() if pattern.search(text) for vendor in vendors]
    return tuple(dict.fromkeys(found))


def _side_confirmed(message: str) -> str | None:
    """The one side of a rent-or-buy a confirmation names ("buying is cheaper, right?" → "buy"); None when it names both or neither."""
    if not asks_to_confirm(message):
        return None
    sides = [side for side, flag in (("buy", "buying"), ("rent", "renting")) if says(flag, message)]
    return sides[0] if len(sides) == 1 else None


CLAUSE_ENDS = frozenset(",，;；。?？!！\n")


def quote_per_card(reading: Reading) -> bool:
    """A purchase price this message quotes is said of one card: by its own words ("$18k each"; "servers at $270k each"
    is each server's), else by a per-card word in a clause that states no rent; a rent's own "per card" ("rent them
    out at $2 per GPU-hour") says nothing of the purchase, and a server word makes it the machine's."""
    message = reading.text
    for value in reading.frame.slots.get("server_price", []):
        if says("whole_server", value.lead + " " + value.surface):  # "three 8-GPU servers at $270k each": each server
            return False
        if value.said_per_card:
            return True
    rents = [value.start for value in reading.frame.slots.get("cloud_price", []) if value.start >= 0]
    clauses, begin = [], 0
    for i, char in enumerate(message + "\n"):
        if char in CLAUSE_ENDS:
            clauses.append(message[begin:i] if not any(begin <= at <= i for at in rents) else "")
            begin = i + 1
    rest = " ".join(clauses)
    return says("price_per_card", rest) and not says("whole_server", message)


def uptime_target(messages: list[str], catalog: Catalog) -> float | None:
    """The availability target of the newest message that says one: a percentage from UPTIME_FLOOR up in a message
    with an uptime word ("99.9% uptime", "an availability of 99.95%")."""
    for text in reversed(messages):
        if not says("uptime_target", text):
            continue
        found = [float(v.value) for v in find_values(normalize_text(text), catalog) if v.kind == "percent" and UPTIME_FLOOR <= float(v.value) < 100]
        if found:
            return max(found)
    return None


def problem_phase(thread: list[str]) -> str | None:
    """The phase the newest message that names one gives; in one message, a load named beside the start-up wins
    ("starts fine, but OOMs under heavy load": the start-up is what went well)."""
    for text in reversed(thread):
        if says("under_load_phase", text):
            return "under_load"
        if says("startup_phase", text):
            return "startup"
    return None


def _capability_asked(reading: Reading) -> Capability | None:
    """This message's capability; a follow-up that names none ("and the H200?") keeps the latest one the thread asked."""
    messages = [reading.text, *reversed(reading.task_messages)] if reading.follow_up else [reading.text]
    return next((found for text in messages if (found := capability_of(text)) is not None), None)


def _stated_link(reading: Reading, catalog: Catalog) -> tuple[float | None, int | None]:
    """The network link rate (Gb/s) and the count of such links this message states, else the conversation's latest."""
    earlier = [text for text in reading.task_messages if text != reading.text]
    for values in ([v.value for v in reading.tagged], *(find_values(normalize_text(text), catalog) for text in reversed(earlier))):
        rate = next((float(v.value) for v in values if v.kind == "link_speed"), None)
        if rate is not None:
            count = next((int(v.value) for v in values if v.kind == "link_count"), None)
            return rate, count
    return None, None


def _model_sizes(reading: Reading, catalog: Catalog) -> tuple[float, ...]:
    """The sizes of the models named in the conversation: bare sizes ("7B to 72B") and catalog models by their parameters."""
    state = reading.state
    sizes = {round(value / 1e9, 3) for value in state.all("size") if isinstance(value, int | float) and value > 0}
    for name in state.all("model"):
        spec = catalog.find_model(name)
        if spec is not None and spec.params_b:
            sizes.add(round(spec.params_b, 3))
    kept: list[float] = []
    for size in sorted(sizes):  # "Llama 3.1 70B, a 70B model": 70 and 70.6 are one size said twice
        if not kept or size > kept[-1] * SAME_SIZE:
            kept.append(size)
    return tuple(kept)


def _aside_models(reading: Reading, catalog: Catalog) -> tuple[str, ...]:
    """The models of this message that play no role: the tagger gives a named model one unless it was set aside."""
    names = []
    for item in reading.tagged:
        if item.role != NONE or item.value.kind not in ("model", "params"):
            continue
        if item.value.kind == "params":
            names.append(f"{item.value.value / 1e9:g}B")
        else:
            found = catalog.find_model(str(item.value.value))
            names.append(found.name if found is not None else str(item.value.value))
    return tuple(dict.fromkeys(names))


def _aside_cards(reading: Reading) -> tuple[SlotValue, ...]:
    """The catalog cards of this message that took no role ("MI300X instead of H100": the card replaced)."""
    return tuple(SlotValue(value=item.value.value, surface=item.value.surface, start=item.value.start)
                 for item in reading.tagged if item.role == NONE and item.value.kind == "gpu")


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _decision(message: str, named: dict[str, frozenset[str]]) -> str | None:
    """The decision a message asks for: whether a precision it names can be trusted ("precision_safe"); a precision of the
    KV cache is a setting of the cache, whose own card answers it."""
    if named.get("precision") and says("judges_quality", message) and not _names_kv_cache(message):
        return "precision_safe"
    return None


def _names_kv_cache(text: str) -> bool:
    found = default_glossary().expand(text)
    terms = pattern_words("kv_cache_terms")
    return terms["english"] in found.english or terms["chinese"] in found.chinese


def pasted_config(text: str) -> str | None:
    """A Hugging Face config.json pasted into the message (the model tools accept its text)."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    candidate = text[start : end + 1]
    shape_keys = ("hidden_size", "n_embd", "num_hidden_layers", "n_layer", "d_model", "text_config")
    if not any(f'"{key}"' in candidate for key in shape_keys):
        return None
    # Broken JSON is passed on too: the model resolver explains what is wrong with it.
    return candidate


def _market(reading: Reading) -> str | None:
    """The buyer's market: a region said wins, then the budget's currency, then the question's language."""
    region = reading.state.get("region")
    if region:
        return "cn" if region == "cn" else "global"
    currency = getattr(reading.state.get("budget"), "currency", None)
    if currency is not None:  # "a budget of 300k US dollars" said in Chinese: a dollar budget is spent on the global market, whatever the language
        return "cn" if currency == "CNY" else "global"
    return "cn" if reading.language == "zh" else None


def _figure_question(message: str) -> str | None:
    """What a later message asks of the figure just given: its scope ("is that per GPU or total?") before what it counts
    ("does that include cooling?"); None unless it is a question that points at that figure ("that", "this") or a short one
    ("that covers it, thanks" asks nothing). A message that points at nothing and names a measure of its own ("memory
    per card?") asks that measure anew."""
    scope, includes = says("asks_figure_scope", message), says("asks_figure_includes", message)
    if not (scope or includes) or not is_question(message):
        return None
    if not says("points_at_figure", message) and (len(message.strip()) > PIPELINE.continue_thread.short_chars or measures_asked(message)):
        return None
    return "scope" if scope else "includes"


def _figures_stated(reading: Reading) -> tuple[StatedFigure, ...]:
    """The sizes and bare figures of this message that no tool slot took as a workload value (a model's size, a count);
    read only when the message asks to have something confirmed ("..., right?", or the Chinese sentence-final particle of a confirmation), so "an A100 80GB" is no claim."""
    if not any(value.value.kind == "gpu" for value in reading.tagged):
        return ()
    return tuple(StatedFigure(kind=v.value.kind, value=float(v.value.value), surface=v.value.surface) for v in reading.tagged
                 if v.value.kind in STATED_KINDS and v.role in (NONE, "gpu_memory") and float(v.value.value) >= STATED_FLOOR)


def _figures_asked(message: str, named: dict[str, frozenset[str]]) -> tuple[str, ...]:
    """The catalog figures ``message`` asks of a card, less those whose words an ask it names uses in its own sense
    (knowledge/subjects.yaml ``takes_figures``: "blower or open-air cooling for four 3090s?" asks the cooler choice)."""
    asks = named.get("ask", frozenset())
    taken = {figure for subject in load_subjects().subjects if subject.id in asks for figure in subject.takes_figures}
    return tuple(field for field in spec_fields(message) if field not in taken)
