"""Name keys: the case-, punctuation- and salt-insensitive forms names are matched by.

Shared by the ingest pipeline (drug identity resolution) and the agent (its lexicon and the
question tokenizer), so a name in a question meets a node by the same key the build merged it
by. Salt words are a declared table below.
"""

from __future__ import annotations

import re

#: Salt, ester and hydrate words removed for salt-insensitive matching (USP salt nomenclature,
#: https://www.usp.org/ - the common counter-ions and hydration states of approved drugs).
SALT_WORDS = frozenset(
    """
    acetate anhydrous benzoate besilate besylate bitartrate bromide calcium carbonate chloride
    citrate dihydrate dihydrochloride dimesylate disodium dipropionate edisylate fumarate
    gluconate hemihydrate hyclate hydrobromide hydrochloride hydrate lactate magnesium maleate
    malate mesylate mesilate monohydrate monosodium nitrate oxalate palmitate phosphate
    potassium propionate sodium succinate sulfate sulphate tartrate tosylate trihydrate
    trometamol tromethamine valerate hcl
    """.split()
)
_PUNCT = re.compile(r"[^0-9a-z]+")
#: Local parts that name a node on their own (CHEMBL192, UNII R16CO5Y76E), not bare numbers.
LOCAL_ID = re.compile(r"(?=.*[A-Za-z])(?=.*\d)[A-Za-z0-9]{6,}")


def name_key(text: str) -> str:
    """Case-, punctuation- and spacing-insensitive key of a name.

    >>> name_key("  Sildenafil   Citrate ")
    'sildenafil citrate'
    >>> name_key("VIAGRA®")
    'viagra'
    """
    return " ".join(_PUNCT.sub(" ", text.casefold()).split())


def salt_free_key(text: str) -> str:
    """:func:`name_key` without salt and hydrate words.

    >>> salt_free_key("Sildenafil citrate")
    'sildenafil'
    >>> salt_free_key("sodium chloride")  # nothing left: the name is all salt words
    'sodium chloride'
    """
    key = name_key(text)
    kept = [w for w in key.split() if w not in SALT_WORDS]
    return " ".join(kept) if kept else key
