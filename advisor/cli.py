"""`gpu-advisor`: ask questions, call any tool, list the catalogs, build the index, run the servers.

Only argparse is imported up front; LangChain, Chroma, Gradio and FastAPI are imported inside
the commands that need them, so `gpu-advisor --help` answers instantly.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from knowledge.wording import Wording

EXIT_BAD_INPUT = 2
TEXT = Wording(Path(__file__).with_name("cli_text.yaml"))



PIPED_WIDTH = 240  # piped output (scripts, logs) is not a terminal: wide enough that tables never cut a number


def _console():
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=PIPED_WIDTH)

def _settings(args: argparse.Namespace | None = None):
    from advisor.config import Settings

    settings = Settings.from_env()
    overrides = {k: v for k, v in vars(args or argparse.Namespace()).items() if k in ("host", "port") and v is not None}
    return settings.model_copy(update=overrides) if overrides else settings


def parse_json_object(text: str) -> dict:
    from advisor.validation import malformed_json
    from knowledge.bilingual import AdvisorError

    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise malformed_json(f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(value, dict):
        raise AdvisorError("invalid_arguments", *TEXT.both("errors.not_an_object", kind=type(value).__name__))
    return value


def read_history(path: str | None) -> list:
    """Earlier turns from a JSON file: [{"role": "user"|"assistant", "content": "..."}, ...]."""
    if not path:
        return []
    from pydantic import TypeAdapter, ValidationError

    from advisor.contract import ChatTurn
    from advisor.validation import bilingual_validation_error, malformed_json
    from knowledge.bilingual import AdvisorError

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise AdvisorError("history_unreadable", *TEXT.both("errors.history_unreadable", path=path, reason=exc.strerror)) from None
    try:
        return TypeAdapter(list[ChatTurn]).validate_json(text)
    except ValidationError as exc:
        if any(e["type"] == "json_invalid" for e in exc.errors()):
            raise malformed_json(exc.errors()[0]["msg"]) from None
        raise bilingual_validation_error(exc) from None


def cmd_ask(args: argparse.Namespace) -> int:
    from advisor.deps import build_advisor

    history = read_history(args.history)
    response = build_advisor(_settings()).answer(args.question, history)
    if args.json:
        print(response.model_dump_json(indent=2))
        return 0
    from rich.markdown import Markdown

    # The verdict and what fits on a screen; --detail adds the formula tables, defaults and sources.
    _console().print(Markdown(response.answer if args.detail or not response.details else response.summary))
    if response.details and not args.detail:
        _console().print("[dim]" + TEXT.pick("more_detail", response.language) + "[/dim]")
    return 0


def cmd_proposal(args: argparse.Namespace) -> int:
    """A procurement proposal from a question (and its history), or rebuilt from one's embedded inputs."""
    from advisor.deps import shared_registry
    from advisor.offline.planner import OfflinePlanner
    from advisor.proposal.service import embedded_inputs, make_proposal, rebuild, render
    from knowledge.bilingual import AdvisorError

    if bool(args.question) == bool(args.from_file):
        raise AdvisorError("proposal_source", *TEXT.pair("errors.proposal_source"))
    planner = OfflinePlanner(shared_registry(), cache_dir=_settings().data_dir)
    output = Path(args.output)
    if args.from_file:
        proposal, changed = rebuild(planner, embedded_inputs(Path(args.from_file)), args.lang)
        print("\n".join(changed))
    else:
        proposal = make_proposal(planner, args.question, read_history(args.history), args.lang)
    made = render(proposal, args.format, images="files", stem=output.stem)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(made.content)
    for name, png in made.images.items():  # Markdown: the charts as PNG files beside the .md
        (output.parent / name).write_bytes(png)
    print(f"{output} ({made.media_type}, {len(made.content):,} bytes)")
    return 0


def cmd_tool(args: argparse.Namespace) -> int:
    from advisor.deps import shared_registry

    registry = shared_registry()
    if not args.name:
        from rich.table import Table

        table = Table("tool", *TEXT.pair("tool_table_summary"))
        for spec in (registry.spec(n) for n in registry.names()):
            table.add_row(spec.name, spec.summary_en, spec.summary_zh)
        _console().print(table)
        return 0
    result = registry.run(args.name, parse_json_object(args.json))
    print(result.model_dump_json(indent=2))
    return 0


def cmd_gpus(args: argparse.Namespace) -> int:
    from advisor.deps import shared_registry

    filters = {"vendor": args.vendor, "china_mainland": args.china, "min_memory_gb": args.min_memory, "segment": args.segment}
    result = shared_registry().run("list_gpus", filters)
    if args.json:
        print(result.model_dump_json(indent=2))
        return 0
    from rich.table import Table

    table = Table("id", "name", "vendor", "memory GB", "bandwidth GB/s", "BF16 TFLOPS", "China", title=f"{len(result.gpus)} GPUs")
    for gpu in result.gpus:
        bf16 = f"{gpu.bf16_tflops:g}" if gpu.bf16_tflops else "–"
        table.add_row(gpu.id, gpu.name, gpu.vendor, f"{gpu.memory_gb:g}", f"{gpu.bandwidth_gbs:g}", bf16, gpu.china)
    _console().print(table)
    return 0


def cmd_prices(args: argparse.Namespace) -> int:
    """Every price the advisor uses, with its date and source; the company's own (ADVISOR_PRICES) marked."""
    import datetime as dt

    from knowledge.clouds import prices_in_force
    from knowledge.price_overrides import prices_path
    from tools.cost.price_age import STALE_AFTER_MONTHS, is_stale

    rows = prices_in_force()
    if args.json:
        print(json.dumps([row.model_dump() for row in rows], ensure_ascii=False, indent=2))
        return 0
    from rich.table import Table

    today = dt.date.today()
    path = prices_path()
    title = f"{len(rows)} prices in force" + (f"; ★ = from {path}" if path else "; set ADVISOR_PRICES to use your own")
    table = Table("", "kind", "item", "price", "unit", "date", "source", title=title)
    for row in rows:
        age = f" (older than {STALE_AFTER_MONTHS:g} months)" if row.date[:1].isdigit() and is_stale(row.date, today) else ""
        table.add_row("★" if row.company else "", row.kind, row.item, f"{row.amount:,.{4 if row.amount < 1 else 2 if row.amount < 100 else 0}f} {row.currency}", row.unit, row.date + age, row.source)
    _console().print(table)
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    from rich.table import Table

    from knowledge.catalog import load_catalog

    models = load_catalog().models
    table = Table("id", "name", "params (B)", "active (B)", "layers", "attention", "max context", title=f"{len(models)} models")
    for model in models:
        active = f"{model.active_params_b:g}" if model.active_params_b else "–"
        table.add_row(model.id, model.name, f"{model.params_b:g}", active, str(model.layers), model.attention, str(model.max_context))
    _console().print(table)
    return 0


def cmd_index(args: argparse.Namespace) -> int:
    from advisor.retrieval.index import build_index, ensure_index, progress_bar
    from advisor.retrieval.store import StoreUnavailable

    settings = _settings()
    try:
        if args.if_missing:
            report = ensure_index(settings.data_dir, settings=settings)
        else:
            with progress_bar() as progress:
                report = build_index(settings.data_dir, progress, force=args.force, settings=settings)
    except StoreUnavailable as exc:
        print(f"Chroma is unreachable ({exc}); check ADVISOR_CHROMA_URL or unset it to use the local store.", file=sys.stderr)
        return 1
    rebuilt = f", rebuilt because {report.rebuilt_reason}" if report.rebuilt_reason else ""
    print(
        f"Index up to date: {report.total} chunks, {report.embedded} embedded, {report.unchanged} unchanged, "
        f"{report.deleted} deleted{rebuilt} ({report.seconds:.1f} s)."
    )
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from advisor.interfaces.server import serve

    serve(_settings(args), workers=args.workers)
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from advisor.interfaces.mcp_server import serve_http, serve_stdio

    if args.http:
        serve_http(_settings(args))
    else:
        serve_stdio(_settings())
    return 0


def cmd_slack(args: argparse.Namespace) -> int:
    from advisor.interfaces.slack import run

    run(_settings())
    return 0


def _workers(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 64:
        raise argparse.ArgumentTypeError(f"must be between 1 and 64, got {value}")
    return value


def _both(command: str) -> str:
    """A help line in both languages, as --help shows it to either reader."""
    return " / ".join(TEXT.pair(f"help.{command}"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpu-advisor",
        description=" ".join(TEXT.pair("help.description")),
        epilog="Settings come from ADVISOR_* environment variables (see docs).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ask = commands.add_parser("ask", help=_both("ask"))
    ask.add_argument("question")
    ask.add_argument("--json", action="store_true", help="print the full response contract as JSON")
    ask.add_argument("--detail", action="store_true", help=_both("detail"))
    ask.add_argument("--history", metavar="FILE", help='JSON file of earlier turns: [{"role": "user", "content": "..."}]')
    ask.set_defaults(run=cmd_ask)

    proposal = commands.add_parser("proposal", help=_both("proposal"))
    proposal.add_argument("question", nargs="?", metavar="QUESTION")
    proposal.add_argument("--history", metavar="FILE", help='JSON file of earlier turns: [{"role": "user", "content": "..."}]')
    proposal.add_argument("--from", dest="from_file", metavar="FILE",
                          help="rebuild with today's prices from a proposal's inputs (.json, .html, or .pdf with pypdf installed)")
    proposal.add_argument("--lang", choices=["zh", "en"], help="language of the proposal (default: the question's)")
    proposal.add_argument("--format", choices=["html", "pdf", "md"], required=True)
    proposal.add_argument("--output", required=True, metavar="FILE")
    proposal.set_defaults(run=cmd_proposal)

    tool = commands.add_parser("tool", help="call one tool with JSON arguments; without NAME, list the tools")
    tool.add_argument("name", nargs="?", metavar="NAME")
    tool.add_argument("--json", default="{}", metavar="ARGS", help="the tool's arguments as a JSON object")
    tool.set_defaults(run=cmd_tool)

    gpus = commands.add_parser("gpus", help=_both("gpus"))
    gpus.add_argument("--vendor", help="e.g. NVIDIA, AMD, Huawei")
    gpus.add_argument("--china", action="store_true", help="only GPUs that can be bought new in mainland China")
    gpus.add_argument("--min-memory", type=float, default=0, metavar="GB")
    gpus.add_argument("--segment", choices=["datacenter", "workstation", "consumer", "apple"])
    gpus.add_argument("--json", action="store_true")
    gpus.set_defaults(run=cmd_gpus)

    commands.add_parser("models", help=_both("models")).set_defaults(run=cmd_models)

    prices = commands.add_parser("prices", help=_both("prices"))
    prices.add_argument("--json", action="store_true")
    prices.set_defaults(run=cmd_prices)

    index = commands.add_parser("index", help="build or update the knowledge index")
    index.add_argument("--if-missing", action="store_true", help="only bring a missing or stale index up to date (used at start-up)")
    index.add_argument("--force", action="store_true", help="re-embed every chunk")
    index.set_defaults(run=cmd_index)

    serve = commands.add_parser("serve", help="run the web UI + API (same as app.py)")
    serve.add_argument("--host", help="default ADVISOR_HOST or 127.0.0.1")
    serve.add_argument("--port", type=int, help="default ADVISOR_PORT or 7860")
    serve.add_argument("--workers", type=_workers, default=1, metavar="N",
                       help="answer with N processes (one per core; they share a Chroma server, started if ADVISOR_CHROMA_URL is unset)")
    serve.set_defaults(run=cmd_serve)

    mcp = commands.add_parser("mcp", help="serve every tool to MCP clients (stdio; --http for streamable HTTP at /mcp)")
    mcp.add_argument("--http", action="store_true", help="streamable HTTP on ADVISOR_HOST:ADVISOR_PORT instead of stdio")
    mcp.add_argument("--host")
    mcp.add_argument("--port", type=int)
    mcp.set_defaults(run=cmd_mcp)

    commands.add_parser("slack", help="run the Slack bot").set_defaults(run=cmd_slack)
    return parser


def print_error(error) -> None:
    print(f"{TEXT.pick('error', 'en')} [{error.code}]: {error.message('en')}", file=sys.stderr)
    print(f"{TEXT.pick('error', 'zh')}：{error.message('zh')}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from advisor.config import ConfigError
    from knowledge.bilingual import AdvisorError
    from knowledge.catalog import company_prices

    try:
        company_prices()  # every command reads prices: a bad ADVISOR_PRICES file stops each one, with the line to fix
        return args.run(args)
    except ConfigError as exc:
        print(f"{TEXT.pick('config_error', 'en')}: {exc.en}", file=sys.stderr)
        if exc.zh:
            print(f"{TEXT.pick('config_error', 'zh')}：{exc.zh}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except AdvisorError as exc:
        print_error(exc)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
