"""Bilingual labels for catalog and tool enums, shared by the chat answers and the web UI: (English, 中文)."""

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


def label(pair: tuple[str, str], language: str) -> str:
    return pair[1] if language == "zh" else pair[0]
