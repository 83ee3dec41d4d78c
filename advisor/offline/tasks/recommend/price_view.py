""" "How much is an A800 server?": the whole machine's price first, as a labelled range with its basis and date,
then the card's, the part's China status with its rule, and where to get a current quote. Every figure comes from
the ``estimate_server_price`` tool; the wording is data (knowledge/price_estimates.yaml, ``text``)."""

from __future__ import annotations

from advisor.labels import CHINA_STATUS
from advisor.markdown import money
from advisor.offline.turn import Turn
from knowledge.bilingual import Text
from knowledge.price_estimates import price_estimates
from tools.recommend.notes import CHINA_MARKET

MAX_PRICED = 3  # a price question names one part, sometimes two or three; more is a spec comparison


def market_currency(turn: Turn) -> str:
    """Yuan for a buyer in mainland China (said, or writing in Chinese), else the language's default."""
    return turn.currency


def range_text(low: float, high: float, currency: str) -> str:
    return money(low, currency) if round(low) == round(high) else f"{money(low, currency)}–{money(high, currency)}"


def option_price(turn: Turn, option: dict, currency: str) -> str:
    """A configuration's whole price; a range labelled as an estimate when its card price is one (never a bare number)."""
    if not option.get("price_estimated") or option.get("purchase_low") is None:
        return money(option.get("purchase_cost"), currency)
    return range_text(option["purchase_low"], option["purchase_high"], currency) + turn.text(price_estimates().text.estimate_tag)


def _fill(template: Text, **values: str) -> Text:
    return Text(en=template.en.format(**values), zh=template.zh.format(**values))


def price_lines(turn: Turn, gpu_ids: list[str]) -> str:
    """One paragraph per part asked about: the whole machine, the card, the status; '' when none can be priced."""
    return machine_prices(turn, gpu_ids, unpriced=False)[0]


def machine_prices(turn: Turn, gpu_ids: list[str], unpriced: bool = True) -> tuple[str, list[tuple[Text, str]]]:
    """``price_lines`` and every dated figure its machine prices stand on (cards, hosts, quotes), for the answer's
    one note on prices older than half a year; ``unpriced``: a part nothing dated prices gets a line saying so (the
    price question of a spec answer, whose table shows the part's rent)."""
    text = price_estimates().text
    currency = market_currency(turn)
    paragraphs, china_market = [], False
    dated: list[tuple[Text, str]] = []
    for gpu_id in gpu_ids[:MAX_PRICED]:
        outcome = turn.call("estimate_server_price", {"gpu": gpu_id, "currency": currency})
        if not outcome.ok:
            continue
        if outcome.result["whole"] is None and not unpriced:
            continue
        if outcome.result["whole"] is None:  # nothing dated prices it: say so rather than leave the question unanswered
            rented = turn.catalog.gpu(gpu_id).cloud_price is not None
            paragraphs.append(turn.text(_fill(text.no_price, gpu=outcome.result["gpu_name"],
                                              rent=turn.text(text.no_price_rent) if rented else "")))  # fmt: skip
            continue
        r, whole, card = outcome.result, outcome.result["whole"], outcome.result["card"]
        dated += [(Text(**row["what"]), row["date"]) for row in r.get("dated", [])]
        kind = _fill(text.kinds[whole["basis"]], date=whole["date"])
        config = f"{r['gpus']}× {r['gpu_name']}"
        if whole["basis"] == "quote":
            basis = _fill(text.basis_quote, what=turn.text(r["quote_what"]), title=r["quote_title"])
        else:
            server = turn.text(r["host_label"]) if r.get("host_label") else ""
            if r.get("host_assumption"):  # a borrowed host price: an assumption, said in the details
                turn.assume(r["host_assumption"]["en"], r["host_assumption"]["zh"])
            basis = _fill(text.basis_cards, cards=f"{r['gpus']} × {range_text(card['low'], card['high'], currency)}", server=server,
                          host=money(r["host"], currency) if r.get("host") is not None else "—")  # fmt: skip
        whole_line = text.server_after if turn.ask.asks_one_card and card else text.server_lead
        lines = [turn.text(_fill(whole_line, config=config, price=range_text(whole["low"], whole["high"], currency),
                                 kind=turn.text(kind), basis=turn.text(basis)))]  # fmt: skip
        if turn.ask.asks_one_card and card:  # "what does one H100 cost?": the one card's price answers, the machine follows
            lines.insert(0, turn.text(_fill(text.card_lead, gpu=r["gpu_name"], price=range_text(card["low"], card["high"], currency), date=card["date"])))
        if card and card["basis"] == "estimate":
            template = text.card_single if round(card["low"]) == round(card["high"]) else text.card_range
            n = len(card["sources"])
            lines.append(turn.text(_fill(template, low=money(card["low"], currency), high=money(card["high"], currency), n=str(n),
                                         plural="s" if n > 1 else "", derivation=turn.text(card["derivation"]))))  # fmt: skip
        gpu = turn.catalog.gpu(gpu_id)
        if gpu.china_rule is not None and gpu.china != "available":
            rule = gpu.china_rule
            lines.append(turn.text(_fill(text.status, status=turn.t(*CHINA_STATUS[gpu.china]), rule=turn.t(rule.en, rule.zh))))
            china_market = china_market or gpu.china in CHINA_MARKET  # the quote advice is for parts traded in China
        for source in (whole["sources"] + (card["sources"] if card else []))[:4]:
            turn.cite(f"price:{gpu_id}:{source[:40]}", r["gpu_name"], source, citation=source)
        paragraphs.append(" ".join(lines))
    if paragraphs and (china_market or currency == "CNY"):
        paragraphs.append(turn.text(text.quote_advice))
    return "\n\n".join(paragraphs), dated
