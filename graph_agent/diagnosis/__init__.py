"""Differential diagnosis: which diseases fit a patient's observed (and excluded) HPO terms.

The graph's HPO hierarchy and disease annotations are read once per graph load
(:mod:`.load`), turned into closures, information content and frequencies (:mod:`.index`),
and every disease is scored (:mod:`.scoring`) and ranked with its evidence (:mod:`.ranker`).
docs/decisions/0021-differential-diagnosis.md records the methods measured.
"""
