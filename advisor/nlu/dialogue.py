"""Whether a message continues the open question: a small logistic model over dialogue features.

A follow-up rarely says that it is one: "only happens on 2 nodes" after a pasted NCCL log, "for 10
concurrent" after a serving question, "i only run it 8h a day" after a rent-or-buy table. Read on
its own, each looks like a question of its own, or like nothing. In its conversation what decides
is how well the message's values fit the open question, how short it is, and how sure the intent
classifier is of something else. Those are the features. The weights are learned from the corpus:
every turn of its conversations in its place, each follow-up phrasing set after task questions,
and each other message set after a task question it does not continue.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable

from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LogisticRegression

from advisor.name_matcher import normalize_text
from advisor.nlu.corpus import TASKS, Corpus
from advisor.nlu.cues import dialogue_cue, says
from advisor.nlu.features import words
from advisor.nlu.frame import Frame
from advisor.nlu.pattern_words import alternatives
from advisor.nlu.pipeline import PIPELINE
from advisor.nlu.reading import Reading

SUBJECT = ("model", "size")
TOPIC = "concept"  # a concept question asked with no calculation open: its follow-ups ask it again, changed
PROBLEM = "troubleshoot"  # a thread that gathers facts about one problem
# Settings declared in pipeline.yaml (continue_thread), with the measurements behind them
CONTINUES = PIPELINE.continue_thread.continues
SHORT = PIPELINE.continue_thread.short_chars
SEEN_WITH_TASK = PIPELINE.continue_thread.seen_with_task
CONVERSATION_WEIGHT = PIPELINE.continue_thread.conversation_weight
# What is left of "5090s?", "H200 then?", "and 32k?" once the values are taken out: nothing a question needs.
# A question asks ("how fast…?", "can it run?"); a statement after a question adds to it ("it lives in my bedroom").
ASKS = re.compile(alternatives("asks"), re.IGNORECASE)
# "if i drop max_model_len to 16k…", "would switching to 8-bit adam fix it", "I turn the batch down…": the user proposes a change to their own setup
PROPOSES_CHANGE = re.compile(alternatives("proposes_change"))
# Amending verbs count as filler too: "raised it to 0.19", "change it to 64" say no more than the number.
FILLER = re.compile(alternatives("filler"), re.IGNORECASE)


# "vs l40s", "and compared with an H20?": a card set beside the ones on the table, not in their place.
# "why is that slower than the A6000?", "how is it even slower than the L40S": the answer's card measured against another.
COMPARED_WITH = re.compile(alternatives("compared_with"))
# "how long would it take on that", "run it on this setup": a new question asked of the setup already described
ON_THAT_SETUP = re.compile(alternatives("on_that_setup"))


def compares_with(reading: Reading) -> bool:
    return bool(COMPARED_WITH.search(normalize_text(reading.text)))


def offers_choice(reading: Reading) -> bool:
    """Two or more values of one slot with a word that offers them as alternatives."""
    several = any(len(values) > 1 for slot, values in reading.frame.slots.items() if slot != "gpu")
    return several and dialogue_cue("choice", normalize_text(reading.text))


def on_that_setup(reading: Reading) -> bool:
    return bool(ON_THAT_SETUP.search(normalize_text(reading.text)))


def own_subject(reading: Reading) -> bool:
    return any(reading.frame.has(slot) for slot in SUBJECT)


def only_values(reading: Reading) -> bool:
    """A message that is only values and particles ("H20?", "32k then?"); two GPUs side by side are a comparison."""
    if not reading.tagged or len(reading.frame.all("gpu")) > 1:
        return False
    text = normalize_text(reading.text)
    for item in sorted(reading.tagged, key=lambda item: -item.value.start):
        text = text[: item.value.start] + " " + text[item.value.end :]
    return len(FILLER.sub("", text)) <= 1


class ContinuationModel:
    def __init__(self, task_slots: dict[str, set[str]]):
        self.task_slots = task_slots

    def features(self, reading: Reading, as_follow_up: Frame, task: str, state: Frame) -> dict[str, float]:
        """``as_follow_up``: what the message states when its values are read as amending a question."""
        stated = as_follow_up.names()
        text = reading.text.strip()
        lowered = text.lower()
        courteous, asks_why, compares = dialogue_cue("courtesy", text), says("asks_why", text), compares_with(reading)
        probabilities = reading.probabilities
        features = {
            f"open={task}": 1.0,
            f"read={reading.intent}": 1.0,
            f"pair={task}>{reading.intent}": 1.0,
            f"lang={reading.language}": 1.0,
            "same_task": float(reading.intent == task),
            "p_follow_up": probabilities.get("follow_up", 0.0),
            "p_open_task": probabilities.get(task, 0.0),
            "confidence": reading.confidence,
            "own_subject": float(own_subject(reading)),
            f"own_gpu&open={task}": float(reading.frame.has("gpu")),  # after a spec question a card is the subject
            "only_values": float(only_values(reading)),
            "several_gpus": float(len(reading.frame.all("gpu")) > 1),
            "offers_choice": float(offers_choice(reading)),
            "short": float(len(text) <= SHORT),
            "length": min(math.log1p(len(text)) / 8, 1.0),
            "pasted": float(text.count("\n") >= 3),
            "no_slots": float(not stated),
            "untagged_values": float(len(reading.tagged) > len(stated)),
            "state_empty": float(not state.names()),
            "asks": float(bool(ASKS.search(text))),
            # "ok thanks" is courtesy; "ok tp 4?" is an amendment that starts politely
            "courtesy": float(courteous and not stated),
            "courtesy_with_values": float(courteous and bool(stated)),
            "refers_back": float(dialogue_cue("refers_back", text)),
            "asks_why": float(asks_why),  # "why is that slower than the A6000?" names cards, yet asks about the answer
            "questions_answer": float(len(text) <= SHORT and not reading.frame.names() and asks_why),
            # "why is it slower than an H100?", "why slower than an A6000": the answer just given, set beside another card
            "questions_answer_beside": float(asks_why and compares and dialogue_cue("refers_back", text)),
            "compares": float(compares),  # "and against four 3090s?" after a speed sets a card beside the answer
            "aside": float(dialogue_cue("aside", text)),
            "proposes_change": float(bool(PROPOSES_CHANGE.search(lowered))),  # "would setting max_model_len to 16384 work?" in a problem thread
        }
        for name in ("compares", "aside", "proposes_change"):  # what each means depends on the question open
            features[f"{name}&open={task}"] = features[name]
        for intent, p in probabilities.items():  # the whole reading, not just its top: "p(concept) 0.3" is a different message from 0.01
            features[f"p={intent}"] = p
        best_task = max((t for t in probabilities if t in TASKS), key=probabilities.__getitem__, default=None)
        if best_task is not None:  # what it would ask if it asked something of its own
            features[f"best_task={best_task}"] = 1.0
            features["best_task_is_open"] = float(best_task == task)
            features["p_best_task"] = probabilities[best_task]
        features[f"asks&read={reading.intent}"] = features["asks"]
        features[f"courtesy&read={reading.intent}"] = features["courtesy"]  # "lowering the learning rate did not help either" reads as a greeting but thanks nobody
        features[f"refers_back&read={reading.intent}"] = features["refers_back"]
        for name in ("no_slots", "short", "only_values", "same_task", "offers_choice", "asks_why", "compares", "aside", "proposes_change", "questions_answer_beside"):  # how much each cue counts depends on what the classifier read
            features[f"{name}&read={reading.intent}"] = features[name]
        if stated:
            features["fits_open_task"] = sum(slot in self.task_slots.get(task, ()) for slot in stated) / len(stated)
            features["restates"] = sum(state.has(slot) for slot in stated) / len(stated)
            features["slots"] = min(len(stated), 5) / 5
            for name in ("fits_open_task", "restates"):  # "would TensorRT-LLM be faster" reads as a concept, but its engine fits the open question
                features[f"{name}&read={reading.intent}"] = features[name]
        if len(text) <= 2 * SHORT:  # a short message's own words ("btw", "already", "only", "still") carry the cue
            tokens = words(normalize_text(text))
            for word in set(tokens):
                features[f"w={word}"] = 1.0
            for pair in set(zip(tokens, tokens[1:])):  # "what if", "how about", "switch to": phrasings, not words
                features[f"b={pair[0]}_{pair[1]}"] = 1.0
        return features

    def fit(self, rows: list[dict[str, float]], labels: list[bool], weights: list[float]) -> ContinuationModel:
        self.vectorizer = DictVectorizer()
        # C chosen by cross-validation (the scores are beside it in pipeline.yaml): the many word features need a strong prior
        self.model = LogisticRegression(C=PIPELINE.continue_thread.C, max_iter=PIPELINE.continue_thread.max_iter)
        self.model.fit(self.vectorizer.fit_transform(rows), labels, sample_weight=weights)
        return self

    def probability(self, reading: Reading, as_follow_up: Frame, task: str, state: Frame) -> float:
        row = self.vectorizer.transform([self.features(reading, as_follow_up, task, state)])
        return float(self.model.predict_proba(row)[0][list(self.model.classes_).index(True)])


def train_continuation(
    data: Corpus, read: Callable[[str], Reading], as_follow_up: Callable[[Reading], Frame], seed: int = 0
) -> ContinuationModel:
    """Fit on the corpus; ``read`` must give readings whose intent probabilities did not see the utterance."""
    turns = [turn.utterance for conversation in data.conversations for turn in conversation.turns]
    gold = {u.text: u.intent for u in [*data.utterances, *turns]}
    readings = {text: read(text) for text in gold}  # each text once: a conversation's question is also an utterance
    amended = {text: as_follow_up(reading) for text, reading in readings.items()}
    model = ContinuationModel(_task_slots(data))
    rows, labels, weights = [], [], []

    def add(reading: Reading, task: str, state: Frame, continues: bool, weight: float) -> None:
        rows.append(model.features(reading, amended[reading.text], task, state))
        labels.append(continues)
        weights.append(weight)

    for conversation in data.conversations:
        task, state = None, Frame()
        for turn in conversation.turns:
            reading, intent = readings[turn.utterance.text], turn.utterance.intent
            if task is not None:  # a further report in a problem thread goes on with it, whichever of the two labels it has
                add(reading, task, state, intent == "follow_up" or intent == task == PROBLEM, CONVERSATION_WEIGHT)
            if intent in TASKS:
                state = state.updated(reading.frame) if task and not own_subject(reading) else reading.frame
                task = intent
            elif intent == "follow_up" and task:
                task, state = turn.expect_task or task, state.updated(reading.frame)
            elif intent == TOPIC and task in (None, TOPIC):  # as the reader does: an opening concept question stays open
                task, state = TOPIC, reading.frame

    rng = random.Random(seed)
    contexts = [(gold[text], reading) for text, reading in readings.items() if gold[text] in TASKS]
    by_task = defaultdict(list)
    for task, context in contexts:
        by_task[task].append((task, context))
    continued = {turn.utterance.text: turn.expect_task for c in data.conversations for turn in c.turns if turn.expect_task}
    for text, reading in readings.items():
        pool = by_task[continued[text]] if continued.get(text) in TASKS else contexts  # a detail of a pasted log follows a log
        for task, context in rng.sample(pool, 2 if gold[text] == "follow_up" else 1):
            asks_same_again = gold[text] == task and not own_subject(reading) and not _asks_of_own_card(reading, task)
            add(reading, task, context.frame, gold[text] == "follow_up" or asks_same_again, 1.0)
    return model.fit(rows, labels, weights)


def _asks_of_own_card(reading: Reading, task: str) -> bool:
    """"what does the H800 cost" after a spec question is a question of its own; "and the H800?" amends it."""
    return task == "specs" and reading.frame.has("gpu") and not only_values(reading)


def _task_slots(data: Corpus) -> dict[str, set[str]]:
    """The slots each task's questions state often enough to belong to it."""
    counts: dict[str, Counter] = defaultdict(Counter)
    totals: Counter = Counter()
    for utterance in data.utterances:
        if utterance.intent in TASKS:
            totals[utterance.intent] += 1
            counts[utterance.intent].update({span.slot for span in utterance.spans})
    return {task: {slot for slot, n in counts[task].items() if n >= SEEN_WITH_TASK * totals[task]} for task in counts}


def restated_question(question: Reading, change: Reading) -> str:
    """An open concept question asked again with what a follow-up changes: "does int4 hurt quality?"
    then "and fp8?" asks "does fp8 hurt quality?". A follow-up that changes nothing the question
    named ("is that also true for code models?") or sets a value beside one it named ("vs fsdp?") is asked beside it."""
    text = normalize_text(question.text)
    if compares_with(change):  # "what is ZeRO-3?" then "vs fsdp?": both, side by side
        return f"{text} {change.text}"
    said = [(question.frame.slots[slot][0], values[0].surface) for slot, values in change.frame.slots.items() if question.frame.has(slot)]
    for earlier, newer in sorted(said, key=lambda pair: -pair[0].start):
        text = text[: earlier.start] + newer + text[earlier.start + len(earlier.surface) :]
    return text if said else f"{text} {change.text}"
