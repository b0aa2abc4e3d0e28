"""The agent REST API (FastAPI): thin routes over the graph agent; ``biokg serve`` runs it.

Nothing here does I/O at import: :func:`biokg.api.app.create_app` builds the app, and its
lifespan connects the store and the agent.
"""
