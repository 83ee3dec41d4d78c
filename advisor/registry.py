"""The one list of tools. The LLM agent, offline planner, REST API, CLI and Slack all call through it."""

from __future__ import annotations

import inspect
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from advisor.contract import ToolCall
from advisor.validation import (
    bilingual_validation_error,
    non_finite_numbers,
    reject_non_finite,
    result_not_finite,
    shorten,
    unknown_arguments,
    without_long_echoes,
)
from knowledge.bilingual import AdvisorError
from knowledge.wording import Wording

log = logging.getLogger(__name__)
TEXT = Wording(Path(__file__).with_name("messages_text.yaml"))


@dataclass(frozen=True)
class ToolSpec:
    """A pure tool function plus what every adapter needs to expose it."""

    name: str
    function: Callable[..., BaseModel]
    summary_en: str
    summary_zh: str
    request_model: type[BaseModel] = field(init=False)
    result_model: type[BaseModel] = field(init=False)
    dependencies: tuple[type, ...] = field(init=False)

    def __post_init__(self) -> None:
        hints = inspect.get_annotations(self.function, eval_str=True)
        params = list(inspect.signature(self.function).parameters)
        object.__setattr__(self, "request_model", hints[params[0]])
        object.__setattr__(self, "result_model", hints["return"])
        object.__setattr__(self, "dependencies", tuple(hints[p] for p in params[1:]))

    def description(self) -> str:
        return f"{self.summary_en} / {self.summary_zh}"


class ToolOutcome(ToolCall):
    """What a tool call produced: a result or a bilingual error, never an exception."""

    @property
    def ok(self) -> bool:
        return self.error is None


class UnknownToolError(AdvisorError):
    pass


class Registry:
    """Binds tool specs to their data dependencies (catalog, rule book, retriever).

    Each dependency is built once per registry, on first use. The build is locked per kind:
    under concurrent first requests ``functools.lru_cache`` would let every thread run an
    expensive provider (compile the rule book, open Chroma and sync the index) at once.
    """

    def __init__(self, specs: list[ToolSpec], dependencies: dict[type, Callable[[], Any]], per_answer: frozenset[type] = frozenset()):
        self.specs = {spec.name: spec for spec in specs}
        self._providers = dependencies
        # Kinds asked of their provider on every use: they depend on the prices in force for the answer
        # being computed (a web session may have pasted its own); the provider caches them itself.
        self._per_answer = per_answer
        self._built: dict[type, Any] = {}
        self._building = {kind: threading.Lock() for kind in dependencies}

    def names(self) -> list[str]:
        return list(self.specs)

    def spec(self, name: str) -> ToolSpec:
        try:
            return self.specs[name]
        except (KeyError, TypeError):  # TypeError: an unhashable "name" from a malformed tool call
            en, zh = TEXT.both("tool_errors.unknown_tool", name=shorten(str(name)))
            raise UnknownToolError("unknown_tool", en, zh, sorted(self.specs)) from None

    def dependency(self, kind: type) -> Any:
        """The shared instance of a tool dependency; a provider that raises is retried next time."""
        if kind in self._per_answer:
            return self._providers[kind]()
        try:
            return self._built[kind]
        except KeyError:
            pass
        with self._building[kind]:
            if kind not in self._built:
                self._built[kind] = self._providers[kind]()
            return self._built[kind]

    def run(self, name: str, args: dict[str, Any] | BaseModel) -> BaseModel:
        """Validate ``args`` and call the tool; raises ``AdvisorError`` on bad input.

        Every tool gets the same guards here rather than one patch per tool: arguments that are
        NaN/inf (pydantic accepts them for ``float``) are refused, errors quoting a huge argument
        quote it shortened, and a result that overflowed to NaN/inf is turned into an error
        instead of reaching JSON clients as an invalid number.
        """
        spec = self.spec(name)
        if isinstance(args, Mapping):
            check_known_fields(spec, args)
        try:
            request = args if isinstance(args, spec.request_model) else spec.request_model.model_validate(args)
        except ValidationError as exc:
            raise bilingual_validation_error(exc) from None
        reject_non_finite(request)
        deps = [self.dependency(kind) for kind in spec.dependencies]
        try:
            result = spec.function(request, *deps)
        except AdvisorError as exc:
            raise without_long_echoes(exc, request) from None
        overflowed = next(non_finite_numbers(result), None)
        if overflowed is not None:
            log.warning("tool %s produced a non-finite %s from finite inputs", name, overflowed[0])
            raise result_not_finite(overflowed[0])
        return result

    def call(self, name: str, args: dict[str, Any]) -> ToolOutcome:
        """Like ``run`` but returns the error as data, for agents and APIs; never raises."""
        label = name if isinstance(name, str) else shorten(repr(name))  # a malformed call may name anything
        if isinstance(args, BaseModel):
            recorded = args.model_dump()
        else:
            recorded = dict(args) if isinstance(args, Mapping) else {"raw_arguments": shorten(repr(args))}
        try:
            result = self.run(name, args)
        except AdvisorError as exc:
            return ToolOutcome(name=label, args=recorded, error=exc.to_dict())
        except Exception:  # a tool bug must not take the agent or the API down with it
            log.exception("tool %s failed on unexpected input", name)
            return ToolOutcome(name=label, args=recorded, error=internal_error(label).to_dict())
        return ToolOutcome(name=label, args=recorded, result=result.model_dump(mode="json"))


def check_known_fields(spec: ToolSpec, args: Mapping[str, Any]) -> None:
    """Refuse arguments the request model does not have, naming the closest valid field.

    Pydantic would drop them silently (or, with ``extra="forbid"``, say only "not permitted"),
    so a misspelled ``gpu_name`` would give an answer for the default GPU instead of an error.
    """
    fields = spec.request_model.model_fields
    valid = set(fields) | {f.alias for f in fields.values() if f.alias}
    unknown = [key for key in args if key not in valid]
    if unknown:
        raise unknown_arguments(spec.name, [str(k) for k in unknown], list(fields))


def internal_error(name: str) -> AdvisorError:
    return AdvisorError("internal_error", *TEXT.both("tool_errors.internal_error", name=name))
