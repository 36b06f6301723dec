"""The install preview in plain words: the same lines for the CLI and the GUI dialog."""
from __future__ import annotations

from ..checks.audit import level_index
from ..model import Diagnostic, Severity
from .preview import InstallPreview, PlannedSkill, severity_counts

GATE_WORDS = {
    "ok": "Ready to install.",
    "confirm": "Needs a confirmation (CLI: --yes).",
    "blocked": "Blocked by a critical finding; only an explicit override installs it (CLI: --force).",
    "refused": "Cannot be installed.",
}


STANDARD_LABELS = (("claude-code", "Claude Code lint"),
                   ("agentskills", "Agent Skills standard (portability to other agents)"))


def validation_groups(plan: PlannedSkill) -> list[tuple[str, list[Diagnostic], list[Diagnostic]]]:
    """(label, errors, warnings) per standard, Claude Code first: what decides loading, then portability."""
    out: list[tuple[str, list[Diagnostic], list[Diagnostic]]] = []
    for prefix, label in STANDARD_LABELS:
        mine = [d for d in plan.validation if d.code.startswith(prefix + ":")]
        out.append((label, [d for d in mine if d.severity is Severity.ERROR],
                    [d for d in mine if d.severity is Severity.WARNING]))
    return out


def budget_line(preview: InstallPreview) -> str:
    delta = preview.delta
    if delta is None:
        return "Start-up listing: unchanged (the target is not read when the session starts)."
    b, a = delta.before.totals, delta.after.totals
    parts = []
    if delta.added:
        parts.append(f"+{len(delta.added)} entr{'y' if len(delta.added) == 1 else 'ies'} ({', '.join(delta.added)})")
    if delta.removed:
        parts.append(f"-{len(delta.removed)} ({', '.join(delta.removed)})")
    if delta.shortened:
        parts.append(f"{len(delta.shortened)} description{'s' if len(delta.shortened) != 1 else ''} shortened")
    if not parts:
        parts.append("no entry added")
    level = f"; level {b.level} → {a.level}" if b.level != a.level else ""
    return (f"Start-up listing: {', '.join(parts)}; {b.used:,} → {a.used:,} of {a.budget:,} characters{level}.")


def preview_lines(preview: InstallPreview) -> list[str]:
    lines: list[str] = []
    src = preview.source
    if src:
        commit = f" at {str(src['commit'])[:12]}" if src.get("commit") else ""
        lines.append(f"Source: {src.get('kind', '?')} {src.get('location', '')}{commit}")
    lines.append(f"Target: {preview.target.skills_dir} ({preview.target.label})")
    for plan in preview.skills:
        verb = "replaces" if plan.replaces else "new"
        lines.append(f"Skill {plan.name} → {plan.dest} ({verb})")
        for label, errors, warnings in validation_groups(plan):
            lines.append(f"  {label}: {len(errors)} error(s), {len(warnings)} warning(s)")
            for d in errors + warnings:
                where = f" (line {d.line})" if d.line else ""
                lines.append(f"    {d.severity.value} {d.code.split(':', 1)[-1]}{where}: {d.message}")
        findings = plan.audit.findings if plan.audit else []
        if findings:
            lines.append(f"  Audit: {len(findings)} finding(s), worst {plan.worst}")
            for f in sorted(findings, key=lambda f: level_index(f.severity), reverse=True)[:20]:
                lines.append(f"    {f.severity} {f.rule} {f.file.name}:{f.line}: {f.message}")
        else:
            lines.append("  Audit: no findings")
    lines.append(budget_line(preview))
    if preview.delta is not None:
        for name, before, after in preview.delta.shortened:
            lines.append(f"  shortened {name}: {before!r} → {after!r}")
        for name, before, after in preview.delta.changed:
            lines.append(f"  changed {name}: {before!r} → {after!r}")
    if preview.clashes:
        lines.append("Name clashes:")
        lines += [f"  {c}" for c in preview.clashes]
    else:
        lines.append("Name clashes: none")
    lines += [f"Note: {n}" for n in preview.notes]
    counts = severity_counts(preview)
    if counts:
        lines.append("Findings: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    lines.append(f"Gate: {GATE_WORDS[preview.gate]}")
    reason = preview.gate_reason()
    if reason:
        lines.append(f"  {reason}")
    return lines
