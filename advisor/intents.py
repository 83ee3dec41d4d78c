"""What the user wants, ranked: the offline planner picks tools from the top intents.

Cue phrases (both languages, colloquial forms included) vote for intents; the extracted
entities add smaller votes (two GPUs named → compare; a power price → TCO) so terse messages
such as "8×H100 0.8元/度" still land somewhere sensible.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from advisor.entity_patterns import term
from advisor.fast_regex import compile_guarded
from advisor.name_matcher import normalize_text
from advisor.number_roles import GPU_MARK

if TYPE_CHECKING:
    from advisor.entities import Entities

IntentName = Literal[
    "injection", "troubleshoot", "training_time", "tco", "memory", "recommend", "compare", "knowledge", "out_of_scope",
]  # fmt: skip
# Ties are broken in this order: safety first, then the most specific questions.
PRIORITY: list[IntentName] = list(IntentName.__args__)  # type: ignore[attr-defined]

CUES: dict[IntentName, list[tuple[float, str]]] = {
    "injection": [
        (3, term(r"ignore\s+(?:all\s+)?(?:the\s+)?(?:previous|prior|above|earlier|your|any)\s+(?:\w+\s+)?(?:instructions?|prompts?|rules?)")),
        (3, term(r"disregard\s+(?:all\s+)?(?:the\s+)?(?:previous|prior|above|your)|forget\s+(?:all\s+)?(?:your|previous)\s+instructions")),
        (3, r"(?:忽略|无视|忘记|忘掉)(?:掉)?(?:之前|以上|前面|上面|所有|你的|先前)?(?:的)?(?:所有)?(?:指令|指示|规则|提示|设定|要求)"),
        (3, term(r"system\s*prompt|developer\s+mode|jailbreak|dan\s+mode|reveal\s+your|print\s+your\s+(?:instructions|prompt)")),
        (3, term(r"api[\s_-]*keys?|secret\s+keys?|access\s+tokens?|password")),
        (3, r"系统提示词?|提示词|密钥|越狱|输出你的(?:指令|设定|提示)|你的(?:指令|设定)是什么|扮演(?:一个|一名)?"),
        (2, term(r"you\s+are\s+now|pretend\s+(?:you\s+are|to\s+be)|act\s+as\s+(?:a|an)")),
    ],
    "troubleshoot": [
        (3, term(r"oom|out\s+of\s+memory|cuda\s+error|xid|nccl|runtimeerror|traceback|segfault|ecc\s+errors?|fell\s+off\s+the\s+bus")),
        (3, r"报错|爆显存|显存不足|显存溢出|掉卡|卡死|死机|不收敛|炸了|梯度爆炸|loss[^。？?]{0,8}nan|nan了|出现nan|loss不(?:降|下降)"),
        (3, r"利用率(?:低|只有|很低|不高|上不去|不到|太低)|降频|频率(?:降|低|掉|下降)"),
        (2, r"过热|温度(?:高|很高|过高|太高)|卡住|超时|训练(?:很|特别|太)?慢|跑(?:得)?(?:很|特别|太)?慢"),
        (2, term(r"(?:low|poor)\s+(?:gpu\s+)?utili[sz]ation|utili[sz]ation\s+is\s+(?:low|only|stuck)|throttl\w*|overheat\w*|hangs?|hanging|stuck|timeout|timed\s+out|killed|loss\s+(?:is\s+|becomes\s+|goes\s+)?nan|crash\w*")),
        (1, r"错误|异常|怎么解决|怎么办|排查|修复|温度|" + term(r"error|errors|exception|fix|debug|slow|slower|nvidia-smi|temperature")),
    ],
    "training_time": [
        (3, r"(?:训练|训|跑|微调|预训练|finetune)[^。？?！!]{0,12}(?:多久|多长时间|几天|多少天|多少时间|几个月|几周|多少小时)"),
        (3, rf"要多久|多久(?:能|可以)?(?:训|跑)完|训完|训练时间|训练周期|训练时长|(?:多少|几)(?:张|块|台)?(?:卡|gpu|服务器|机器|{GPU_MARK})[^。？?]{{0,16}}(?:天|周|月)(?:内|之内|以内)"),
        (3, term(r"how\s+long|time\s+to\s+train|training\s+time|how\s+many\s+(?:days|hours|weeks|months)|gpu[\s-]*hours?")),
        (2, term(rf"how\s+many\s+(?:gpus?|cards?|servers?|nodes?|{GPU_MARK}+s?)[^.?]{{0,60}}(?:in|within)\s+\d+\s*(?:days?|weeks?|months?)|finish\s+(?:in|within)")),
        (1, r"卡时|多久"),
    ],
    "tco": [
        (3, r"租还是买|买还是租|租[^。？?]{0,8}还是[^。？?]{0,4}买|买[^。？?]{0,8}还是[^。？?]{0,4}租|回本|总拥有成本|自建还是|上云还是"),
        (3, term(r"rent\s+(?:or|vs\.?|versus)\s+buy|buy\s+(?:or|vs\.?|versus)\s+rent|tco|break[\s-]?even|payback|total\s+cost|cost\s+of\s+ownership|renting|leasing")),
        (2, r"电费|电价|租金|折旧|划算|合算|成本|自建|云上|上云|租用|租赁|" + term(r"rent|lease|on[\s-]?prem\w*|electricity|power\s+bill|amorti[sz]\w*|depreciation|cloud\s+vs")),
        (2, r"什么价|多少价|啥价|报价|行情|价位"),
        (1, r"多少钱|价格|花多少|贵|便宜|" + term(r"cost|costs|price|pricing|cheaper|expensive|buy|purchase")),
    ],
    "memory": [
        (3, r"最长上下文|最大上下文|最大(?:能|可以)?(?:跑|支持|开到)|最大(?:的)?(?:batch|模型)|" + term(r"max(?:imum)?\s+(?:context|batch|sequence)|largest\s+model|biggest\s+model")),
        (3, r"多少显存|显存(?:够|要多少|需要多少|占用|多大)|能(?:不能|否)?跑(?:得动|起来)?(?:吗|么|不)?|跑得(?:动|起来|了)|跑不(?:动|起来)|(?:装|放)得下|(?:装|放)不下"),
        (3, term(r"how\s+much\s+(?:gpu\s+)?(?:memory|vram)|vram|fit|fits|fitting|enough\s+(?:memory|vram)|can\s+(?:i|it|we)\s+run|will\s+it\s+run|kv[\s-]*cache")),
        (2, r"显存|够(?:不够|吗|么|用)|吃多少|占多少|内存(?:够|需要)|跑[^。？?]{0,20}(?:可以吗|行吗|行不行|可不可以)|" + term(r"can\s+[^.?]{1,40}?\s(?:run|handle|fit|load|fine[\s-]?tune|train|serve|host)")),
        # Someone quoting the "4 GB per 1B parameters" rule wants the real memory figure, not a shopping list.
        (3, r"每\s*(?:10亿|十亿)\s*参数|经验法则|\d+\s*gb?\s*(?:对吗|对不对|够吗|够不够)|" + term(r"\d\s*gb\s+per\s+(?:1\s*)?(?:b|billion)|rule\s+of\s+thumb")),
        (1, term(r"memory|run\s+on|load")),
    ],
    "recommend": [
        (3, r"选什么|选哪|买什么|买哪|用什么(?:卡|gpu|显卡|硬件|服务器|配置)|推荐|选型|该选|怎么选|如何选|配什么|怎么配|什么(?:卡|显卡|gpu|配置|硬件|服务器|机器)|哪(?:款|种|张|个)(?:卡|gpu|显卡)|需要(?:几|多少)(?:台|张|块|个|卡)|哪(?:个|款|种)(?:更)?(?:适合|合适)|适合(?:用|跑)?什么"),
        (3, term(rf"how\s+many\s+(?:gpus?|cards?|servers?|nodes?|{GPU_MARK}+s?)\s+(?:do|would|will|should)\s+(?:i|we)\s+need|which\s+(?:gpus?|cards?|accelerators?|hardware|servers?|one)|what\s+(?:gpus?|cards?|hardware|servers?|setup|config\w*)|recommend\w*|suggest\w*|best\s+(?:gpus?|cards?|option|hardware|choice)")),
        (2, term(r"should\s+i\s+(?:buy|get|use|pick|choose)|what\s+do\s+(?:i|we)\s+need|choose|pick|options?|worth\s+it") + r"|配置|方案|需要什么|靠谱|值得"),
    ],
    "compare": [
        # "H20有多少显存" asks for a GPU's own figure, not what a model needs; it must outweigh
        # the memory cues the same words also trigger ("多少显存" + "显存" = 5).
        (6, rf"{GPU_MARK}\s*(?:的)?\s*(?:有|是)?\s*(?:多少|多大)\s*(?:的)?\s*(?:显存|带宽|算力)|{GPU_MARK}\s*的?\s*(?:显存|带宽|算力)(?:是|有)?(?:多少|多大)|"
            + term(rf"how\s+much\s+(?:memory|vram|bandwidth)\s+(?:does|do)\s+(?:the\s+|an?\s+)?{GPU_MARK}+s?\s+have")),
        (3, r"对比|区别|比较|差别|差异|相比|哪个(?:好|强|快|更)|比(?:怎么样|如何|起来|一下)|(?:的|卡)(?:参数|规格)|参数(?:表|对比|是|有哪些|怎么样|多少)|规格|" + term(r"vs\.?|versus|compare\w*|comparison|difference|differ")),
        (3, term(r"specs?|specifications?")),
        (2, r"带宽(?:多少|是多少)?|算力(?:多少|是多少)?|性能(?:怎么样|如何)|" + term(r"better\s+than|faster\s+than|tflops|bandwidth")),
        (1, r"还是|" + term(r"or")),
    ],
    "knowledge": [
        (2.5, r"什么是|是什么|为什么|为啥|有什么(?:好处|用|区别|优势|作用)|好处|原理|怎么(?:回事|理解)|如何理解|介绍一下|讲讲|解释一下|科普"),
        (2, r"(?:还能|能不能|能否|哪里|哪儿|在哪|能)买(?:到|得到)|禁运|出口管制|" + term(r"export\s+controls?|availability|available\s+in|banned")),
        (2.5, term(r"what\s+is|what's|what\s+are|what\s+does|why|how\s+does|how\s+do(?!\s+i\s+(?:choose|pick))|explain|benefits?|advantages?|tell\s+me\s+about")),
    ],
    "out_of_scope": [
        (3, r"天气|写(?:一)?首|诗歌|股票|股价|炒股|彩票|菜谱|做饭|笑话|电影|足球|星座|算命|旅游|写(?:一个|个)?(?:爬虫|网站|网页|小程序|游戏|排序)"),
        (3, term(r"weather|poem|poetry|haiku|(?:what|which)\s+stocks|stocks?\s+(?:tips?|picks?|price|market|to\s+buy)|lottery|recipe|joke|movie|football|soccer|horoscope|leetcode|sorting\s+algorithm")),
        (3, term(r"write\s+(?:me\s+)?(?:a\s+)?(?:python|javascript|java|c\+\+|sql|rust|go)\s+(?:script|function|program|code)|(?:bubble|quick)\s*sort")),
    ],
}
COMPILED = {intent: [(weight, compile_guarded(pattern)) for weight, pattern in cues] for intent, cues in CUES.items()}
# Several lines that look like log output: a pasted error, whatever the question says.
LOG_SAMPLE = 4_000  # characters looked at for log markers; a pasted log shows itself early
LOG_MARKERS = re.compile(r"traceback|error|exception|warn|xid|nccl|\d{2}:\d{2}:\d{2}|^[ \t]*file \"", re.MULTILINE | re.IGNORECASE)


class Intent(BaseModel):
    """One thing the user may want, with the evidence for it."""

    name: IntentName
    score: float = Field(description="Sum of cue weights; higher is more likely.")
    cues: list[str] = Field(default_factory=list, description="Phrases or entities that voted for this intent.")


def find_cues(text: str) -> dict[str, list[str]]:
    """Cue phrases per intent in already-normalised text (first occurrence of each cue pattern)."""
    found: dict[str, list[str]] = {}
    for intent, patterns in COMPILED.items():
        for _, pattern in patterns:
            match = pattern.search(text)
            if match:
                found.setdefault(intent, []).append(match.group().strip())
    return found


def classify_intent(text: str, entities: Entities | None = None) -> list[Intent]:
    """Intents ranked by evidence, strongest first; empty when nothing points anywhere."""
    sample = text[:LOG_SAMPLE] if isinstance(text, str) else ""
    cues = entities.intent_cues if entities is not None else find_cues(normalize_text(sample))
    scores: dict[IntentName, float] = {}
    evidence: dict[IntentName, list[str]] = {}
    for intent, phrases in cues.items():
        scores[intent] = sum(_weight(intent, phrase) for phrase in phrases)
        evidence[intent] = list(phrases)
    for intent, weight, reason in _entity_votes(sample, entities, scores):
        scores[intent] = scores.get(intent, 0.0) + weight
        evidence.setdefault(intent, []).append(reason)
    ranked = sorted(scores, key=lambda name: (-scores[name], PRIORITY.index(name)))
    return [Intent(name=name, score=round(scores[name], 2), cues=evidence[name]) for name in ranked if scores[name] > 0]


def _weight(intent: str, phrase: str) -> float:
    """The weight of the strongest cue pattern of ``intent`` that matches ``phrase``."""
    return max((w for w, p in COMPILED[intent] if p.search(phrase)), default=1.0)


def _entity_votes(text: str, entities: Entities | None, scores: dict[IntentName, float]) -> list[tuple[IntentName, float, str]]:
    votes: list[tuple[IntentName, float, str]] = []
    if len(LOG_MARKERS.findall(text)) >= 3 and text.count("\n") >= 2:
        votes.append(("troubleshoot", 3, "pasted log"))
    if entities is None:
        return votes
    in_scope = any(scores.get(name, 0) > 0 for name in PRIORITY if name not in ("injection", "out_of_scope"))
    if len(set(entities.gpus)) >= 2:
        votes.append(("compare", 1, "several GPUs named"))
    if entities.tokens:
        votes.append(("training_time", 1, "training tokens given"))
    periodic = any(m.per in ("month", "year") for m in entities.money)
    if entities.power_price or entities.hourly_price or entities.hours_per_day or entities.hours_per_month or periodic:
        votes.append(("tco", 1, "prices or usage hours given"))
    if scores.get("memory") and (entities.models or entities.params):
        votes.append(("memory", 2, "model named"))  # "4090有多少显存，能跑14B吗" is about the model fitting
    if scores.get("compare") and not entities.gpus and not entities.models:
        votes.append(("knowledge", 1, "comparing concepts, not products"))
    if not in_scope:
        if entities.models or entities.params:
            votes += [("recommend", 0.5, "model size given"), ("memory", 0.4, "model size given")]
        elif entities.gpus:
            votes.append(("compare", 0.5, "GPU named"))
        elif entities.budget:
            votes.append(("recommend", 0.5, "budget given"))
        elif entities.context_length or entities.batch_size:
            votes.append(("memory", 0.5, "sequence or batch size given"))
    return votes
