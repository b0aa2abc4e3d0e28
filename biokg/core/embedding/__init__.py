"""The embedding runtime both the ingest pipeline and the agent use.

Models (:mod:`.models`, :mod:`.onnx`, :mod:`.static`), the text each node label embeds
(:mod:`.texts`) and the index searches (:mod:`.search`) live here, below ``biokg.ingest`` and
``biokg.graph_agent``, so the agent can embed a question and search the graph's indexes without
importing the pipeline that wrote them (the import contract in ``.importlinter`` keeps it so).
Writing vectors onto the graph (``biokg.ingest.embedding.nodes``) stays with ingest.
"""
