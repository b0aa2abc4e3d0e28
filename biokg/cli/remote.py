"""``biokg ask`` and ``biokg search`` as clients of a running agent API (``BIOKG_API_URL``).

An agent started in the command's own process spends about a second before the question is
read: importing the Bolt driver and the agent, and reading the lexicon. A server started once
(``biokg serve``) has paid that already, so a command that only sends the question and prints
the answer takes a third of the time. Only the standard library is imported here: the point is
what this process does not load. Why, and what it measured: docs/decisions/0039.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request

from biokg import errors
from biokg.core.settings import Settings

#: Seconds to wait for the server's answer: above its own per-request deadline, which answers
#: a slow question with an error of its own (504) before this expires.
ANSWER_WAIT_S = 300.0


def ask_remote(settings: Settings, question: str, fmt: str) -> str:
    """The server's answer to ``question``: the Answer's JSON, or Turtle for ``fmt="turtle"``.

    Raises:
        BiokgError: the server's error, as the class it names (``AgentInputError`` for a bad
            question, ``StoreUnavailableError`` for an engine that is down, …) with its message;
            or nothing answering at the URL.
    """
    query = "?format=turtle" if fmt == "turtle" else ""
    return _call(settings, f"/ask{query}", {"question": question})


def search_remote(settings: Settings, text: str, limit: int) -> str:
    """The server's candidates for ``text`` (``GET /search``), as JSON; errors as
    :func:`ask_remote`'s."""
    return _call(settings, "/search?" + urllib.parse.urlencode({"q": text, "limit": limit}))


def _call(settings: Settings, path: str, body: dict[str, str] | None = None) -> str:
    """The response text of ``path`` on the API (POST with a JSON ``body``, else GET)."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if settings.api_key:
        headers["X-API-Key"] = settings.api_key
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{settings.api_url}{path}", data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=ANSWER_WAIT_S) as response:
            return response.read().decode("utf-8")
    except urllib.error.HTTPError as err:
        raise _server_error(err, settings.api_url or "") from None
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise errors.BiokgError(
            f"no agent API answers at {settings.api_url} ({reason}): start one with `biokg "
            "serve`, or unset BIOKG_API_URL to answer in this process"
        ) from None


def _server_error(err: urllib.error.HTTPError, base_url: str) -> errors.BiokgError:
    """The error the server's body names (``{"error", "type", "fields"}``), raised here as
    the same class where biokg has one."""
    try:
        body = json.loads(err.read() or b"{}")
    except ValueError:
        body = {}
    message = body.get("error") or err.reason
    kind = getattr(errors, str(body.get("type")), None)
    if not (isinstance(kind, type) and issubclass(kind, errors.BiokgError)):
        kind = errors.BiokgError
    return kind(f"{message} (HTTP {err.code} from {base_url})")
