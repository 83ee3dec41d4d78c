"""Bilingual labels for catalog and tool enums, shared by the chat answers and the web UI: (English, 中文);
and the one rule for choosing between the two: Chinese for "zh", English for anything else."""

VERDICT = {
    "fits": ("✅ Fits", "✅ 放得下"),
    "tight": ("⚠️ Tight fit", "⚠️ 偏紧"),
    "does_not_fit": ("❌ Does not fit", "❌ 放不下"),
}
CHINA_STATUS = {
    "available": ("on sale", "可正常购买"),
    "export-controlled": ("export-controlled", "出口管制"),
    "china-variant": ("China variant", "中国特供版"),
    "domestic": ("Chinese domestic chip", "国产"),
    "not-sold": ("not sold in mainland China", "中国大陆未销售"),
}


def pick(language: str, en: str, zh: str) -> str:
    return zh if language == "zh" else en


def label(pair: tuple[str, str], language: str) -> str:
    return pick(language, *pair)
