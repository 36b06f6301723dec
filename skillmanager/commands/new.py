"""`skillmanager new NAME --description …`: a skill folder from the template, validated before it is written."""
from __future__ import annotations

import argparse
import json
from typing import TextIO

from skillmanager.core.manage import operations
from skillmanager.core.manage.template import blocking_findings, template_findings
from skillmanager.core.manage.names import name_problem

from .common import add_workspace_options, workspace_from_args
from .manage_common import add_to_option, refuse, run_operation, target_or_usage

NAME = "new"
HELP = "create a skill from the template (name, description, when to use, optional paths:)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="the skill's folder name (what / invokes)")
    parser.add_argument("--description", required=True, help="what the skill does (the model reads it)")
    parser.add_argument("--when-to-use", help="when the model should use it (appended in the listing)")
    parser.add_argument("--paths", metavar="GLOB", nargs="+", action="extend", default=[],
                        help="make it conditional: listed once a matching file is touched")
    add_to_option(parser, help_extra=" (default: personal)")
    parser.add_argument("--dry-run", action="store_true", help="print the SKILL.md and its validation only")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    add_workspace_options(parser)


def run(args: argparse.Namespace, out: TextIO) -> int:
    workspace = workspace_from_args(args)
    target = target_or_usage(workspace, args.to)
    problem = name_problem(args.name)
    if problem:
        return refuse(f"`{args.name}` cannot be a skill name: {problem}.", out, args.json)
    text = operations.skill_template(args.name, args.description, args.when_to_use, args.paths)
    findings = [] if not args.description.strip() else template_findings(args.name, text, workspace.profile)
    if args.dry_run:
        if args.json:
            json.dump({"done": False, "dry_run": True, "dest": str(target.skills_dir / args.name), "text": text,
                       "findings": [d.to_json() for d in findings]}, out, indent=1, ensure_ascii=False)
            out.write("\n")
        else:
            out.write(f"would create {target.skills_dir / args.name}/SKILL.md:\n{text}")
            for d in findings:
                out.write(f"{d.severity.value} {d.code}: {d.message}\n")
        return 1 if blocking_findings(findings) else 0
    errors = blocking_findings(findings)
    if errors:
        return refuse("; ".join(f"{d.code}: {d.message}" for d in errors), out, args.json)
    return run_operation(operations.create, out, args.json, target.skills_dir, args.name, args.description,
                         args.when_to_use, args.paths)
