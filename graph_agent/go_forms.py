"""The names people use for GO terms that GO's own naming conventions imply.

GO names a molecular function after what the gene product is ("protein kinase activity": GO's
style is "<the product> activity") or what it binds ("actin binding": "<the ligand> binding"),
a signalling process after the receptor of its ligand ("insulin receptor signaling pathway"),
and a cellular component by a noun whose relational adjective people write instead ("a nuclear
protein": the nucleus). Questions use the product ("Which genes are protein kinases?"), the
verb ("Which genes bind actin?"), the short process ("genes in insulin signalling") and the
adjective ("mitochondrial proteins"). The lexicon keys each form beside the term's own names,
under its own rule (``derived``, below synonyms); the linker's scorer always judges a derived
key (its features are an exact key's, at the rule's score), as it judges guesses, and never
trusts it for its length (docs/decisions/0018-scored-linking.md, 2026-12-01).

Nothing here is a list of terms: the forms follow from the names and from the graph's own
vocabulary (an adjective is kept only when some name of the graph uses it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from biokg.graph_agent.text import MODIFIER_ENDINGS

#: The GO namespace whose one-word names have relational adjectives (nucleus, lysosome, cilium).
COMPONENT = "cellular_component"
_ACTIVITY = " activity"
_BINDING = " binding"
#: How a question says that a product binds a ligand: "bind X", "binds to X".
_BIND_VERBS = ("bind", "binds", "bind to", "binds to")
_PROTEIN = "protein "
_PATHWAY = " pathway"
_SIGNALING = ("signaling", "signalling")
_RECEPTOR = " receptor"
#: How English forms the relational adjective of a Latin or Greek noun (noun ending, adjective
#: ending), the longer ending first: mitochondrion → mitochondrial, cytoskeleton →
#: cytoskeletal, nucleus → nuclear, flagellum → flagellar, cilium → ciliary, vesicle →
#: vesicular, microtubule → microtubular, centriole → centriolar, lysosome → lysosomal,
#: cytoplasm → cytoplasmic, cytosol → cytosolic, synapse → synaptic, sarcomere → sarcomeric.
#: Several endings may apply; only a form the graph's names use is kept.
_RELATIONAL_ENDINGS = (
    ("ion", "ial"),
    ("on", "al"),
    ("us", "ar"),
    ("um", "ar"),
    ("um", "ary"),
    ("cle", "cular"),
    ("ule", "ular"),
    ("le", "lar"),
    ("ome", "omal"),
    ("se", "tic"),
    ("m", "mic"),
    ("l", "lic"),
    ("e", "ic"),
)


def derived_names(
    name: str, namespace: str | None, *, known: Callable[[str], bool]
) -> Iterator[str]:
    """The forms GO's conventions imply for one name or synonym of a GO term.

    ``known``: whether the graph's names use a word (an adjective is derived only if so).

    >>> list(derived_names("protein kinase activity", "molecular_function", known=bool))
    ['protein kinase']
    >>> list(derived_names("protein tyrosine kinase activity", None, known=bool))
    ['protein tyrosine kinase', 'tyrosine kinase']
    >>> list(derived_names("insulin receptor signaling pathway", None, known=bool))
    ['insulin receptor signaling', 'insulin signaling']
    >>> list(derived_names("nucleus", "cellular_component", known={"nuclear"}.__contains__))
    ['nuclear']
    >>> list(derived_names("ATP binding", "molecular_function", known=bool))
    ['bind ATP', 'binds ATP', 'bind to ATP', 'binds to ATP']
    """
    if name.endswith(_BINDING) and namespace != COMPONENT:
        # a comma before "binding" is the ligand's own ("2 iron, 2 sulfur cluster binding")
        ligand = name[: -len(_BINDING)].strip()
        if ligand:
            yield from (f"{verb} {ligand}" for verb in _BIND_VERBS)
        return
    if "," in name:
        return  # "catalytic activity, acting on a protein": a qualified name has no short form
    if name.endswith(_ACTIVITY):
        product = name[: -len(_ACTIVITY)].strip()
        if product and not product.split()[-1].lower().endswith(MODIFIER_ENDINGS):
            yield product
            # what a protein kinase phosphorylates names it without "protein": "tyrosine
            # kinase", "serine/threonine kinase" (a kinase of two words keeps it)
            if product.startswith(_PROTEIN) and len(product.split()) >= 3:
                yield product[len(_PROTEIN) :]
        return
    words = name.split()
    if len(words) >= 3 and words[-2] in _SIGNALING and name.endswith(_PATHWAY):
        process = name[: -len(_PATHWAY)]
        yield process
        ligand = process[: -len(words[-2]) - 1]
        if ligand.endswith(_RECEPTOR) and len(ligand) > len(_RECEPTOR):
            yield f"{ligand[: -len(_RECEPTOR)]} {words[-2]}"
        return
    if namespace == COMPONENT and len(words) == 1:
        yield from relational_adjectives(name.lower(), known=known)


def relational_adjectives(noun: str, *, known: Callable[[str], bool]) -> list[str]:
    """The adjectives of ``noun`` that the graph's names use, by :data:`_RELATIONAL_ENDINGS`.

    >>> relational_adjectives("mitochondrion", known={"mitochondrial"}.__contains__)
    ['mitochondrial']
    """
    found = []
    for ending, adjective in _RELATIONAL_ENDINGS:
        if noun.endswith(ending) and len(noun) > len(ending) + 2:
            form = noun[: len(noun) - len(ending)] + adjective
            if form not in found and known(form):
                found.append(form)
    return found
