"""The floor every package of biokg stands on: settings, names, files, streams, the graph
store, the embeddings and CURIEs. It imports nothing above it (``.importlinter``,
docs/developing.md "Layers"); schema/ and cypher/ stand beside it on the same floor, and
``biokg.errors`` under all of them."""
