"""Whether a named card may be shipped to, bought in or moved into mainland China: the status verdict first,
then the dated rule that decides it and what can be bought instead. The status of every catalog row comes from
knowledge/export_rules.yaml at load time; this module only words it."""

from __future__ import annotations

from advisor.labels import CHINA_STATUS
from advisor.nlu.subjects import Subjects
from advisor.offline.wording import Wording
from advisor.offline.turn import Turn
from knowledge.catalog import variant_family
from knowledge.gpus import GPU
from tools.gpu_specs import CHINA_BUYABLE

WORDING = Wording("concept", "compliance")
ALTERNATIVES = 3  # buyable cards shown instead: the closest in memory, enough to act on without a list to read


def asks_compliance(asked: Subjects) -> bool:
    """The question names a card and the export topic ("can we ship H100 servers to Shenzhen?")."""
    return "gpu" in asked and "export" in asked.get("topic", ())


def asks_remote_use(asked: Subjects) -> bool:
    """The question names a card and asks about using it remotely ("our Shanghai team on B200s in a US cloud?"):
    whether that is allowed leads the answer, before any price. Whether the user is in China is the caller's reading."""
    return "gpu" in asked and "remote_access" in asked.get("ask", ())


def answer(turn: Turn, asked: Subjects) -> str:
    """One verdict line per named card, then the rule behind each, what is buyable instead, and the check to make."""
    gpus = [_first_of_family(turn, family) for family in sorted(asked["gpu"])]
    gpus = [gpu for gpu in gpus if gpu is not None]
    verdicts, rules = [], []
    for gpu in gpus:
        status = turn.t(*CHINA_STATUS[gpu.china])
        verdicts.append(WORDING.say(turn, "allowed" if gpu.china in CHINA_BUYABLE else "barred", gpu=gpu.name, status=status))
        rules.append(rule_line(turn, gpu))
    parts = [" ".join(verdicts), "\n".join(rules)]
    barred = [gpu for gpu in gpus if gpu.china not in CHINA_BUYABLE]
    if barred:
        parts.append(WORDING.say(turn, "servers"))
        names = _buyable_instead(turn, barred[0])
        if names:
            parts.append(WORDING.say(turn, "instead", names=turn.t(", ", "、").join(names)))
    parts.append(WORDING.say(turn, "check"))
    return "\n\n".join(parts)


def rule_line(turn: Turn, gpu: GPU, status: str = "") -> str:
    """One bullet: the card (with its status, when given), the dated rule that decides it; the rule's source is cited."""
    rule = gpu.china_rule
    said, day = turn.t(rule.en, rule.zh), rule.date.isoformat()
    name = WORDING.say(turn, "with_status", gpu=gpu.name, status=status) if status else gpu.name
    turn.cite(f"export-rule:{rule.rule}", rule.source, urls=[word for word in rule.source.split() if word.startswith("http")])
    return "- " + WORDING.say(turn, "rule" if day in said else "rule_dated", gpu=name, rule=said, date=day)


def offer(turn: Turn) -> str:
    return WORDING.say(turn, "offer")


def _first_of_family(turn: Turn, family: str) -> GPU | None:
    return next((gpu for gpu in turn.catalog.gpus if variant_family(gpu.id) == family), None)


def _buyable_instead(turn: Turn, barred: GPU) -> list[str]:
    """Data-centre cards sold in mainland China, the closest in memory to the barred one first."""
    buyable = [gpu for gpu in turn.catalog.gpus if gpu.china in CHINA_BUYABLE and gpu.segment == barred.segment]
    buyable.sort(key=lambda gpu: abs(gpu.memory_gb - barred.memory_gb))
    return list(dict.fromkeys(gpu.name for gpu in buyable))[:ALTERNATIVES]
