"""Where a name ends beside another: two question classes sampled from the user's graph itself.

    biokg db start
    python benchmarks/bench_name_edges.py [--samples 40] [--seed 11]

* **binding**: gene–GO "<ligand> binding" annotations, asked "Does <symbol> bind <ligand>?" and
  "Does <gene name> bind to <ligand>?"; right when the verdict is "yes" and the function is
  linked (a gene's name beside "bind <ligand>" is another mention: decision 0034, addendum).
* **letter A**: nodes whose name ends in " A" ("<family> member A"), asked "Tell me about
  <name>."; right when the node is linked (a last "A" is the name's letter, no article).

The wordings are the sources' own names (GO, NCBI Gene), sampled with a seed; nothing here is
a development question. Prints the counts; nothing is asserted.
"""

from __future__ import annotations

import argparse
import random

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.graph_agent.agent import GraphAgent

_BINDING = """
MATCH (g:Gene)-[:ANNOTATED_WITH]->(t:GOTerm)
WHERE t.namespace = 'molecular_function' AND t.name ENDS WITH ' binding' AND g.symbol IS NOT NULL
RETURN g.symbol AS symbol, g.name AS name, t.id AS term,
       substring(t.name, 0, size(t.name) - 8) AS ligand
ORDER BY term, symbol
"""
_LETTER_A = """
MATCH (n:Entity) WHERE n.name ENDS WITH ' A' AND 8 < size(n.name) < 60
RETURN n.id AS id, n.name AS name ORDER BY id
"""


def _linked(agent: GraphAgent, question: str) -> tuple[set[str], str | None]:
    answer = agent.ask(question)
    return {c.id for m in answer.mentions for c in m.candidates}, answer.verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    settings = Settings.from_env()
    with GraphStore.connect(settings) as store:
        agent = GraphAgent.connect(store, settings)
        rows = store.read(_BINDING)
        right = asked = 0
        for row in random.Random(args.seed).sample(rows, min(args.samples, len(rows))):
            for form in ("Does {symbol} bind {ligand}?", "Does {name} bind to {ligand}?"):
                linked, verdict = _linked(agent, form.format(**row))
                right += verdict == "yes" and row["term"] in linked
                asked += 1
        print(f"binding:  {right} of {asked} 'yes' citing the function ({len(rows)} pairs)")
        rows = store.read(_LETTER_A)
        sample = random.Random(args.seed).sample(rows, min(args.samples, len(rows)))
        right = sum(
            row["id"] in _linked(agent, f"Tell me about {row['name']}.")[0] for row in sample
        )
        print(f"letter A: {right} of {len(sample)} linked whole ({len(rows)} names)")


if __name__ == "__main__":
    main()
