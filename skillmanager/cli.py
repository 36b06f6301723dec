"""Headless entry point: `skillmanager [COMMAND] …`. No Qt is imported on any command path.

Each command lives in `skillmanager/commands/<name>.py` and exposes:
    NAME: str, HELP: str
    def add_arguments(parser: argparse.ArgumentParser) -> None
    def run(args: argparse.Namespace, out: TextIO) -> int
Commands that read a workspace call `skillmanager.commands.common.workspace_from_args(args)`
(the shared options are added to every command by `common.add_workspace_options`).
With no command, the desktop app opens (imported lazily).
"""
from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from typing import Sequence, TextIO

from skillmanager import __version__

COMMAND_MODULES = (
    "list", "conflicts", "show", "info", "listing", "expand", "simulate", "toggle", "validate", "audit", "history",
    "verify",
    "install", "new", "rename", "move", "remove", "update",
)
VERIFY_CHILD = "__verify-child"  # internal: the sandboxed half of `verify` (the frozen app has no `python -m`)
CHECKS_CHILD = "__checks-child"  # internal: the app's checks process (core/checks/check_process.py)

EXIT_CODES_HELP = """exit codes:
  0  success (audit: no finding at or above --fail-on)
  1  the command ran and found a problem (audit findings, validate errors, refused toggle, unknown skill,
     an install or update blocked by a finding or refused, a refused rename/move/remove)
  2  usage error: bad option, missing or unreadable --home or directory, unreadable input file
     (verify: it cannot run safely)
Errors and warnings go to stderr; stdout holds only the answer (valid JSON with --json, whatever the
exit code). A settings file or skill folder that cannot be read is skipped as Claude Code skips it, said
on stderr, and makes the exit code 1.
"""


def _load_command(name: str):
    module_name = "list_cmd" if name == "list" else name
    try:
        return importlib.import_module(f"skillmanager.commands.{module_name}")
    except ModuleNotFoundError as error:
        if error.name == f"skillmanager.commands.{module_name}":
            return None  # not built yet
        raise


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one-line errors, exit 2
        self.exit(2, f"skillmanager: error: {message}\n")


def _command_in(argv: Sequence[str]) -> str | None:
    """The command named on the command line, when it is one we know (top-level options take no value)."""
    for arg in argv:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg if arg in COMMAND_MODULES else None
    return None


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse makes a formatter for every add_argument and asks `shutil` for the width, importing it (and
    bz2, lzma, zlib) on every command; the width is worked out here as shutil.get_terminal_size does."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         _terminal_columns() - 2 if width is None else width)


def _terminal_columns() -> int:
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `only`, just that command's module is imported (help and unknown commands
    import them all, so `--help` still lists every command)."""
    parser = _Parser(
        prog="skillmanager",
        description="See every Claude Code skill, which one wins, and exactly what the model is sent.",
        epilog=EXIT_CODES_HELP,
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"skillmanager {__version__}")
    parser.add_argument("--demo", action="store_true", help="open the app on a built-in demo workspace")
    parser.add_argument("--smoke-test", action="store_true",
                        help="build the main window on the demo workspace offscreen-safe, render, exit 0/1")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in (only,) if only else COMMAND_MODULES:
        module = _load_command(name)
        if module is None:
            continue
        sub = subparsers.add_parser(name, help=module.HELP, description=module.HELP, epilog=EXIT_CODES_HELP,
                                    formatter_class=_HelpFormatter)
        module.add_arguments(sub)
        sub.set_defaults(_module=module)
    return parser


class _Utf8SafeOut:
    """File names that are not valid UTF-8 reach the output as lone surrogates (os.fsdecode's
    surrogateescape), which a UTF-8 stream refuses to encode: write each as U+FFFD, as Node prints them."""

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def write(self, text: str) -> int:
        try:
            text.encode("utf-8")  # nothing to replace: no need to import the text module (and `regex`)
        except UnicodeEncodeError:
            from skillmanager.core.js.textwidth import safe_for_output
            text = safe_for_output(text)
        return self._out.write(text)

    def __getattr__(self, name: str):
        return getattr(self._out, name)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, *, collector_paused: bool = False) -> int:
    """`collector_paused`: the caller disabled the cyclic garbage collector for the start-up imports
    (__main__); it is resumed here, with what they allocated frozen, once the command is imported."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == [VERIFY_CHILD]:
        _resume_collector(collector_paused)
        from skillmanager.core.verify.child import main as verify_child
        return verify_child(argv[1:])
    if argv[:1] == [CHECKS_CHILD]:  # before any command or the GUI is imported: the child never opens a window
        _resume_collector(collector_paused)
        from skillmanager.core.checks.check_process import main as checks_child
        return checks_child(argv[1:])
    parser = build_parser(_command_in(argv))
    _resume_collector(collector_paused)
    args = parser.parse_args(argv)
    out = _Utf8SafeOut(out or sys.stdout)
    if args.command is None:
        return _open_gui(args, parser)
    if collector_paused:  # this process runs one command and exits (`entry`)
        from skillmanager.core.collector import freeze_bulk_results
        freeze_bulk_results()  # what its bulk steps build stays frozen
    return _run_command(args, out)


def entry() -> int:
    """The `skillmanager` command: start-up imports allocate thousands of long-lived objects and free none, so
    the cyclic collector would only re-walk them (~6 % of `skillmanager list`); main() resumes it, with
    them frozen, once the command's modules are imported."""
    gc.disable()
    code = main(collector_paused=True)
    _end_without_teardown(code)
    return code


def _end_without_teardown(code: int) -> None:
    """End a finished command's process the way the interpreter's teardown would, without freeing its objects
    one by one (a 5,000-skill registry: ~20-25 ms of a first `listing`; the OS takes the memory back at once):
    stdout and stderr are flushed, exit handlers run (logging's flush, temporary folders' cleanup), then
    os._exit. Not after the desktop app (Qt saves settings as its objects go), not with a second thread (a
    teardown waits for it); a stream that cannot be flushed (a closed pipe) is left to the teardown, which
    reports it as before."""
    threading = sys.modules.get("threading")
    if "PySide6.QtCore" in sys.modules or (threading is not None and threading.active_count() != 1):
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    import atexit
    atexit._run_exitfuncs()  # (private, but what the interpreter itself runs first at exit)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)


def _resume_collector(paused: bool) -> None:
    if paused:
        gc.freeze()
        gc.enable()


def _run_command(args: argparse.Namespace, out: TextIO) -> int:
    """A REPLAYABLE command's answer comes from its memo when nothing it read has changed (commands/output_memo)."""
    if getattr(args._module, "REPLAYABLE", False) and not getattr(args, "no_cache", False):
        from skillmanager.commands.output_memo import run_or_replay
        return run_or_replay(args, out, _run_command_now)
    return _run_command_now(args, out)


def _run_command_now(args: argparse.Namespace, out: TextIO) -> int:
    """One error path for every command: usage errors exit 2, problems 1, everything on stderr
    (stdout keeps only the command's documented output, so --json/--sarif stay parseable)."""
    from skillmanager.commands import errors

    handler = errors.install_stderr_logging()
    errors.forget_registries()
    try:
        code = int(args._module.run(args, out) or 0)
        return errors.settle(code)
    except errors.UsageError as error:
        errors.forget_registries()
        sys.stderr.write(errors.error_line(str(error)) + "\n")
        document = getattr(args._module, "usage_error_document", None)
        if document is not None:  # a command whose machine output promises a document whatever the exit code
            text = document(args, str(error))
            if text:
                out.write(text)
        return 2
    except errors.CommandProblem as error:
        return errors.settle(_problem(errors.error_line(str(error))))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except OSError as error:  # a path the OS refuses (name too long, permission, …) reached a command
        errors.logger().debug("OSError in %s", args.command, exc_info=True)
        return errors.settle(_problem(errors.error_line(errors.os_error_text(error))))
    except RecursionError:
        return errors.settle(_problem(errors.error_line("the input is nested too deeply to process")))
    finally:
        errors.logger().removeHandler(handler)


def _problem(line: str) -> int:
    sys.stderr.write(line + "\n")
    return 1


def _open_gui(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        app_module = importlib.import_module("skillmanager.gui.app")
    except ModuleNotFoundError as error:
        if error.name and (error.name.startswith("skillmanager.gui") or error.name.startswith("PySide6")):
            parser.print_help()
            return 0
        raise
    return int(app_module.main(demo=args.demo, smoke_test=args.smoke_test) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
