"""The plain words every screen and command uses (docs/glossary.md says the same, for people)."""
from __future__ import annotations

# state key (the GUI's row states) -> (one short word, one sentence)
STATE_LEGEND = {
    "active": ("Listed", "Claude sees its name and full description at the start of every session."),
    "shortened": ("Shortened", "Listed, but its description was cut to fit the listing budget or the per-entry limit."),
    "name-only": ("Name only", "Claude sees just its name: the budget or a setting dropped the description."),
    "hidden": ("Hidden", "Not listed to Claude; you can still run it as /name."),
    "blocked": ("Blocked", "A deny rule refuses Claude's calls to it; it may still be listed."),
    "off": ("Off", "Neither listed to Claude nor callable."),
    "shadowed": ("Shadowed", "Another skill with the same name wins; this copy is not used."),
    "conditional": ("Waiting", "Listed only once a file matching its paths is touched."),
    "invalid": ("Error", "The file could not be read as a skill."),
}

# checks badge level (core.checks.skill_checks) -> (words, one sentence)
BADGE_LEGEND = {
    "danger": ("Review before use", "A critical or high audit finding, e.g. a download piped into a shell."),
    "error": ("Error", "Claude Code cannot read it as written, e.g. front matter that does not parse."),
    "warning": ("Worth a look", "A medium finding or a lint warning: something is off."),
    "note": ("For information", "A low finding or a lint note."),
}

GUIDE = (
    "Claude Code reads skills from your personal folder (~/.claude/skills), from the project you open, and "
    "from plugins. At the start of a session it sends the model a listing: one line per skill, squeezed into "
    "a budget counted in characters. What does not fit is shortened or reduced to the name.",
    "The switch on a row turns a skill on or off the way your Claude Code version reads it, in your personal "
    "settings; its tooltip names the file. Space does the same for the selected rows. Every change can be "
    "undone from the notice, with Ctrl+Z, or later from Edit > History.",
    "Costs are shown in tokens (what the model pays); the budget is in characters (what Claude Code counts).",
    "Four pages (View menu, Alt+1 to Alt+4): Skills (every skill and what Claude sees of it); Listing & "
    "expansion (the exact listing, and what invoking a skill injects, even when Claude Code would refuse or "
    "ask first); Conflicts (why one copy of a name wins, the copies compared, turning a losing copy off); "
    "Simulator (read, edit or write project files as Claude would, and see which skills each step reveals, "
    "which folders git hides, and the exact text the model receives).",
    "The chips above the list show only the skills that are on, off, shortened, in a name conflict, in need "
    "of review, or waiting; Esc clears the filter.",
)

# the skill pane while no skill is picked: what needs attention first, then the legend of states
OVERVIEW_ATTENTION = "Worth a look first"
OVERVIEW_CALM = ("Nothing needs attention",
                 "No skill needs review, no description is shortened, no name is used twice.")
OVERVIEW_LEGEND = "What the states mean"

# the welcome page (first run, or a home with no skills of the user's own)
WELCOME_TITLE = "Welcome to skillmanager"
WELCOME_TEXT = ("See exactly which skills Claude Code finds, what it tells the model about each, and why. "
                "There are no skills of your own here yet, only the ones that come with Claude Code.")
WELCOME_CHOICES = {
    "personal": ("My personal skills", "Your own skills in ~/.claude/skills, as every project sees them."),
    "open": ("Open a project folder…", "A project's skills and yours together, as Claude Code sees them there."),
    "demo": ("Try the demo", "A sample project with every kind of skill and conflict, copied to a temporary "
                             "folder so nothing of yours changes."),
}
WELCOME_RECENT = "Recent projects"
WELCOME_SKIP = "Show Claude Code's own skills"
