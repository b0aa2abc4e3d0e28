"""Entity linking: question text to typed, scored candidate nodes, ambiguity kept.

Strongest evidence first:

1. ids and xrefs (``HP:0001250``, ``CHEMBL192``, ``UNII:…``) anywhere in the text;
2. exact name keys of spans (case-, punctuation-, possessive- and salt-insensitive: ``VIAGRA``,
   ``sildenafil citrate``, ``Lange's``), forgiving one keyboard slip in one word of a span of
   several ("Decreased hpi abduction"); a qualified disease title also by its head, below its
   own names ("Cortisone reductase deficiency" for OMIM's "…, 1");
3. for what is left over once relation, type and grammar words are set aside: typo-tolerant
   matching over the lexicon's keys (rapidfuzz) for words that are not English, then the
   engine's full-text and vector indexes (meaning, not spelling: "high blood pressure" →
   Hypertension) where they are available.

Spans are chosen for the whole question, not one by one: a name of several words beats the
words inside it, and a span that is a single common English word ("lead", "severe", "human")
or a gene alias written as a plain word ("sting", "trade") is *weak*: kept and marked, used as
the question's subject only when nothing stronger was named (see :mod:`.text`). A quoted phrase
is one name: linked whole or reported unknown. A parenthesis right after a name restates it
("Duchenne muscular dystrophy (DMD)"): merged with it when it names the same node,
dropped when it names another. A name-like word the graph does not know ("telomestatin") is
reported as a mention without candidates, so the answer can say it is not in the graph.

A span whose best candidates tie is ambiguous; all of them are returned with their scores, and
lower-ranked exact matches of the same span as the mention's alternatives.

The package, in the order a question passes through it:

- :mod:`.spelling`: each token's lexicon key, unknown words respelled;
- :mod:`.candidates`: the candidate generators (exact keys and readings, forms and namesakes,
  fuzzy names, the engine's indexes), each candidate with how it was found;
- :mod:`.features`: the named features of a (span, candidate) pair and the fitted scorer;
- :mod:`.spans`: where a name may stand (runs, brackets, quotes, restatements);
- :mod:`.linker`: the spans chosen for the whole question and the names left unknown.
"""

from biokg.graph_agent.linking.candidates import Searcher
from biokg.graph_agent.linking.features import LinkScorer, default_scorer
from biokg.graph_agent.linking.linker import Decision, EntityLinker

__all__ = ["Decision", "EntityLinker", "LinkScorer", "Searcher", "default_scorer"]
