"""The deterministic planner: linked mentions + the question's cues → typed research requests.

Everything it knows about the graph comes from schema/: which labels each relationship type
joins (to settle what a cue means for the linked entity's label, and to find the relationship
when the question names only the kind of answer: an enzyme asked of a disease can only be
ASSOCIATED_WITH), and which two-type chains lead from the entity to the
label asked for. In order:

1. **Not held**: a question whose head is a topic no source holds ("odds ratios", "when was X
   approved") gets no research: the answer says the graph holds no such thing.
2. **Unknown names**: a name the graph does not know in a yes/no or attribute question, or as
   the only subject, ends planning the same way (the answer says the name is not in the graph).
3. **Attributes**: "the brand names of X" → :class:`Attribute`.
4. **Claims**: a yes/no question or statement with two named sides → :class:`ClaimCheck`, then
   (when the graph holds no such edge) what it does hold about the subject on those
   relationship types.
5. **Paths** and **intersections**: two named entities joined by "connect" → :class:`PathBetween`;
   several named constraints and a kind of answer → :class:`Intersection`.
6. **One subject**: a two-type chain when no type joins the subject to the asked label, and the
   one-hop neighbours over the cued (or schema-implied) types; for a drug, its label text last.

Requests are tried in order; the orchestrator stops at the first that finds anything. A weak
mention (a common word, a doubtful index hit) is a subject only when nothing firmer was named.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from biokg.graph_agent import text as words
from biokg.graph_agent.intent import Intent, QuestionReader, Reading
from biokg.graph_agent.models import SEARCH_RULES, Mention
from biokg.graph_agent.paraphrase import RelationMatcher, frame
from biokg.graph_agent.question import Question
from biokg.graph_agent.requests import (
    Attribute,
    Chain,
    ChainWalk,
    ClaimCheck,
    Constraint,
    Focus,
    Intersection,
    LabelText,
    Neighbours,
    PathBetween,
    Relation,
    Request,
)
from biokg.schema import GraphSchema, RelationshipSpec

#: Labels whose nodes form a subtype hierarchy: constraints and claims include subtypes.
_SUBTYPED = "IS_A"


#: The edge property naming the pathway an edge is drawn in (KEGG's KGML edges).
_DRAWN_IN = "pathway"

#: Why a one-hop request was planned from the paraphrase matcher.
PARAPHRASED = "one-hop over the relationship the words paraphrase"
#: Why the other direction of a paraphrased relationship was planned (RelationMatcher.opposite).
OPPOSITE = "one-hop the other way, when the paraphrased direction finds nothing"
#: Why a one-hop request was planned from the kind of answer asked for alone.
ASKED_LABEL = "one-hop over a relationship that reaches the asked kind of entity"
#: Why everything the subject touches was surveyed.
SURVEY = "wide one-hop survey"


@dataclass
class Plan:
    """The requests for one question, and why planning stopped early (``stop``)."""

    intent: Intent
    seeds: list[list[str]]
    requests: list[Request] = field(default_factory=list)
    focus: list[str] = field(default_factory=list)
    stop: str | None = None


class DeterministicPlanner:
    """Turns a question and its mentions into a :class:`Plan` (see module docstring)."""

    name = "deterministic"

    def __init__(
        self,
        schema: GraphSchema,
        *,
        reader: QuestionReader | None = None,
        matcher: RelationMatcher | None = None,
    ) -> None:
        self.schema = schema
        self.reader = reader or QuestionReader(schema)
        self.matcher = matcher  # reads relationships in words schema/ does not have
        #: types whose far end is a value (schema/ ``value_phrases``): no claim's path runs
        #: through one
        self._value_types = tuple(t for t, spec in schema.types.items() if spec.value_phrases)
        self._kind_labels = {
            value: label
            for label, spec in schema.labels.items()
            if spec.kinds is not None
            for value in spec.kinds.values
        }

    def intent(self, reading: Reading, mentions: list[Mention]) -> Intent:
        """What the question asks, the names linked firmly set aside (the weak ones when
        nothing was: a subject named like a cue, "the more specific kinds of Mode of
        inheritance", cues nothing when other words cue a relationship)."""
        question = reading.question
        strong, weak, _ = _by_strength(mentions)
        intent = self.reader.intent(reading, strong)
        named = _distinct_nodes(strong or self._weak_subjects(question, weak))
        if not strong and named:
            aside = self.reader.intent(reading, named[:1])
            # a noun beside the weak subject that says what it is ("the INS gene": an English
            # word, so weak) makes it firm; so does a cue it is named like
            if aside.named_as or (aside.relations and self._named_like_a_cue(question, named[0])):
                intent = aside
        return intent

    def plan(
        self,
        reading: Reading,
        mentions: list[Mention],
        *,
        intent: Intent | None = None,
        present: set[str] | None = None,
    ) -> Plan:
        """The plan for the question of ``reading``: ``intent`` is :meth:`intent`'s (read here
        when not given); ``present``: labels that have nodes in the graph (an asked label
        without nodes gives way to the kinds the question names)."""
        question = reading.question
        intent = self.intent(reading, mentions) if intent is None else intent
        strong, weak, unknown = _by_strength(mentions)
        named = _distinct_nodes(strong or self._weak_subjects(question, weak))
        plan = Plan(intent=intent, seeds=[self._compatible(m, intent) for m in named])
        if question.asks_absence:
            # answered from what the graph holds, it would list what *is* related
            plan.stop = (
                "the graph records which relationships hold, not which do not (ask which are, "
                "or whether one is not)"
            )
            return plan
        if intent.asks_not_held:
            topic = intent.head[1] if intent.head else "such data"
            plan.stop = f"the graph holds no {'dates' if topic == 'when' else topic}"
            return plan
        decisive = [m for m in unknown if _identifier_or_phrase(m.text)]
        if unknown and (not strong or intent.polar or intent.attribute or decisive):
            # an unknown identifier is not repeated: the answer cites only what it found (the
            # linking event and the answer's mentions show what the question named)
            names = ", ".join(
                "an identifier the question names" if ":" in m.text else repr(m.text)
                for m in decisive or unknown
            )
            plan.stop = f"{names} is not in the graph (no node has that name, synonym or id)"
            return plan
        if not named:
            return plan
        targets = self._targets(intent, present)
        mentioned = (m.text for m in mentions if m.candidates and m is not named[0])
        focus = Focus(words=(*intent.words, *mentioned), kinds=self._kinds_of(intent, targets))
        if intent.attribute:
            plan.requests.append(
                Attribute(
                    tuple(plan.seeds[0]),
                    intent.attribute,
                    intent.prefixes,
                    why="asks for a property",
                )
            )
            return plan
        others = [m for m in (*named[1:], *(weak if strong else ())) if m.candidates]
        if intent.polar and others:
            subject, seeds = named[0], plan.seeds[0]
            if len(others) == 1 and self._at_range_end(subject, others[0], intent):
                subject, others, seeds = others[0], [subject], self._compatible(others[0], intent)
            plan.requests += self._claim(seeds, subject, others, intent, focus)
            return plan
        if intent.kind == "path" and len(named) >= 2:
            plan.requests.append(
                PathBetween(
                    tuple(plan.seeds[0]), plan.seeds[1][0], why="asks how two entities connect"
                )
            )
            return plan
        if len(named) >= 2 and (targets or intent.kind == "shared" or not intent.relations):
            kinds = {self._kind_labels.get(k) for k in intent.kinds}
            primary = targets[:1] + tuple(t for t in targets[1:] if t in kinds)
            intersection = self._intersection(named, primary, intent, focus)
            if intersection is not None:
                plan.requests.append(intersection)
                return plan
        plan.focus = [i for group in plan.seeds[1:] for i in group]
        plan.requests += self._about(question, plan.seeds[0], named[0], intent, targets, focus)
        return plan

    def _named_like_a_cue(self, question: Question, mention: Mention) -> bool:
        """The mention's words are a cue of several words ("Mode of inheritance")."""
        cue = tuple(words.lemma(w) for w in question.mention_words(mention))
        return cue in self.reader.cue_sequences

    def _weak_subjects(self, question: Question, weak: list[Mention]) -> list[Mention]:
        """Weak mentions as subjects when nothing stronger was named: without the index
        guesses made only of common English words ("How do families pass <a name ending in
        'of'> down?": "families pass", a full-text hit, is no entity) when anything else is
        left (a guess for a rare word stays: "progeria"), and a name that is also a whole cue
        after the others ("What is the mode of inheritance of <a name ending in 'of'>?")."""
        kept = [
            m
            for m in weak
            if not (
                all(c.rule in SEARCH_RULES for c in m.candidates)
                and all(words.is_common(w) for w in re.findall(r"[A-Za-z]+", m.text))
            )
        ]
        return sorted(kept or weak, key=lambda m: self._named_like_a_cue(question, m))

    # -- one subject ---------------------------------------------------------------------
    def _about(
        self,
        question: Question,
        seeds: list[str],
        mention: Mention,
        intent: Intent,
        targets: tuple[str, ...],
        focus: Focus,
    ) -> list[Request]:
        labels = {self._label_of(mention, i) for i in seeds} - {None}
        if intent.polar:
            targets = ()  # a kind named inside a yes/no claim is part of the claim, no answer
            # a claim whose other side is no name the graph knows ("imatinib treats
            # <an unknown name>"): only findings that share its words can speak to it
            focus = Focus(focus.words, focus.kinds, only_relevant=bool(intent.words))
        label_text = self._label_text(seeds, intent, intent.words)
        if "Drug" in labels and label_text.sections and not intent.relations and not targets:
            # a section of the drug's label asked for by name; a drug without label text may
            # still hold the relationship the words paraphrase
            return [label_text, *self._paraphrased(question, seeds, mention, labels, focus, intent)]
        relations = self._relations(labels, intent, targets)
        requests: list[Request] = []
        # no relations also when the cued types cannot touch the subject ("the cause of <a
        # phenotype>": "cause" cues genes of diseases): its words are read by meaning
        if not (relations or targets):
            # "What problems do patients with X have?"
            requests = self._paraphrased(question, seeds, mention, labels, focus, intent)
            kind = self._asked_kind(question)
            if requests and kind is not None:
                # a wh-phrase after the verb names the kind of answer: when no paraphrased
                # relationship holds an edge, what the subject touches that is named by the
                # kind asked for answers
                kinded = Focus((kind,), focus.kinds, only_relevant=True)
                requests.append(Neighbours(tuple(seeds), (), kinded, why=SURVEY))
            elif requests and (not focus.words or focus.only_relevant):
                # a paraphrase read from grammar words alone (what a gene does) is a guess;
                # when none of its relationships holds an edge, what the subject touches
                # answers (requests run in order until one finds anything). A claim about the
                # subject in words of its own (the asked label is the subject's: a gene called
                # a kind of protein) likewise, by what shares the claim's words
                requests.append(Neighbours(tuple(seeds), (), focus, why=SURVEY))
            if requests:
                return requests + ([label_text] if "Drug" in labels else [])
        chain = self._chain(labels, intent)
        if chain is None and not relations:
            chain = self._schema_chain(labels, targets)
        if chain is not None:
            # kinds of the chain's own ends only ("the parents of the side effects of X": the
            # label section "adverse reactions" is no kind of phenotype)
            ends = Focus(focus.words, self._kinds_of(intent, chain.targets), focus.only_relevant)
            requests.append(ChainWalk(tuple(seeds), chain, ends, why="two-hop chain"))
        if relations and not intent.relations:
            # only the asked label named: each type that reaches it, in the order the words
            # favour ("Which drugs must patients with X avoid?": contraindications first)
            requests += [
                Neighbours(tuple(seeds), group, focus, why=ASKED_LABEL)
                for group in self._by_wording(question, mention, labels, relations, intent)
            ]
        elif relations:
            reaching = self._reaching_the_answer(labels, intent, targets, relations)
            if reaching:
                requests.append(Neighbours(tuple(seeds), tuple(reaching), focus, why=ASKED_LABEL))
            why = "one-hop over the asked relationships"
            # a yes/no question naming only the relationship (inherited, associated with any
            # disease): whether any such edge exists decides it; not when the phrase names a
            # value ("inherited dominantly") or other words of the question name something no
            # mention covers
            decides = (
                intent.polar and bool(intent.relations) and not intent.values and not intent.words
            )
            requests.append(
                Neighbours(
                    tuple(seeds),
                    tuple(relations),
                    focus,
                    why=why,
                    decides=decides,
                    negated=intent.negated,
                    values=intent.values if intent.polar else (),
                )
            )
            kinded = self._kind_reaching(labels, intent, targets, relations)
            if kinded and not intent.polar:
                requests.append(Neighbours(tuple(seeds), tuple(kinded), focus, why=ASKED_LABEL))
        elif not (intent.relations or targets):
            # nothing asked but the entity itself: everything it touches; else only what
            # shares the question's words (a claim in words no relationship reads, or a kind
            # of answer named after the verb)
            narrowed = Focus(focus.words, focus.kinds, only_relevant=bool(focus.words))
            requests.append(Neighbours(tuple(seeds), (), narrowed, why=SURVEY))
        # last, when nothing above found anything: chains that end in a type the question cues
        # ("Which drugs bind to <a GO function>?": the genes annotated with it, then the drugs
        # that target them; the cued type cannot touch a GO term)
        requests += [
            ChainWalk(
                tuple(seeds),
                other,
                Focus(focus.words, self._kinds_of(intent, other.targets), focus.only_relevant),
                why="two-hop chain ending in the asked type",
            )
            for other in self._schema_chains(labels, targets, last=intent.relations)
            if other != chain
        ]
        if "Drug" in labels:
            requests.append(label_text)
        return requests

    def _asked_kind(self, question: Question) -> str | None:
        """The word a which/what question names its answers by (``Question.asked_kind``),
        unless schema/'s vocabulary reads it already ("Which terms …": a label noun)."""
        if question.asked_kind is None:
            return None
        if question.lemmas[question.asked_kind] in self.reader.cue_words:
            return None
        return question.tokens[question.asked_kind].text

    def _paraphrased(
        self,
        question: Question,
        seeds: list[str],
        mention: Mention,
        labels: set[str],
        focus: Focus,
        intent: Intent,
    ) -> list[Request]:
        """One-hop requests over the relationships the question's words paraphrase, most
        likely first (when a matcher is configured): the first that finds anything answers."""
        if self.matcher is None:
            return []
        matched = self.matcher.match(frame(question, mention, intent.appositives), labels)
        matched = self.matcher.orient(matched, question, mention)
        requests = [Neighbours(tuple(seeds), (r,), focus, why=PARAPHRASED) for r in matched]
        opposite = self.matcher.opposite(matched[0], labels) if matched else None
        if opposite is not None and opposite not in matched:
            caveat = (
                f"the question was read as asking for {self._described(matched[0], mention.text)}"
                f" and the graph holds none; these are {self._described(opposite, mention.text)}"
            )
            requests.append(
                Neighbours(tuple(seeds), (opposite,), focus, caveat=caveat, why=OPPOSITE)
            )
        return requests

    def _described(self, relation: Relation, name: str) -> str:
        """schema/'s words for what ``relation`` reaches ("the subtypes of X")."""
        questions = self.schema.types[relation.type].questions
        template = questions.describe_forward if relation.outgoing else questions.describe_inverse
        return template.format(name=name)

    def _by_wording(
        self,
        question: Question,
        mention: Mention,
        labels: set[str],
        relations: list[Relation],
        intent: Intent,
    ) -> list[tuple[Relation, ...]]:
        """``relations`` grouped by type, the types ordered by how close the question's words
        are to each one's wordings (one group of all without a matcher)."""
        if self.matcher is None:
            return [tuple(relations)]
        closeness: dict[str, float] = {}
        for score, r in self.matcher.scores(frame(question, mention, intent.appositives), labels):
            closeness[r.type] = max(closeness.get(r.type, -1.0), score)
        types = sorted({r.type for r in relations}, key=lambda t: -closeness.get(t, -1.0))
        return [tuple(r for r in relations if r.type == t) for t in types]

    def _kinds_of(self, intent: Intent, targets: tuple[str, ...]) -> tuple[str, ...]:
        """The asked kinds that belong to an asked label (all of them when none is asked)."""
        if not targets:
            return intent.kinds
        return tuple(k for k in intent.kinds if self._kind_labels.get(k) in targets)

    def _targets(self, intent: Intent, present: set[str] | None) -> tuple[str, ...]:
        """Asked labels that have nodes; kinds the question names add their label ("pathway"
        is a Pathway and a GO biological process)."""
        kinds = tuple(self._kind_labels[k] for k in intent.kinds if k in self._kind_labels)
        asked = [label for label in intent.target_labels if present is None or label in present]
        if intent.target_labels:
            asked += [label for label in kinds if label != "LabelSection"]
        return tuple(dict.fromkeys(asked))

    # -- claims ------------------------------------------------------------------------------
    def _claim(
        self,
        seeds: list[str],
        subject: Mention,
        others: list[Mention],
        intent: Intent,
        focus: Focus,
    ) -> list[Request]:
        here = {c.label for c in subject.candidates}
        there = {c.label for m in others for c in m.candidates}
        joining = self._joining(here, there)
        cued = [t for t in intent.relations if t in joining]
        types = tuple(cued or joining)
        objects = tuple(dict.fromkeys(c.id for m in others for c in m.candidates))
        # the relationships the question names that leave the subject; with no such edge,
        # what the graph holds about the subject on them ("linked", for a gene: its diseases),
        # then on those joining the kinds
        asked = [
            t
            for t in intent.relations
            if any(here & set(a) for _, a, _ in _ends(self.schema.types[t]))
        ]
        # "Does <drug> target a kinase?": none joins the two sides, so the named one leaves
        # the subject for genes, and the claim's object is a class of what those genes do
        through = () if cued else tuple(asked)
        groups = [
            (tuple(Relation(t, None, ()) for t in group if t != _SUBTYPED), why)
            for group, why in ((asked, "the asked relationships"), (types, "the claim's kinds"))
        ]
        groups = [(relations, why) for relations, why in groups if relations]
        held = groups[0][0] if groups else ()
        requests: list[Request] = [
            ClaimCheck(
                tuple(seeds),
                objects,
                types,
                negated=intent.negated,
                held=held,
                through=through,
                values=self._value_types,
                why="checks a stated relation",
            )
        ]
        requests += [
            Neighbours(
                tuple(seeds),
                relations,
                focus,
                why=f"what it holds on {why}",
                caveat=(
                    "no record either way: no edge joins the claim's two sides; listed is what "
                    f"the graph holds for {subject.text} on {why}"
                ),
                values=intent.values,
                negated=intent.negated,
            )
            for relations, why in groups
        ]
        if "Drug" in here:  # a claim about a drug that its label's sections may settle
            requests.append(self._label_text(seeds, intent, focus.words))
        return requests

    def _label_text(self, seeds: list[str], intent: Intent, words: tuple[str, ...]) -> LabelText:
        sections = tuple(k for k in intent.kinds if self._kind_labels.get(k) == "LabelSection")
        return LabelText(tuple(seeds), " ".join(words), sections, why="the drug's label text")

    # -- intersections -----------------------------------------------------------------------
    def _intersection(
        self,
        mentions: list[Mention],
        targets: tuple[str, ...],
        intent: Intent,
        focus: Focus,
    ) -> Intersection | None:
        """Each named entity becomes a constraint on the asked label; entities no type joins
        to it are left out (and with fewer than two constraints there is no intersection)."""
        asked = targets
        if not targets:  # findings listed with no kind of answer named: what all reach
            if self._classified(mentions):
                return None
            own = {c.label for m in mentions for c in m.candidates}
            shared = set.intersection(
                *(reachable(self.schema, {c.label for c in m.candidates}) for m in mentions)
            )
            targets = tuple(sorted(shared - own))
        constraints = []
        for mention in mentions:
            labels = {c.label for c in mention.candidates}
            found: list[str] = []
            # per asked label its cued types, else every joining one ("pathway": PARTICIPATES_IN
            # to Pathway, ANNOTATED_WITH to GO processes); inferred labels: the cued types only
            for group in [{t} for t in asked] or [set(targets)]:
                joining = [t for t in self._joining(labels, group) if t != _SUBTYPED]
                found += [t for t in joining if t in intent.relations] or joining
            types = tuple(dict.fromkeys(found))
            if types:
                constraints.append(
                    Constraint(
                        tuple(c.id for c in mention.candidates),
                        types,
                        descendants=self._subtyped(labels),
                        outgoing=self._direction(types, intent),
                        within=self._drawn_in(types, mention, mentions),
                    )
                )
        if len(constraints) < 2 or not targets:
            return None
        return Intersection(targets, tuple(constraints), focus, why="several constraints")

    def _direction(self, types: tuple[str, ...], intent: Intent) -> bool | None:
        """Which end of its edges a constraint's entity is, when schema/ directs its types
        (within one label, with inverse phrases; as :meth:`_directed`): "Which genes does MAP2K1
        activate …" wants what MAP2K1 activates, not what activates it."""
        specs = [self.schema.types[t] for t in types]
        if not all(s.inverse_phrases and set(s.from_labels) == set(s.to_labels) for s in specs):
            return None
        directions = {t not in intent.inverse for t in types}
        return directions.pop() if len(directions) == 1 else None

    def _drawn_in(
        self, types: tuple[str, ...], mention: Mention, mentions: list[Mention]
    ) -> tuple[str, ...]:
        """The pathways the question names, when the constraint's edges say which pathway they
        are drawn in (KGML's ``pathway`` qualifier): "… activate in the MAPK signaling
        pathway" counts only edges of that map."""
        if not any(_DRAWN_IN in self.schema.edge_properties(t) for t in types):
            return ()
        return tuple(
            c.id for m in mentions if m is not mention for c in m.candidates if c.label == "Pathway"
        )

    def _subtyped(self, labels: set[str]) -> bool:
        spec = self.schema.types.get(_SUBTYPED)
        return spec is not None and bool(labels & set(spec.from_labels))

    def _classified(self, mentions: list[Mention]) -> bool:
        """With no asked label, a name and an ontology term of another label that a
        relationship type joins directly: the term is a class the name's own edges fall under
        (a gene and a GO process it may sit under: the gene's processes below that term), not
        a constraint on a third label both reach."""
        labels = [{c.label for c in m.candidates} for m in mentions]
        return any(
            here != there
            and self._subtyped(there)
            and any(t != _SUBTYPED for t in self._joining(here, there))
            for here in labels
            for there in labels
        )

    def _at_range_end(self, first: Mention, other: Mention, intent: Intent) -> bool:
        """The first-named side of a claim stands only where the relationship ends ("Is
        <phenotype> a feature of <disease>?": HAS_PHENOTYPE runs from the disease). The claim
        is checked from the other side, so that the first side's subtypes count and what the
        graph holds is told about the side the relationship describes. A name of several
        kinds of node (an abbreviation that is a gene's, a GO function's and a disease's) stays
        the object: the check looks for any of them, while a subject is answered for each node
        it may mean."""
        here = {c.label for c in first.candidates}
        there = {c.label for c in other.candidates}
        joining = self._joining(here, there) if len(there) == 1 else []
        types = [t for t in intent.relations if t in joining] or joining
        ways = [
            outgoing
            for t in types
            for outgoing, a, b in _ends(self.schema.types[t])
            if here & set(a) and there & set(b) and set(a) != set(b)
        ]
        return bool(ways) and not any(ways)

    def _joining(self, here: set[str], there: set[str]) -> list[str]:
        """Relationship types that join a label in ``here`` to one in ``there``."""
        return [
            rel
            for rel, spec in self.schema.types.items()
            if any(here & set(a) and there & set(b) for _, a, b in _ends(spec))
        ]

    # -- labels, relations, chains ----------------------------------------------------------
    def _label_of(self, mention: Mention, node: str) -> str | None:
        found = (*mention.candidates, *mention.alternatives)
        return next((c.label for c in found if c.id == node), None)

    def _compatible(self, mention: Mention, intent: Intent) -> list[str]:
        """Candidate ids whose label fits the question (all candidates if none does).

        Best fit: a cued relationship joins the label to the kind the question asks for first
        ("Which drug ..."). When no candidate fits so, an exactly named lower-ranked node may:
        "Which drug is Cephalexin the label of?" means the label titled Cephalexin, not the
        drug, which HAS_LABEL cannot join to a drug. Next best: a cued relationship touches
        the label.
        """
        named_as = intent.named_as.get(mention.text)
        if named_as is not None:  # "the gene PAX6", "the leaflet Humira"
            kind = [c for c in (*mention.candidates, *mention.alternatives) if c.label == named_as]
            if kind:
                return [c.id for c in kind]
        asked_first = set(intent.target_labels[:1])
        fitting = [c for c in mention.candidates if self._fits(c.label, intent, asked_first)]
        fitting = fitting or [
            c for c in mention.alternatives if self._fits(c.label, intent, asked_first)
        ]
        fitting = fitting or [c for c in mention.candidates if self._fits(c.label, intent, set())]
        fitting = fitting or mention.candidates
        # a tie between kinds: the asked-for kind is the answer, not the entity asked about
        # ("Which drug is Phosphorus the label of?": Phosphorus the Label, not the Drug)
        asked = [c for c in fitting if c.label not in intent.target_labels]
        return [c.id for c in asked or fitting]

    def _fits(self, label: str, intent: Intent, targets: set[str]) -> bool:
        """A cued relationship joins ``label`` to one of ``targets`` (to anything if empty)."""
        for rel in intent.relations:
            spec = self.schema.types[rel]
            if any(
                label in here and (not targets or targets & set(there))
                for _, here, there in _ends(spec)
            ):
                return True
        return False

    def _relations(
        self, labels: set[str], intent: Intent, targets: tuple[str, ...]
    ) -> list[Relation]:
        """One-hop relations from the seed labels that the question cues or asks for.

        Cued types that cannot touch the seed's label give way to every type that joins the
        seed's label to an asked-for label ("Which label is <section> from?", "Which enzyme
        is deficient in X?").
        """
        cued = self._typed(labels, intent, intent.relations, targets)
        if cued or not targets:
            return cued
        return self._reaching(labels, intent, targets)

    def _kind_reaching(
        self, labels: set[str], intent: Intent, targets: tuple[str, ...], cued: list[Relation]
    ) -> list[Relation]:
        """The types reaching a label the question asks for by a kind of its nodes, when no cued
        type reaches it and it is not the seed's own: "pathway" names Pathway nodes and GO's
        biological processes, and a gene in no pathway record is still annotated with them.
        Tried after the cued types, which answer when they find anything."""
        kinds = {self._kind_labels.get(k) for k in intent.kinds} & set(targets)
        unreached = kinds - labels - {label for r in cued for label in r.labels}
        return self._reaching(labels, intent, tuple(sorted(unreached))) if unreached else []

    def _reaching(
        self, labels: set[str], intent: Intent, targets: tuple[str, ...]
    ) -> list[Relation]:
        """Every type that joins the seed's label to an asked-for label."""
        return self._typed(labels, intent, tuple(self.schema.types), targets, targets_only=True)

    def _reaching_the_answer(
        self, labels: set[str], intent: Intent, targets: tuple[str, ...], cued: list[Relation]
    ) -> list[Relation]:
        """When the cued types touch the seed but none reaches the label a which/what question
        opens with ("Which proteins are part of <a GO complex>?": part-of joins GO terms, not
        genes), the types that do; asked before the cued ones, which answer if they find
        nothing. None otherwise."""
        asked = intent.answer_label
        if asked is None or asked not in targets or any(asked in r.labels for r in cued):
            return []
        return self._reaching(labels, intent, (asked,))

    def _typed(
        self,
        labels: set[str],
        intent: Intent,
        types: tuple[str, ...],
        targets: tuple[str, ...],
        *,
        targets_only: bool = False,
    ) -> list[Relation]:
        wanted_labels = set(targets)
        out = []
        for rel in types:
            for outgoing, here, there in _ends(self.schema.types[rel]):
                if not labels & set(here):
                    continue
                wanted = tuple(sorted(set(there) & wanted_labels))
                if targets_only and not wanted:
                    continue
                out.append(Relation(rel, outgoing, wanted or tuple(sorted(there))))
        if any(set(r.labels) & wanted_labels for r in out):  # the asked-for kind of answer first
            out = [r for r in out if set(r.labels) & wanted_labels]
        return self._directed(out, intent)

    def _directed(self, relations: list[Relation], intent: Intent) -> list[Relation]:
        """Both directions of a label-to-itself type: one group, or the asked direction.

        A type with ``inverse_phrases`` in schema/ is directed: its inverse phrases ask for the
        subjects (``subtypes of X``), anything else for the objects (``X is a kind of``).
        """
        out: dict[tuple[str, tuple[str, ...]], Relation] = {}
        for r in relations:
            key = (r.type, r.labels)
            if key not in out:
                out[key] = r
                continue
            if self.schema.types[r.type].inverse_phrases:
                out[key] = Relation(r.type, r.type not in intent.inverse, r.labels)
            else:
                out[key] = Relation(r.type, None, r.labels)
        return list(out.values())

    def _chain(self, labels: set[str], intent: Intent) -> Chain | None:
        """The best two-hop chain over two different cued types, scored by asked-for labels.

        When the question names kinds of entities, the chain's middle must be one of them (``the
        phenotypes of the diseases associated with TP53``), unless no cued type reaches the
        first named kind at once, and an end it names scores higher; a question that names no
        kind of end accepts every kind the second type reaches, one that opens with the kind of
        its answers ("Which diseases …") only chains ending there. Of nested phrases, the one
        nearest the name is the first hop.
        Without two cued types, cued by two phrases, there is no chain.
        """
        if len(intent.relations) < 2 or intent.relation_phrases < 2:
            return None
        targets = intent.target_labels
        gaps = intent.relation_gaps
        # a named end no cued type reaches in one hop ("the features of the off-label uses of
        # X": no phenotype of a drug) leaves the middle unnamed
        direct = {far for rel in intent.relations for _, far in self._hops(rel, labels, intent)}
        unreached = bool(targets) and targets[0] not in direct
        best: tuple[tuple[int, bool], Chain] | None = None
        for first, second in ((a, b) for a in intent.relations for b in intent.relations if a != b):
            for first_out, via in self._hops(first, labels, intent):
                if targets and via not in targets and not unreached:
                    continue  # a chain needs its middle named, or no names at all
                ends: dict[bool | None, list[str]] = {}
                for second_out, end in self._hops(second, {via}, intent):
                    ends.setdefault(second_out, []).append(end)
                for second_out, reached in ends.items():
                    if intent.answer_label and intent.answer_label not in reached:
                        continue  # the answer's kind was asked first: only chains ending there
                    # the asked-for kinds of end if it reaches any, else every kind it can
                    asked = [end for end in reached if end in targets]
                    score = (
                        1 + 2 * bool(asked) + (bool(targets) and targets[0] in asked),
                        gaps.get(first, 0) < gaps.get(second, 0),  # the nearer phrase first
                    )
                    chain = Chain(
                        first, first_out, via, second, second_out, tuple(asked or reached)
                    )
                    if best is None or score > best[0]:
                        best = (score, chain)
        return best[1] if best else None

    def _schema_chain(self, labels: set[str], targets: tuple[str, ...]) -> Chain | None:
        """A chain the schema implies when no one type joins the subject to the asked label:
        a GO complex asked of a disease goes
        disease -ASSOCIATED_WITH- gene -ANNOTATED_WITH- GO term. The first such chain in
        schema order, never through a subtype edge."""
        return next(iter(self._schema_chains(labels, targets)), None)

    def _schema_chains(
        self, labels: set[str], targets: tuple[str, ...], *, last: tuple[str, ...] | None = None
    ) -> Iterator[Chain]:
        """The chains of :meth:`_schema_chain` in schema order, one per first type and middle
        label (the first second type that reaches an asked label from there); with ``last``,
        only those whose second type is one of ``last`` (types the question cues)."""
        if not targets or last == ():
            return
        for first in self.schema.types:
            if first == _SUBTYPED:
                continue
            for first_out, via in self._hops(first, labels, None):
                # a middle the question names is an asked kind too, when the chain ends in a
                # cued type (drugs reached through the genes they bind)
                if via in labels or (via in targets and last is None):
                    continue
                for second in last or self.schema.types:
                    if second in (first, _SUBTYPED):
                        continue
                    reached = [
                        (out, end)
                        for out, end in self._hops(second, {via}, None)
                        if end in targets and end != via
                    ]
                    if reached:
                        out, end = reached[0]
                        yield Chain(first, first_out, via, second, out, (end,))
                        break

    def _hops(
        self, rel: str, labels: set[str], intent: Intent | None
    ) -> list[tuple[bool | None, str]]:
        """(direction, far label) for each way ``rel`` leaves ``labels``."""
        spec = self.schema.types[rel]
        out: dict[str, set[bool]] = {}
        for outgoing, here, there in _ends(spec):
            if labels & set(here):
                for label in there:
                    out.setdefault(label, set()).add(outgoing)
        hops = []
        for label, directions in sorted(out.items()):
            if len(directions) == 1:
                hops.append((directions.pop(), label))
            elif spec.inverse_phrases and intent is not None:
                hops.append((rel not in intent.inverse, label))
            else:
                hops.append((None, label))
        return hops


def reachable(schema: GraphSchema, labels: set[str]) -> set[str]:
    """Labels one relationship type of ``schema`` joins to one of ``labels``."""
    return {
        label
        for spec in schema.types.values()
        for _, here, there in _ends(spec)
        if labels & set(here)
        for label in there
    }


def _ends(spec: RelationshipSpec) -> list[tuple[bool, tuple[str, ...], tuple[str, ...]]]:
    """(outgoing, labels at this end, labels at the far end) for each way a type can be walked.

    A type declared with the same labels at both ends (IS_A, PART_OF, REGULATES) is a hierarchy
    within one label: IS_A from a disease reaches diseases, not GO terms.
    """
    if set(spec.from_labels) == set(spec.to_labels):
        return [(out, (label,), (label,)) for label in spec.from_labels for out in (True, False)]
    return [(True, spec.from_labels, spec.to_labels), (False, spec.to_labels, spec.from_labels)]


def _identifier_or_phrase(text: str) -> bool:
    """An unknown mention that names one thing precisely: an identifier ("R-HSA-8853333",
    "DOID:0060055") or a quoted phrase of several words."""
    has_digit, has_letter = any(c.isdigit() for c in text), any(c.isalpha() for c in text)
    return ":" in text or " " in text or (has_digit and has_letter and len(text) >= 5)


def _by_strength(mentions: list[Mention]) -> tuple[list[Mention], ...]:
    """The mentions linked firmly, those linked weakly, and those naming nothing known."""
    return (
        [m for m in mentions if m.candidates and not m.weak],
        [m for m in mentions if m.candidates and m.weak],
        [m for m in mentions if not m.candidates],
    )


def _distinct_nodes(mentions: list[Mention]) -> list[Mention]:
    """Mentions in order, a mention naming only nodes an earlier one names dropped
    (a symbol and its alias written side by side: one gene)."""
    seen: set[str] = set()
    out = []
    for m in mentions:
        ids = {c.id for c in m.candidates}
        if ids <= seen:
            continue
        seen |= ids
        out.append(m)
    return out
