"""A company's own prices (``ADVISOR_PRICES=path/to/prices.yaml``), validated with the line each mistake is on.

The file has one optional section per kind of price (see docs/prices.example.yaml):

    gpus:    {<GPU id, name or alias>: {purchase: QUOTE, cloud: QUOTE}}
    power:   {electricity_per_kwh: QUOTE, colocation_per_kw_month: QUOTE}
    clouds:  [{gpu, tier, offer, amount, currency, date, source}, ...]
    servers: {<server class id of knowledge/servers.yaml>: QUOTE}   (one machine without its GPUs)

where a QUOTE is ``{amount, currency, date, source}``. A new kind of price (whole servers, say) is one more
field on ``PricesFile``: the line-numbered errors and the ``prices`` listing work for any section.

The loaders in ``knowledge`` (GPU catalog, TCO defaults, cloud tiers) apply the file where they read their
YAML, so every tool and answer sees the company's figures; the tools themselves never read it.

The web UI's settings take the same YAML pasted as text (the UI accepts no file uploads). Pasted prices apply
to one browser session only: ``session_prices`` puts them in force for the answer being computed (a context
variable, so other sessions' answers computed at the same time keep theirs), on top of the ``ADVISOR_PRICES`` file.
"""

from __future__ import annotations

import datetime as dt
import difflib
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from knowledge.bilingual import AdvisorError
from knowledge.sources import DATE_PATTERN

ENV_VAR = "ADVISOR_PRICES"
CURRENCIES = ("USD", "CNY")
TIERS = ("hyperscaler_on_demand", "hyperscaler_1yr", "hyperscaler_3yr", "specialist", "marketplace", "china")
MAX_PROBLEMS = 8  # enough to fix a file in one pass, short enough to read
MAX_PASTED_CHARS = 50_000  # a prices file is a few kB; a paste far longer is a mistake, not prices
MAX_NAMES = 500  # GPU names looked up per file: more than the catalog holds, few enough to check at once
PASTED = ("the pasted prices", "粘贴的价格")  # where a pasted text's mistakes are, in place of a file name
PASTED_ORIGIN = "settings"  # shown in sources as "company prices (settings)"
SERVERS_FILE = Path(__file__).parent / "servers.yaml"  # read for its class ids only: knowledge/servers.py applies this file


@lru_cache(maxsize=1)
def server_class_ids() -> tuple[str, ...]:
    raw = yaml.safe_load(SERVERS_FILE.read_text(encoding="utf-8")) or {}
    return tuple(str(row["id"]) for row in raw.get("classes", []) if isinstance(row, dict) and "id" in row)


def _date_text(value: Any) -> Any:
    """YAML reads an unquoted 2026-11-20 as a date; the catalogs keep dates as text."""
    return value.isoformat() if isinstance(value, dt.date) else value


def _currency_text(value: Any) -> Any:
    return value.strip().upper() if isinstance(value, str) else value


class Quote(BaseModel):
    """One price the company has: what it is, in which currency, when it was quoted and by whom."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    amount: float = Field(gt=0, description="The price, in `currency`.")
    currency: Literal["USD", "CNY"]
    date: str = Field(pattern=DATE_PATTERN, description="When it was quoted: YYYY-MM-DD (or YYYY-MM).")
    source: str = Field(min_length=3, description="Who quoted it: a quote number, contract or page.")

    _dates = field_validator("date", mode="before")(_date_text)
    _currencies = field_validator("currency", mode="before")(_currency_text)


class GpuQuotes(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    purchase: Quote | None = Field(None, description="Price of one GPU.")
    cloud: Quote | None = Field(None, description="Rent per GPU-hour: the default cloud price of rent-or-buy answers.")


class PowerQuotes(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    electricity_per_kwh: Quote | None = None
    colocation_per_kw_month: Quote | None = None


class CloudQuote(Quote):
    gpu: str
    tier: Literal[TIERS]  # type: ignore[valid-type]
    offer: str = Field("your cloud contract", min_length=3)


class PricesFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    gpus: dict[str, GpuQuotes] = Field(default_factory=dict)
    power: PowerQuotes = Field(default_factory=PowerQuotes)
    clouds: list[CloudQuote] = Field(default_factory=list)
    servers: dict[str, Quote] = Field(default_factory=dict, description="Price of one machine of a server class, without its GPUs.")


@dataclass(frozen=True, eq=False)  # hashed by identity: the loaders cache one priced catalog per set of overrides
class PriceOverrides:
    """A validated prices file (or pasted text); GPU names are resolved to catalog ids."""

    origin: str  # the file's name, or "settings" for prices pasted in the web UI
    gpus: dict[str, GpuQuotes]
    power: PowerQuotes
    clouds: list[CloudQuote]
    servers: dict[str, Quote] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"company prices ({self.origin})"

    def entries(self) -> list[str]:
        """Every price it sets, one short line each ("gpus → h100-sxm → purchase: 26,500 USD (2026-11-20)")."""
        def line(where: str, quote: Quote) -> str:
            amount = f"{quote.amount:,.4f}".rstrip("0").rstrip(".")  # 26,500 · 2.4 · 0.58
            return f"{where}: {amount} {quote.currency} ({quote.date})"

        rows = [line(f"gpus → {gpu} → {kind}", quote) for gpu, quotes in self.gpus.items()
                for kind, quote in (("purchase", quotes.purchase), ("cloud", quotes.cloud)) if quote is not None]  # fmt: skip
        rows += [line(f"power → {kind}", quote) for kind, quote in self.power if quote is not None]
        rows += [line(f"clouds → {quote.gpu} → {quote.tier}", quote) for quote in self.clouds]
        rows += [line(f"servers → {server}", quote) for server, quote in self.servers.items()]
        return rows


# ---------------------------------------------------------------- errors that name the line


def _positions(node: yaml.Node, path: tuple = (), key_line: int | None = None, found: dict | None = None,
               seen: set[int] | None = None) -> dict[tuple, int]:  # fmt: skip
    """The 1-based line of every entry, keyed by its path (the line of its key, where it has one).

    A node reached again through a YAML alias is not walked twice: nested aliases would make the walk
    exponential in the text's length (a pasted "billion laughs")."""
    found, seen = ({} if found is None else found), (set() if seen is None else seen)
    found[path] = key_line or node.start_mark.line + 1
    if id(node) in seen:
        return found
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            _positions(value, (*path, key.value), key.start_mark.line + 1, found, seen)
    elif isinstance(node, yaml.SequenceNode):
        for index, value in enumerate(node.value):
            _positions(value, (*path, index), None, found, seen)
    return found


def _line_of(lines: dict[tuple, int], loc: tuple) -> int:
    """The line of the deepest part of ``loc`` the file has (a missing key is reported on its entry)."""
    return next((lines[loc[:end]] for end in range(len(loc), -1, -1) if loc[:end] in lines), 1)


def _where(source: tuple[str, str], line: int, loc: tuple) -> tuple[str, str]:
    entry = " → ".join(str(p) for p in loc) or "top level"
    return f"{source[0]}, line {line} ({entry})", f"{source[1]} 第 {line} 行（{entry}）"


def _problem(error: dict) -> tuple[str, str]:
    """What is wrong with one value and how to fix it, in both languages."""
    kind, field, got = error["type"], str(error["loc"][-1]) if error["loc"] else "", error.get("input")
    if kind == "missing" and field == "date":
        return ("the date is missing. Fix: add `date: YYYY-MM-DD`, the day the price was quoted",
                "缺少日期。修改：加上 `date: YYYY-MM-DD`（报价日期）")
    if kind == "missing":
        return (f"`{field}` is missing. Fix: add `{field}:` to this entry",
                f"缺少 `{field}`。修改：在这一项里加上 `{field}:`")
    if field == "currency":
        return (f"currency {got!r} is not supported. Fix: write USD or CNY (convert other currencies at your rate)",
                f"不支持的币种 {got!r}。修改：写 USD 或 CNY（其他币种请按您的汇率换算）")
    if field == "amount" and kind in ("greater_than", "float_parsing", "float_type"):
        return (f"the price must be a number above 0, got {got!r}. Fix: give the price as a positive number",
                f"价格必须是大于 0 的数字，收到的是 {got!r}。修改：填写正数价格")
    if field == "date":
        return (f"{got!r} is not a date. Fix: write it as YYYY-MM-DD, e.g. 2026-11-20",
                f"{got!r} 不是日期。修改：写成 YYYY-MM-DD，例如 2026-11-20")
    if field == "source" and kind in ("string_too_short", "string_type"):
        return (f"the source {got!r} does not say who quoted the price. Fix: name it, e.g. a quote number, a contract or an invoice",
                f"来源 {got!r} 没有说明报价出处。修改：写明报价单号、合同或发票等")
    if field == "tier":
        return (f"unknown cloud tier {got!r}. Fix: use one of {', '.join(TIERS)}",
                f"未知的云价格档位 {got!r}。修改：改为 {', '.join(TIERS)} 之一")
    if kind == "extra_forbidden":
        return (f"unknown key `{field}`. Fix: remove it, or check its spelling against docs/prices.example.yaml",
                f"未知的键 `{field}`。修改：删除它，或对照 docs/prices.example.yaml 检查拼写")
    return (f"{error['msg']}. Fix: compare this entry with docs/prices.example.yaml",
            f"取值无效（{error['msg']}）。修改：对照 docs/prices.example.yaml 修改这一项")


def _file_error(source: tuple[str, str], problems: list[tuple[int, tuple, tuple[str, str]]]) -> AdvisorError:
    en, zh = [], []
    for line, loc, (what_en, what_zh) in sorted(problems, key=lambda p: p[0])[:MAX_PROBLEMS]:
        where_en, where_zh = _where(source, line, loc)
        en.append(f"\n- {where_en}: {what_en}.")
        zh.append(f"\n- {where_zh}：{what_zh}。")
    return AdvisorError("invalid_prices_file", "The prices file is invalid:" + "".join(en), "价格文件有误：" + "".join(zh))


def load_price_overrides(path: Path, resolve_gpu: Callable[[str], str | None], gpu_ids: list[str]) -> PriceOverrides:
    """Read and validate a prices file; ``resolve_gpu`` maps a name or alias to a catalog id (None if unknown)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise AdvisorError(
            "prices_file_unreadable",
            f"Cannot read the prices file {path} ({exc.strerror}). Fix: point {ENV_VAR} at an existing YAML file, or unset it.",
            f"无法读取价格文件 {path}（{exc.strerror}）。修改：让 {ENV_VAR} 指向存在的 YAML 文件，或取消该变量。",
        ) from None
    return parse_prices(text, (str(path), str(path)), path.name, resolve_gpu, gpu_ids)


def load_pasted_prices(text: str, resolve_gpu: Callable[[str], str | None], gpu_ids: list[str]) -> PriceOverrides:
    """Prices pasted in the web UI's settings, checked exactly as a file is; the errors name the pasted text's lines."""
    if len(text) > MAX_PASTED_CHARS:
        raise _file_error(PASTED, [(1, (), (f"the text is over {MAX_PASTED_CHARS:,} characters. Fix: paste only the prices file",
                                            f"文本超过 {MAX_PASTED_CHARS:,} 个字符。修改：只粘贴价格文件的内容"))])  # fmt: skip
    return parse_prices(text, PASTED, PASTED_ORIGIN, resolve_gpu, gpu_ids)


def parse_prices(
    text: str, source: tuple[str, str], origin: str, resolve_gpu: Callable[[str], str | None], gpu_ids: list[str]
) -> PriceOverrides:
    """Validate a prices YAML text; ``source`` names it in errors (en, zh), ``origin`` in the sources of answers."""
    try:
        root = yaml.compose(text)
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise _file_error(source, [(line, (), (f"{problem}. Fix: correct the YAML syntax here", f"YAML 语法错误（{problem}）。修改：更正此处语法"))]) from None
    lines = _positions(root) if root is not None else {}
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise _file_error(source, [(1, (), ("the file must be a mapping with gpus:, power:, clouds: and servers: sections",
                                           "文件顶层必须是包含 gpus:、power:、clouds:、servers: 的映射"))])  # fmt: skip
    named = [(("gpus", name), name) for name in (raw.get("gpus") or {}) if isinstance(raw.get("gpus"), dict)]
    named += [(("clouds", i, "gpu"), row["gpu"]) for i, row in enumerate(raw.get("clouds") or []) if isinstance(row, dict) and "gpu" in row]
    unknown = [(loc, name) for loc, name in named[: MAX_NAMES] if resolve_gpu(str(name)) is None][:MAX_PROBLEMS]
    problems = [(_line_of(lines, loc), loc, _unknown_gpu(str(name), gpu_ids)) for loc, name in unknown]
    if len(named) > MAX_NAMES:
        problems.append((1, (), (f"more than {MAX_NAMES} GPU entries. Fix: list only the GPUs you have quotes for",
                                 f"GPU 条目超过 {MAX_NAMES} 个。修改：只列出有报价的 GPU")))  # fmt: skip
    servers = raw.get("servers") if isinstance(raw.get("servers"), dict) else {}
    problems += [(_line_of(lines, ("servers", name)), ("servers", name), _unknown_server(str(name)))
                 for name in servers if str(name) not in server_class_ids()]  # fmt: skip
    try:
        parsed = PricesFile.model_validate(raw)
    except ValidationError as exc:
        problems += [(_line_of(lines, tuple(e["loc"])), tuple(e["loc"]), _problem(e)) for e in exc.errors(include_url=False)]
    if problems:
        raise _file_error(source, problems)
    return PriceOverrides(
        origin=origin, gpus={resolve_gpu(name): quotes for name, quotes in parsed.gpus.items()}, power=parsed.power,
        clouds=[quote.model_copy(update={"gpu": resolve_gpu(quote.gpu)}) for quote in parsed.clouds], servers=parsed.servers,
    )  # fmt: skip


def _unknown_server(name: str) -> tuple[str, str]:
    known = ", ".join(server_class_ids())
    return (f"unknown server class {name!r}. Fix: use one of {known} (knowledge/servers.yaml)",
            f"未知的服务器类别 {name!r}。修改：改为 {known} 之一（见 knowledge/servers.yaml）")


def _unknown_gpu(name: str, gpu_ids: list[str]) -> tuple[str, str]:
    close = difflib.get_close_matches(name.casefold(), gpu_ids, n=3, cutoff=0.5)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    hint_zh = f"（是不是 {'、'.join(close)}？）" if close else ""
    return (f"unknown GPU {name!r}{hint}. Fix: use a catalog id or name; `gpu-advisor gpus` lists them",
            f"未知的 GPU {name!r}{hint_zh}。修改：使用目录中的 id 或名称；`gpu-advisor gpus` 可列出全部")


# ---------------------------------------------------------------- the file in force


def prices_path(env: dict[str, str] | None = None) -> Path | None:
    raw = (os.environ if env is None else env).get(ENV_VAR, "").strip()
    return Path(raw).expanduser() if raw else None


@lru_cache(maxsize=4)
def _cached(path: Path, mtime: float, resolve_gpu: Callable[[str], str | None], ids: tuple[str, ...]) -> PriceOverrides:
    return load_price_overrides(path, resolve_gpu, list(ids))


def file_overrides(resolve_gpu: Callable[[str], str | None], gpu_ids: Sequence[str]) -> PriceOverrides | None:
    """The validated file ``ADVISOR_PRICES`` names, or None; raises the bilingual error for a bad file."""
    path = prices_path()
    if path is None:
        return None
    try:
        mtime = path.stat().st_mtime
    except OSError:
        mtime = -1.0  # load_price_overrides reports the unreadable file
    return _cached(path, mtime, resolve_gpu, tuple(gpu_ids))


def active_overrides(resolve_gpu: Callable[[str], str | None], gpu_ids: Sequence[str]) -> PriceOverrides | None:
    """The prices in force for the answer being computed: the session's pasted prices on top of the file's."""
    session = _session.get()
    base = file_overrides(resolve_gpu, gpu_ids)
    if session is None:
        return base
    return session if base is None else _layered(base, session)


# ---------------------------------------------------------------- one browser session's prices

_session: ContextVar[PriceOverrides | None] = ContextVar("session_prices", default=None)


@contextmanager
def session_prices(overrides: PriceOverrides | None) -> Iterator[None]:
    """``overrides`` in force for the code inside (this thread or task only, and threads started from a copy of its context)."""
    token = _session.set(overrides)
    try:
        yield
    finally:
        _session.reset(token)


@lru_cache(maxsize=64)
def _layered(base: PriceOverrides, top: PriceOverrides) -> PriceOverrides:
    """``top``'s prices replacing ``base``'s where both set one; cached so a session keeps one object (and one priced catalog)."""
    gpus = dict(base.gpus)
    for gpu, quotes in top.gpus.items():
        kept = gpus.get(gpu, GpuQuotes())
        gpus[gpu] = GpuQuotes(purchase=quotes.purchase or kept.purchase, cloud=quotes.cloud or kept.cloud)
    power = PowerQuotes(
        electricity_per_kwh=top.power.electricity_per_kwh or base.power.electricity_per_kwh,
        colocation_per_kw_month=top.power.colocation_per_kw_month or base.power.colocation_per_kw_month,
    )
    replaced = {(quote.gpu, quote.tier) for quote in top.clouds}
    clouds = [quote for quote in base.clouds if (quote.gpu, quote.tier) not in replaced] + top.clouds
    return PriceOverrides(origin=f"{base.origin} + {top.origin}", gpus=gpus, power=power, clouds=clouds,
                          servers=base.servers | top.servers)  # fmt: skip
