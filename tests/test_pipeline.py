"""The declared understanding pipeline (advisor/nlu/pipeline.yaml): it validates, the code runs on its values,
and a broken file is refused at start-up with the key at fault named."""

from __future__ import annotations

import re

import pytest
import yaml
from scipy.sparse import csr_matrix

from advisor.nlu import dialogue, reader
from advisor.nlu import model as model_module
from advisor.nlu.corpus import Utterance
from advisor.nlu.model import UnderstandingModel
from advisor.nlu.pipeline import PIPELINE, PIPELINE_FILE, STAGE_ORDER, PipelineError, load_pipeline
from advisor.offline import router
from knowledge.catalog import load_catalog


def _written(tmp_path, change) -> object:
    raw = yaml.safe_load(PIPELINE_FILE.read_text(encoding="utf-8"))
    change(raw)
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    return path


def test_the_shipped_pipeline_validates_and_runs_every_stage_once_in_order():
    assert load_pipeline() == PIPELINE
    assert tuple(PIPELINE.stages) == STAGE_ORDER


def test_the_code_reads_its_settings_from_the_file():
    assert dialogue.CONTINUES == PIPELINE.continue_thread.continues
    assert reader.HISTORY_TURNS == PIPELINE.dialogue_state.history_turns
    assert router.MIN_CONFIDENCE == PIPELINE.classify.min_confidence
    assert router.GUARD_CONFIDENCE == PIPELINE.classify.guard_confidence


def test_the_classifier_is_built_with_the_declared_hyperparameters(monkeypatch):
    # the sentence vectors are left out: they take an embedding model and are no hyperparameter of ours
    monkeypatch.setattr(model_module, "_sentence_vectors", lambda texts: csr_matrix((len(texts), 1)))
    model = UnderstandingModel(load_catalog())
    texts = [("how much vram for a 7b model", "memory"), ("显存要多少", "memory"), ("h100 tdp?", "specs"), ("h100功耗多少", "specs")]
    utterances = [Utterance(text=text, intent=intent, language="en") for text, intent in texts]
    model.fit_intent(utterances, [[] for _ in utterances])
    assert model.intent_model.C == PIPELINE.classify.C
    assert model.chars.ngram_range == tuple(PIPELINE.classify.char_ngrams)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda raw: raw["classify"].pop("C"), "classify.C"),
        (lambda raw: raw["continue_thread"].update(continue_below=0.3), "continue_thread.continue_below"),
        (lambda raw: raw.update(stages=["extract", "classify", "tag_roles", "guess", "dialogue_state", "ask"]), "stages.3"),
        (lambda raw: raw.update(stages=["classify", "extract", "tag_roles", "continue_thread", "dialogue_state", "ask"]), "stages"),
        (lambda raw: raw["dialogue_state"].update(sure_of_role=1.5), "dialogue_state.sure_of_role"),
        (lambda raw: raw.pop("tag_roles"), "tag_roles"),
    ],
)
def test_a_broken_pipeline_is_refused_with_the_key_named(tmp_path, change, named):
    with pytest.raises(PipelineError, match=re.escape(f"{named}: ")):
        load_pipeline(_written(tmp_path, change))
