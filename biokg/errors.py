"""The one error hierarchy of biokg: every failure a user can meet descends from BiokgError."""


class BiokgError(Exception):
    """Root of every biokg error; the CLI turns it into a one-line message and exit code 1."""


class RetryableError(BiokgError):
    """A transient failure (network, engine busy); flows retry only these."""


class ConfigError(BiokgError):
    """A setting is missing or malformed."""


class SchemaError(BiokgError):
    """schema/ is malformed, or a record names a label, type or property it does not declare."""


class RecordValidationError(SchemaError):
    """A node or edge record breaks the schema (missing provenance, wrong prefix, bad type)."""


class SourceFormatError(BiokgError):
    """An input file does not follow its format; the message names the file and line."""


class CountBoundsError(BiokgError):
    """A source produced node or edge counts outside its declared bounds (truncated input?)."""


class StoreError(BiokgError):
    """The graph store refused a statement or could not be reached."""


class StoreUnavailableError(StoreError, RetryableError):
    """The graph store is not reachable right now."""


class FetchError(RetryableError):
    """Downloading a source file failed in a way that may pass (timeout, dropped connection,
    HTTP 5xx, 408 or 429)."""


class FetchRefusedError(BiokgError):
    """Fetching a source failed in a way retrying cannot fix within a run: the host name does
    not resolve, the server refused the request (HTTP 4xx other than 408 and 429), or a file
    does not match its published checksum. Flows fail at once instead of retrying."""


class UnsafeCypherError(BiokgError):
    """A query was refused by the agent's Cypher gate (writes, admin calls, unbounded paths)."""


class BudgetExceededError(BiokgError):
    """The agent's query, row or time budget for one question ran out."""


class QueryTimeoutError(BudgetExceededError):
    """A query ran past its time limit: the engine stopped it, or the client stopped waiting."""


class AgentInputError(BiokgError):
    """A question or agent option is invalid (empty, too long, unknown value)."""


class EntityNotFoundError(BiokgError):
    """No node in the graph has the requested id."""


class LLMError(RetryableError):
    """The LLM endpoint failed or answered something the planner cannot use."""


class EmbeddingError(BiokgError):
    """Embeddings cannot be made or searched (model missing, wrong dimensions, bad cache)."""


class BlockedError(BiokgError):
    """An upstream refused our requests (HTTP 403): stop, slow down and try again later."""


class GraphBusyError(BiokgError):
    """Another process is writing the graph (a build or refresh holds the write lock)."""
