"""What the real CLI sent, reduced from the fake server's request log to the parts skills decide.

The start-up listing comes from the first main-loop request (its tools include Read): the first text block
holding the listing header, either a whole `<system-reminder>` block or a section of a system message (cut at
the first blank line after the entries). Each Read the fake model made is followed, in the last main-loop
request, by its tool result, the user text blocks after it and any role=system messages: their skill blocks
(`<system-reminder>` blocks or system messages that start with the listing header or "New skills discovered
in") are that step's delta.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

HEADER = "The following skills are available for use with the Skill tool:"
WRAPPED_HEADER = "<system-reminder>\n" + HEADER
DISCOVERY = "New skills discovered in "
SKILL_BLOCK = re.compile(r"^(?:" + re.escape(HEADER) + "|" + re.escape(DISCOVERY) + ")")
REMINDER_BLOCK = re.compile(r"<system-reminder>\n(.*?)\n</system-reminder>", re.S)
BLOCK_SPLIT = re.compile(r"\n\n(?=" + re.escape(HEADER) + "|" + re.escape(DISCOVERY) + ")")

TOOL_RESULT = "tool_result"
SYSTEM = "system"


@dataclass
class CapturedListing:
    placement: str  # "system-reminder" | "system"
    text: str  # reminder placement: the whole block; system: header through the last entry


@dataclass
class CapturedStep:
    path: str
    placement: str | None  # where its skill blocks came: tool_result | system | None (nothing)
    blocks: list[str] = field(default_factory=list)  # unwrapped skill blocks in order
    tool_result: str = ""
    is_error: bool = False


@dataclass
class Capture:
    model: str | None
    listing: CapturedListing | None
    steps: list[CapturedStep]
    main_requests: int
    skill_tool: bool  # the Skill tool was in the tool list

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "main_requests": self.main_requests, "skill_tool": self.skill_tool,
                "listing": None if self.listing is None else self.listing.__dict__,
                "steps": [s.__dict__ for s in self.steps]}


def _tool_names(body: dict[str, Any]) -> set[str]:
    return {t["name"] for t in body.get("tools") or [] if isinstance(t, dict) and isinstance(t.get("name"), str)}


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return "\n".join(x.get("text", json.dumps(x)) for x in content if isinstance(x, dict))
    return content if isinstance(content, str) else json.dumps(content)


def find_listing(body: dict[str, Any]) -> CapturedListing | None:
    for message in body.get("messages") or []:
        for block in _blocks(message):
            text = block.get("text") if block.get("type") == "text" else None
            if not isinstance(text, str) or HEADER not in text:
                continue
            if text.startswith(WRAPPED_HEADER):
                return CapturedListing("system-reminder", text)
            start = text.index(HEADER)
            end = text.find("\n\n", start + len(HEADER) + 2)
            return CapturedListing("system", text[start:len(text) if end < 0 else end])
    for block in body.get("system") or []:  # a listing in the top-level system prompt
        text = block.get("text") if isinstance(block, dict) else None
        if isinstance(text, str) and HEADER in text:
            start = text.index(HEADER)
            end = text.find("\n\n", start + len(HEADER) + 2)
            return CapturedListing("system", text[start:len(text) if end < 0 else end])
    return None


def skill_blocks_of_system(texts: list[str]) -> list[str]:
    out: list[str] = []
    for text in texts:
        if SKILL_BLOCK.match(text):
            out += BLOCK_SPLIT.split(text)
    return out


def skill_blocks_of_reminders(texts: list[str]) -> list[str]:
    return [b for text in texts for b in REMINDER_BLOCK.findall(text) if SKILL_BLOCK.match(b)]


def reduce_requests(requests: list[dict[str, Any]]) -> Capture:
    bodies = [r["body"] for r in requests if isinstance(r.get("body"), dict)]
    main = [b for b in bodies if "Read" in _tool_names(b)]
    if not main:
        return Capture(None, None, [], 0, False)
    first = main[0]
    last = max(main, key=lambda b: len(b.get("messages") or []))
    messages = last.get("messages") or []
    steps: list[CapturedStep] = []
    for i, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        for block in _blocks(message):
            if block.get("type") != "tool_use":
                continue
            step = CapturedStep(str((block.get("input") or {}).get("file_path", "")), None)
            user_texts: list[str] = []
            system_texts: list[str] = []
            for later in messages[i + 1:]:
                if later.get("role") == "assistant":
                    break
                for item in _blocks(later):
                    if later.get("role") == "system":
                        if item.get("type") == "text":
                            system_texts.append(item.get("text", ""))
                    elif item.get("type") == "tool_result" and item.get("tool_use_id") == block.get("id"):
                        step.tool_result = _result_text(item)
                        step.is_error = bool(item.get("is_error"))
                        user_texts.append(step.tool_result)
                    elif item.get("type") == "text":
                        user_texts.append(item.get("text", ""))
            reminders = skill_blocks_of_reminders(user_texts)
            systems = skill_blocks_of_system(system_texts)
            step.blocks = reminders + systems
            step.placement = TOOL_RESULT if reminders else (SYSTEM if systems else None)
            steps.append(step)
    return Capture(first.get("model"), find_listing(first), steps, len(main), "Skill" in _tool_names(first))
