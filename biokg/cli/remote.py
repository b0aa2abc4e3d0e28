"""``biokg ask`` as a client of a running agent API (``BIOKG_API_URL``).

An agent started in the command's own process spends about a second before the question is
read: importing the Bolt driver and the agent, and reading the lexicon. A server started once
(``biokg serve``) has paid that already, so a command that only sends the question and prints
the answer takes a third of the time. Only the standard library is imported here: the point is
what this process does not load. Why, and what it measured: docs/decisions/0039.
"""

from __future__ import annotations

import json
import urllib.error
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
    url = f"{settings.api_url}/ask" + ("?format=turtle" if fmt == "turtle" else "")
    headers = {"Content-Type": "application/json"}
    if settings.api_key:
        headers["X-API-Key"] = settings.api_key
    request = urllib.request.Request(
        url, data=json.dumps({"question": question}).encode(), headers=headers, method="POST"
    )
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
