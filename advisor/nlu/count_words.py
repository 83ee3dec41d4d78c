"""How counts, parallel degrees and run settings are written: "a pair of", "俩", "tp=4", "8 per node", "bs已经降到4",
"max-model-len 32768", "4090x2", "two 8-GPU nodes". Patterns only; ``values`` claims what they match."""

import re

# Counts written as words; ordinals only ever precede a unit ("add a second node"), so never "per second"
WORD_NUMBERS = {
    "one": 1, "single": 1, "a single": 1, "two": 2, "dual": 2, "a pair of": 2, "pair of": 2, "three": 3, "four": 4,
    "quad": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "sixteen": 16,
    "thirty-two": 32, "sixty-four": 64, "单": 1, "双": 2, "一对": 2, "俩": 2, "倆": 2, "仨": 3, "a pair": 2, "pair": 2, "a couple of": 2, "couple of": 2,
    "second": 2, "third": 3, "fourth": 4,
}  # fmt: skip

PARALLEL = re.compile(
    r"(?<![a-z])(?P<kind>tp|pp|dp)\s*(?:[=:]|开的|开了|开到|设成|设的|设为|is|of|set\s+to)?\s*(?P<n>\d{1,3})(?!\d|\.\d)"
    r"|(?P<word>tensor[\s-]*parallel(?:ism)?|pipeline[\s-]*parallel(?:ism)?|data[\s-]*parallel(?:ism)?|张量并行|流水线并行|数据并行)\s*(?:of|degree|度|=|:|为|是)?\s*(?P<wn>\d{1,3})(?!\d|\.\d)"
)
CONTEXT_SETTING = re.compile(
    r"(?<![a-z])(?:max[-_\s]?model[-_\s]?len|max[-_\s]?seq(?:uence)?[-_\s]?len(?:gth)?|seq(?:uence)?[-_\s]?len(?:gth)?|context[-_\s]?(?:length|len|window)|ctx|上下文(?:长度)?)"
    r"\s*(?:is\s+|was\s+)?(?:(?:(?:set|cut|lowered|reduced|dropped|raised|bumped)\s+(?:it\s+)?)?(?:down\s+|up\s+)?to|at|=|:|of|到|为|是|设成|设为|设的|设了|开到|开的|开了|降到|调到|改到|改成|减到|砍到|加到|提到)?\s*(?P<n>\d{3,7})(?P<k>k)?(?![\d.a-z])"
)
# "bs 64", "batch_size=8", "micro batch 4", "批大小16": the number a batch word names
BATCH = re.compile(
    r"(?<![a-z])(?:bs|mbs|gbs|(?:per[_\s]device[_\s](?:train[_\s])?)?batch[\s_-]*size|micro[\s_-]*batch(?:[\s_-]*size)?|global[\s_-]*batch(?:[\s_-]*size)?|batch|批大小|批次大小|批量大小)"
    r"\s*(?:is\s+|was\s+|already\s+|已经|已|都|要|想)?(?:of|=|:|为|是|设为|设成|设的|开到|开的|降到|减到|调到|改成|改到|(?:dropped|lowered|reduced|cut|set|down|bumped|raised)\s+to|to|at)?"
    r"\s*(?P<n>\d{1,5})(?![\d.]|\s*(?:k|万|tokens?|张|卡|gpus?))"
)
# "40% MFU", "mfu of 0.35", "MFU按45%算": the share of peak the user measured or wants assumed
MFU = re.compile(
    r"(?P<pct>\d{1,2}(?:\.\d+)?)\s*%\s*(?:of\s+peak\s+)?mfu(?![a-z])"
    r"|(?<![a-z])mfu[^\d\n,，。;；]{0,12}?(?:(?P<pct_after>\d{1,2}(?:\.\d+)?)\s*%|(?P<fraction>0?\.\d+)(?![\d%]))"
)
# "PUE 1.3", "PUE按1.5算", "a PUE of 1.4": a facility's power usage effectiveness (always between 1 and 3)
PUE = re.compile(r"(?<![a-z])pue[^\d\n,，。;；]{0,8}?(?P<n>[12](?:\.\d{1,2})?)(?![\d.%])")
GPUS_PER_NODE = re.compile(r"(?<![\d.])(?P<n>\d{1,2})\s*(?:gpus?\s+|cards?\s+)?(?:per|each|a|/)\s*(?:node|server|box|machine|host)(?![a-z])")
NODES_OF_GPUS = re.compile(
    r"(?<![a-z0-9.])(?P<servers>\d{1,3}|two|three|four|five|six|eight|ten|sixteen)\s*(?:x|×|\*)?\s*"
    r"(?P<cards>(?P<per>\d{1,2})[\s-]*(?:gpus?|cards?)[\s-]*(?:nodes?|servers?|boxes|machines?|hosts?))(?![a-z])"
)
# "two 8-GPU L40S servers", "three 8xH200 servers": the first number counts the servers, the card name sits between;
# "4x8 H100 nodes" (servers times cards); without the cards per server ("4 B200 servers") only when the words between are the
# card's name (the extractor checks)
SERVERS_OF_NAMED_CARDS = re.compile(
    r"(?<![a-z0-9.])(?P<servers>\d{1,3}|two|three|four|five|six|eight|ten)(?=(?:\s*[x×*]\s*(?P<times>\d{1,2})\s+|(?:\s+(?P<per>\d{1,2}(?:[\s-]*(?:gpus?|cards?)\s+|\s*[x×*]\s*))?))"
    r"(?P<name>(?:[a-z0-9.\-]+\s+){1,3}?)(?P<noun>nodes?|servers?|boxes|machines?|hosts?)(?![a-z]))"
)
TIMES_AFTER_NAME = re.compile(r"\s?(?P<x>[x×*]\s?(?P<n>\d{1,3}))(?![\d.a-z])")
# "x 3 epochs", "2 full epochs", "num_train_epochs=3", "训3个epoch", "过两遍数据": passes over the training data
EPOCHS = re.compile(
    r"(?:(?<![a-z0-9])[x×*]\s?)?(?<![\d.第])(?P<n>\d{1,2}(?:\.\d)?|one|two|three|four|five|ten|[一二两三四五六七八九十])\s*(?:full\s+)?(?:个\s*)?(?:epochs?|轮|遍)(?![a-z])"
    r"|(?<![a-z])(?:num_train_)?epochs?\s*(?:=|:|of|设成|设为|开到)?\s*(?P<setting>\d{1,2})(?![\d.])"
)
TIMES_COUNT = re.compile(r"(?<![a-z0-9])[x×*]\s?(\d{1,4})(?![\d.a-z])")
# "num_workers=8", "max_split_size_mb:128", "OMP_NUM_THREADS调到16": a setting the advisor has no slot for;
# its number is nobody's batch or count (the settings it does read are matched before this).
OTHER_SETTING = re.compile(
    r"(?<![a-z0-9_])(?![a-z0-9_]*(?:batch|parallel|len|gpu|node|proc|device|ctx|context|seq|token|tp_|pp_|dp_))"
    r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+\s*(?:=|:|调到|调成|设成|设为|设到|改成|改到|开到|开了|开成|to|is|of)?\s*(\d+(?:\.\d+)?)"
)
