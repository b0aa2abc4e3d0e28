"""The LLM planner: an OpenAI-compatible model researches a question with the agent's tools.

:class:`LLMResearcher` implements the agent's ``Researcher`` protocol. The model sees the
question, the entities linked in it and a schema summary from schema/, and calls tools (link,
breadth, depth, cypher, answer; :mod:`biokg.graph_agent.llm_tools`). It never writes the
answer's claims: they are built from the findings its tool calls produced, so every citation
points into the evidence graph. Its Cypher is only ever run through the gate, so text in the
graph that tries to instruct the model (prompt injection) can at worst waste a tool call.

Bounded: at most ``max_tool_calls`` tool calls and ``max_repairs`` repairs per question, a
timeout per model call, and the question's graph budget. Built by :meth:`from_settings` only
when ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and ``BIOKG_LLM_MODEL`` are all set.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from biokg.core.settings import Settings
from biokg.errors import LLMError
from biokg.graph_agent.findings import Finding
from biokg.graph_agent.gate import CypherGate
from biokg.graph_agent.llm_tools import AgentTools, CypherRepairError, ToolBox, tool_specs
from biokg.graph_agent.models import Mention
from biokg.graph_agent.prompts import QuestionPrompt, system_prompt
from biokg.graph_agent.runner import QueryRunner

if TYPE_CHECKING:
    import openai

__all__ = ["CypherRepairError", "LLMResearcher"]
log = logging.getLogger(__name__)
DEFAULT_TIMEOUT_S = 60.0


class LLMResearcher:
    """Plans research with an OpenAI-compatible chat model (see module docstring)."""

    name = "llm"

    def __init__(
        self,
        client: openai.OpenAI,
        model: str,
        *,
        gate: CypherGate | None = None,
        max_tool_calls: int = 12,
        max_repairs: int = 3,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.client = client
        self.model = model
        self.gate = gate or CypherGate()
        self.max_tool_calls = max_tool_calls
        self.max_repairs = max_repairs
        self.timeout_s = timeout_s

    @classmethod
    def from_settings(cls, settings: Settings, **options: Any) -> LLMResearcher | None:
        """A researcher for the configured endpoint, or None when it is not configured.

        Builds the client only (no request is made). Client-side retries are off: an endpoint
        failure surfaces as :class:`LLMError`, which callers may retry.
        """
        if not (settings.openai_base_url and settings.openai_api_key and settings.llm_model):
            return None
        import openai  # only when an endpoint is configured: 0.25 s of imports otherwise

        client = openai.OpenAI(
            base_url=settings.openai_base_url,
            api_key=settings.openai_api_key,
            timeout=options.get("timeout_s", DEFAULT_TIMEOUT_S),
            max_retries=0,
        )
        return cls(client, settings.llm_model, **options)

    def research(
        self, question: str, mentions: list[Mention], runner: QueryRunner, agent: AgentTools
    ) -> list[Finding]:
        """Let the model call tools until it answers or a bound is reached; its findings.

        Raises:
            LLMError: the endpoint failed, timed out or answered something unusable.
            CypherRepairError: its Cypher still failed after ``max_repairs`` repairs.
            BudgetExceededError: the question's graph budget is spent.
        """
        tools = ToolBox(runner, agent, self.gate, mentions, max_repairs=self.max_repairs)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self._system(agent)},
            {"role": "user", "content": _question(question, mentions)},
        ]
        calls = 0
        while not tools.finished and calls < self.max_tool_calls:
            message = self._complete(messages)
            tool_calls = message.tool_calls or []
            messages.append(_assistant(message.content, tool_calls))
            if not tool_calls:
                break  # the model answered in text: claims come from findings, not from it
            for call in tool_calls:
                calls += 1
                if calls > self.max_tool_calls or tools.finished:
                    result: dict[str, Any] = {"error": "tool-call budget spent; not run"}
                else:
                    result = tools.call(call.function.name, call.function.arguments)
                log.debug("tool %s(%s) -> %s", call.function.name, call.function.arguments, result)
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": call.id,
                        "content": json.dumps(result, ensure_ascii=False, default=str),
                    }
                )
        return tools.result()

    def _system(self, agent: AgentTools) -> str:
        return system_prompt(
            agent.schema,
            agent.store.dialect,
            max_hops=self.gate.max_hops,
            max_rows=self.gate.max_rows,
            procedures=self.gate.procedures,
            max_tool_calls=self.max_tool_calls,
        )

    def _complete(self, messages: list[dict[str, Any]]) -> Any:
        """One chat completion with tools; the reply's message."""
        import openai

        try:
            response = self.client.chat.completions.create(
                model=self.model,
                messages=messages,
                tools=tool_specs(),
                tool_choice="auto",
                timeout=self.timeout_s,
            )
        except openai.OpenAIError as err:
            raise LLMError(
                f"LLM endpoint {self.client.base_url} ({self.model}) failed: {err}"
            ) from err
        if not response.choices:
            raise LLMError(f"LLM endpoint {self.client.base_url} returned no choices")
        return response.choices[0].message


def _question(question: str, mentions: list[Mention]) -> str:
    lines = [
        f"- '{m.text}': "
        + "; ".join(f"{c.id} | {c.label} | {c.name} | {c.score:.2f}" for c in m.candidates[:5])
        for m in mentions
        if m.candidates
    ]
    return QuestionPrompt.format(question=question, mentions="\n".join(lines) or "(none)")


def _assistant(content: str | None, tool_calls: list[Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.function.name, "arguments": call.function.arguments},
            }
            for call in tool_calls
        ]
    return message
