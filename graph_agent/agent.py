"""The orchestrator: link → plan → research (breadth/depth) within budget → cited answer.

:meth:`GraphAgent.stream` yields a :class:`StepEvent` per step as it happens (linking, the plan,
each query, partial findings, the answer), so the CLI prints and the API streams the same
events; :meth:`GraphAgent.ask` returns only the final :class:`Answer`. Research stops at the
first step that finds anything (sufficiency) or when the budget is spent.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from biokg import cypher
from biokg.core.embedding.onnx import OnnxEmbedder
from biokg.core.embedding.static import node_embedder
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.errors import AgentInputError, BudgetExceededError
from biokg.graph_agent.answer import (
    answer_nodes,
    build_claims,
    compose,
    elapsed_ms,
    summarise,
    verb,
)
from biokg.graph_agent.attributes import AttributeLookup
from biokg.graph_agent.checks import ClaimCheckSearch
from biokg.graph_agent.findings import Finding, StepResult
from biokg.graph_agent.intent import Intent, QuestionReader, Reading, identifier_names
from biokg.graph_agent.intersection import IntersectionSearch
from biokg.graph_agent.label_text import LabelTextSearch
from biokg.graph_agent.lexicon import Lexicon, graph_digest
from biokg.graph_agent.linking import EntityLinker, Searcher
from biokg.graph_agent.llm import LLMResearcher
from biokg.graph_agent.models import (
    Answer,
    AnswerEvent,
    Linked,
    LinkingEvent,
    Mention,
    PartialEvent,
    PlanEvent,
    PlannedStep,
    PlanView,
    Progress,
    QueryEvent,
    QueryRecord,
    StepEvent,
)
from biokg.graph_agent.paraphrase import RelationMatcher
from biokg.graph_agent.planner import DeterministicPlanner, Plan
from biokg.graph_agent.question import Question
from biokg.graph_agent.requests import (
    Attribute,
    ChainWalk,
    ClaimCheck,
    Intersection,
    LabelText,
    Neighbours,
    PathBetween,
    Request,
)
from biokg.graph_agent.research import (
    BRIDGE,
    BreadthSearch,
    ChainSearch,
    PathSearch,
    ResearchStep,
)
from biokg.graph_agent.runner import Budget, QueryRunner
from biokg.graph_agent.searchers import index_searchers
from biokg.graph_agent.text import clean, keep_word_table
from biokg.schema import GraphSchema, load_schema

log = logging.getLogger(__name__)
MAX_QUESTION_CHARS = 2_000


class Researcher(Protocol):
    """An LLM planner: researches a question with the agent's tools on the question's runner."""

    name: str

    def research(
        self, question: str, mentions: list[Mention], runner: QueryRunner, agent: GraphAgent
    ) -> list[Finding]: ...


#: The attributes of a searcher that hold a model it embeds question text with.
_MODELS = ("embedder", "reranker")


class GraphAgent:
    """Answers questions from the graph with citations (see module docstring)."""

    def __init__(
        self,
        store: GraphStore,
        linker: EntityLinker,
        *,
        schema: GraphSchema | None = None,
        budget: Budget | None = None,
        researcher: Researcher | None = None,
        cache_dir: Path | None = None,
        matcher: RelationMatcher | None = None,
        reader: QuestionReader | None = None,
    ) -> None:
        self.store = store
        self.cache_dir = cache_dir  # where the lexicon is cached; None: it never reloads
        self.schema = schema or load_schema()
        self.linker = linker
        self.budget = budget or Budget()
        self.planner = DeterministicPlanner(self.schema, reader=reader, matcher=matcher)
        self.researcher = researcher
        self.strategies: dict[type[Request], ResearchStep] = {
            Neighbours: BreadthSearch(),
            ChainWalk: ChainSearch(),
            PathBetween: PathSearch(),
            ClaimCheck: ClaimCheckSearch(),
            Intersection: IntersectionSearch(),
            Attribute: AttributeLookup(),
            LabelText: LabelTextSearch(),
        }

    @classmethod
    def connect(
        cls,
        store: GraphStore,
        settings: Settings,
        *,
        searchers: tuple[Searcher, ...] | None = None,
        budget: Budget | None = None,
    ) -> GraphAgent:
        """The agent the CLI and the API use, over the graph as it is now.

        Reads or reuses the cached lexicon. ``searchers`` default to the engine's full-text and
        vector indexes (the model loads for the first text only they can place). Plans with the
        LLM when ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and ``BIOKG_LLM_MODEL`` are set,
        deterministically otherwise.
        """
        schema = load_schema()
        keep_word_table(settings.cache_dir / "models")
        lexicon = Lexicon.load(store, settings.cache_dir)
        sentences = OnnxEmbedder(settings.cache_dir)  # loads on the first text it embeds
        if searchers is None:  # the model of the node vectors (BIOKG_EMBEDDER)
            searchers = index_searchers(store, schema, node_embedder(settings), sentences)
        reader = QuestionReader(schema, prefix_names=identifier_names(schema, settings.cache_dir))
        linker = EntityLinker.reading_with(
            lexicon,
            reader,
            searchers=searchers,
            judge_exact_words=settings.linking == "scored",
        )
        researcher = LLMResearcher.from_settings(settings)
        return cls(
            store,
            linker,
            schema=schema,
            budget=budget,
            researcher=researcher,
            cache_dir=settings.cache_dir,
            matcher=RelationMatcher(schema, sentences, cache_dir=settings.cache_dir),
            reader=reader,
        )

    def warm(self) -> None:
        """Load now what the first question would: the models that embed question text (the
        sentence model is exported first where no build has: tens of seconds) and the
        paraphrase matcher's wordings, so that a server's first request runs within its
        budget."""
        embedders = [getattr(s, name, None) for s in self.linker.searchers for name in _MODELS]
        if self.planner.matcher is not None:
            embedders.append(self.planner.matcher.embedder)
            self.planner.matcher.prepare()
        for embedder in {id(e): e for e in embedders if e is not None}.values():
            embedder.embed(["warm up"])

    def refresh(self) -> list[dict]:
        """Follow the graph: reload the lexicon if a build changed it; returns data versions."""
        versions = self.store.read(cypher.load("agent_data_versions"))
        if self.cache_dir is not None and graph_digest(versions) != self.linker.lexicon.digest:
            lexicon = Lexicon.load(self.store, self.cache_dir)
            if lexicon.digest != self.linker.lexicon.digest:  # not the same earlier one again
                self.linker.lexicon = lexicon
        return versions

    def ask(self, question: str, *, budget: Budget | None = None) -> Answer:
        """The final answer to ``question`` (see :meth:`stream` for the steps)."""
        *_, last = self.stream(question, budget=budget)
        assert isinstance(last, AnswerEvent)  # the stream ends with the answer
        return last.data

    def stream(self, text: str, *, budget: Budget | None = None) -> Iterator[StepEvent]:
        """Answer the question ``text``, yielding each step as it happens; the last event is
        the answer: parse → link → read → plan → research → answer.

        ``budget`` replaces the agent's own for this question (the API lowers it per request).

        Raises:
            AgentInputError: the question is empty or longer than MAX_QUESTION_CHARS.
        """
        started = time.perf_counter()
        reading = self.planner.reader.understand(_parsed(text))
        question = reading.question
        versions = self.refresh()
        # a described patient ("…: which diseases fit?"): the diagnosis ranker researches it
        if reading.described is not None:
            # imported here: the ranker's numpy/polars/scipy cost every CLI question 0.17 s
            from biokg.graph_agent.diagnosis.question import DiagnosisAnswer

            dx = DiagnosisAnswer(self.store, self.linker, self.cache_dir)
            yield from dx.stream(question.text, reading.described, budget or self.budget, versions)
            return
        queued: list[QueryRecord] = []  # streamed after the linking and plan events
        runner = QueryRunner(self.store, budget or self.budget, on_query=queued.append)
        mentions = self.linker.mentions(question, reading, read=runner.reader("link:search"))
        link_ms = elapsed_ms(started)
        yield LinkingEvent(data=Linked(mentions=mentions, ms=link_ms))
        intent = self.planner.intent(reading, mentions)
        plan = self.planner.plan(
            reading, mentions, intent=intent, present=self.linker.lexicon.labels
        )
        yield PlanEvent(data=_describe(reading, plan, self.researcher))
        found = StepResult("none", [])
        notes = [plan.stop] if plan.stop else []
        surveyed: list[dict] = []  # what the breadth steps counted around the seeds
        try:
            for result in self._research(reading, mentions, plan, runner):
                yield from (QueryEvent(data=q) for q in queued)
                queued.clear()
                if result.note:  # what a step could not do, or a caveat on what it found
                    notes.append(result.note)
                surveyed += result.survey
                result = self._of_asked_kind(result, plan.intent, runner, notes)
                if result.findings:
                    found = result
                    yield PartialEvent(data=Progress(found=len(result.findings)))
                    break
        except BudgetExceededError as err:
            notes.append(str(err))
        yield from (QueryEvent(data=q) for q in queued)
        findings = found.findings
        if plan.focus and any(f.node in plan.focus for f in findings):
            findings = [f for f in findings if f.node in plan.focus]
        if not findings and not notes:
            notes.append(_why_empty(mentions, plan))
        if not findings and plan.seeds and (held := _held(surveyed, plan.seeds[0], mentions)):
            notes.append(held)
        # a claim the source denies (only NOT edges found) is answered "no"
        sources = {v["source"]: str(v["version"]) for v in versions}
        answer = compose(
            question.text,
            runner,
            planner=self.researcher.name if self.researcher else self.planner.name,
            mentions=mentions,
            claims=build_claims(runner.evidence, findings, sources),
            answers=answer_nodes(runner.evidence, findings),
            summary=summarise(runner.evidence, findings, mentions, notes, found.verdict),
            verdict=found.verdict,
            timing=(started, link_ms),
            versions=versions,
        )
        yield AnswerEvent(data=answer)

    def _research(
        self, reading: Reading, mentions: list[Mention], plan: Plan, runner: QueryRunner
    ) -> Iterator[StepResult]:
        """Results of each planned request in turn (the caller stops at the first that finds
        anything)."""
        if self.researcher is not None:
            found = self.researcher.research(reading.question.text, mentions, runner, self)
            yield StepResult("llm", found)
            return
        for request in plan.requests:
            yield self.run_request(request, runner)
        if plan.stop:
            return
        # nothing from the linked nodes: their alternatives next (lower-ranked exact matches,
        # namesakes of another kind), planned the same way; never a document: a label is what
        # the agent reads, and a drug without side effects is not answered through its label's
        # namesake (the drug itself, "has label")
        documents = self.schema.document_labels
        promoted = [
            m.model_copy(update={"candidates": kept, "alternatives": []})
            for m in mentions
            if (kept := [c for c in m.alternatives if c.label not in documents])
        ]
        present = self.linker.lexicon.labels
        fallback = self.planner.plan(reading, promoted, present=present) if promoted else None
        if fallback is not None and fallback.seeds != plan.seeds and not fallback.stop:
            for request in fallback.requests:
                yield self.run_request(request, runner)

    def _of_asked_kind(
        self, result: StepResult, intent: Intent, runner: QueryRunner, notes: list[str]
    ) -> StepResult:
        """``result`` without the findings that are no answer to a question asking for one
        kind of node ("Which drugs …" is not answered with the diseases a step reached: schema/'s
        ``answer_groups`` say which labels answer for one another); what was set aside is
        noted, so the answer says what the graph holds instead."""
        asked = intent.answer_label
        if asked is None or not result.findings:
            return result
        accepted = self.schema.answers_for(asked)
        nodes = runner.evidence.nodes
        kept = [f for f in result.findings if nodes[f.node].label in accepted]
        if len(kept) < len(result.findings) and not kept:
            other = Counter((nodes[f.node].label, verb(f.relation)) for f in result.findings)
            held = ", ".join(
                f"{n} {label} nodes ({how})" for (label, how), n in other.most_common()
            )
            notes.append(f"no {asked} node answers what was asked; the graph holds {held} there")
        return dataclasses.replace(result, findings=kept)

    def run_request(self, request: Request, runner: QueryRunner) -> StepResult:
        """Run one request with its strategy (also the LLM planner's breadth/depth tools)."""
        strategy = self.strategies.get(type(request))
        if strategy is None:
            raise TypeError(f"no research strategy for {type(request).__name__}")
        return strategy.run(runner, request)


def _parsed(text: str) -> Question:
    """The question parsed, once it is known to be neither empty nor too long."""
    text = clean(text or "")
    if not text:
        raise AgentInputError("the question is empty")
    if len(text) > MAX_QUESTION_CHARS:
        raise AgentInputError(
            f"the question has {len(text)} characters; at most {MAX_QUESTION_CHARS} are taken"
        )
    return Question.parse(text)


def _why_empty(mentions: list[Mention], plan: Plan) -> str:
    if not any(m.candidates for m in mentions):
        return "no entity in the question matches a node (names, synonyms, ids, typos checked)"
    relations = ", ".join(plan.intent.relations)
    names = ", ".join(c.name for m in mentions for c in m.candidates[:3])
    asked = f"{relations} edges" if relations else "edges"
    return f"no {asked} of the asked kind were found for {names}"


def _held(surveyed: list[dict], subject: list[str], mentions: list[Mention]) -> str | None:
    """What the graph does hold for the question's subject, when nothing answered: the
    relationship types and how many edges of each, as a step surveyed them ("what the graph
    holds about the subject" instead of an answer about a namesake). Named, not cited: a
    finding no one asked for is no answer."""
    names = {
        c.id: c.name for m in mentions for c in (*m.candidates, *m.alternatives) if c.id in subject
    }
    rows = {(r["seed"], r["type"], r["outgoing"], r["label"]): r["edges"] for r in surveyed}
    counts: Counter[tuple[str, str, bool, str]] = Counter()
    for (seed, rel_type, outgoing, label), edges in rows.items():  # each step surveys anew
        if rel_type != BRIDGE and seed in names:
            counts[(seed, verb(rel_type), outgoing, label)] += edges
    if not counts:
        return None
    per_seed: dict[str, list[str]] = {}
    for (seed, how, outgoing, label), n in sorted(counts.items(), key=lambda item: -item[1]):
        nodes = f"{n} {label} node{'s' if n > 1 else ''}"
        per_seed.setdefault(seed, []).append(f"{how} {nodes}" if outgoing else f"{nodes} {how} it")
    return "the graph holds for " + "; ".join(
        f"{names[seed]}: {', '.join(held)}" for seed, held in per_seed.items()
    )


def _describe(reading: Reading, plan: Plan, researcher: Researcher | None) -> PlanView:
    return PlanView(
        planner=researcher.name if researcher else "deterministic",
        request=reading.request,
        kind=plan.intent.kind,
        polar=plan.intent.polar,
        relations=list(plan.intent.relations),
        target_labels=list(plan.intent.target_labels),
        kinds=list(plan.intent.kinds),
        seeds=plan.seeds,
        stop=plan.stop,
        steps=[PlannedStep(strategy=type(r).__name__, why=r.why) for r in plan.requests],
    )
