"""The behaviours of Claude Code that differ between releases, one named member each.

Code asks `profile.supports(Feature.X)`, never which release it is; which releases have a feature is
data (resources/data/claude_versions.json), with the probe and versions that settled it.
"""
from __future__ import annotations

from enum import Enum


class Feature(str, Enum):
    # --- reading SKILL.md files and directories
    STRIPS_BOM = "STRIPS_BOM"  # a leading U+FEFF is removed before the front matter is parsed
    LENIENT_BOOLEANS = "LENIENT_BOOLEANS"  # yes/no/on/off/1/0 accepted as booleans in front matter
    YAML_LAST_KEY_WINS = "YAML_LAST_KEY_WINS"  # Bun.YAML: a repeated key keeps the last value, `<<` merges
    # description/when_to_use runs of newlines → space
    WHEN_TO_USE_NEWLINES_TO_SPACES = "WHEN_TO_USE_NEWLINES_TO_SPACES"
    FALLBACK_DESCRIPTION_LONE_SURROGATE_TO_SPACE = "FALLBACK_DESCRIPTION_LONE_SURROGATE_TO_SPACE"
    SKILL_DIRS_CASE_INSENSITIVE_ORDER = "SKILL_DIRS_CASE_INSENSITIVE_ORDER"  # skill dirs read in localeCompare order
    # skill dirs (and a plugin's) listed in the order the directory is read, unsorted
    SKILL_DIRS_IN_READ_ORDER = "SKILL_DIRS_IN_READ_ORDER"
    ADD_DIR_COMMANDS = "ADD_DIR_COMMANDS"  # an --add-dir's .claude/commands is loaded
    # `.claude/commands` files come in ripgrep order and plugin entries as concurrent reads finish, so their
    # order in the listing varies from run to run (compared as sets by `verify` and the oracle tests)
    UNSTABLE_COMMAND_AND_PLUGIN_ORDER = "UNSTABLE_COMMAND_AND_PLUGIN_ORDER"
    COMMANDS_SORTED_BY_NAME = "COMMANDS_SORTED_BY_NAME"
    ADD_DIR_CLASH_SCOPED = "ADD_DIR_CLASH_SCOPED"  # a clashing --add-dir skill becomes `{dir}:{name}`
    # --- plugins
    PLUGIN_SKILL_COLON_TO_DASH = "PLUGIN_SKILL_COLON_TO_DASH"  # plugin skill dir `pre:x` listed as `plug:pre-x`
    PLUGIN_DISPLAY_NAME_PREFIXED = "PLUGIN_DISPLAY_NAME_PREFIXED"  # a plugin skill's `name:` shows as `plug:name`
    # `skills/` loads even when the manifest names others
    # a plugin entry's `name:` without `:` is an alias the Skill tool accepts (exact names win; two carriers: ambiguous)
    PLUGIN_NAME_ALIAS = "PLUGIN_NAME_ALIAS"
    PLUGIN_DEFAULT_SKILLS_DIR_KEPT = "PLUGIN_DEFAULT_SKILLS_DIR_KEPT"
    # --- which copy of a name wins
    LISTING_KEEPS_EVERY_COPY = "LISTING_KEEPS_EVERY_COPY"  # every same-named skill is listed
    DMI_YIELDS_NAME = "DMI_YIELDS_NAME"  # a disable-model-invocation copy does not hide a later copy from the model
    EXACT_NAME_BEFORE_DISPLAY_NAME = "EXACT_NAME_BEFORE_DISPLAY_NAME"  # lookup: an exact name, then a display name
    # the model's command list has one copy per name
    SKILL_TOOL_ONE_COMMAND_PER_NAME = "SKILL_TOOL_ONE_COMMAND_PER_NAME"
    # --- settings
    SKILL_OVERRIDES = "SKILL_OVERRIDES"  # the `skillOverrides` setting exists (typed in the settings schema)
    # managed overrides match a bundled alias
    BUNDLED_ALIASES_IN_POLICY_OVERRIDES = "BUNDLED_ALIASES_IN_POLICY_OVERRIDES"
    # only the bad key of a managed file goes
    MANAGED_BAD_OVERRIDES_DROPPED_ALONE = "MANAGED_BAD_OVERRIDES_DROPPED_ALONE"
    DISABLE_BUNDLED_SKILLS = "DISABLE_BUNDLED_SKILLS"  # the `disableBundledSkills` setting exists
    MANAGED_INVALID_JSON_REFUSES_START = "MANAGED_INVALID_JSON_REFUSES_START"
    DENY_RULES_MATCH_DISPLAY_NAME = "DENY_RULES_MATCH_DISPLAY_NAME"  # Skill rules also try the resolved skill's names
    SKILL_RULE_GLOB_FORM = "SKILL_RULE_GLOB_FORM"  # `Skill(skill:glob)`
    SKILL_RULE_WORD_PREFIX_FORM = "SKILL_RULE_WORD_PREFIX_FORM"  # `Skill(prefix *)`
    # project settings.json allow rules do not apply
    PROJECT_SKILL_ALLOW_RULES_IGNORED = "PROJECT_SKILL_ALLOW_RULES_IGNORED"
    # --- the listing (layer 1)
    BUN_STRING_WIDTH = "BUN_STRING_WIDTH"  # widths measured by Bun's stringWidth, not node's
    MODEL_AWARE_BUDGET = "MODEL_AWARE_BUDGET"  # bytes per token, 1M window and placement follow the model family
    BUDGET_FRACTION_SETTING = "BUDGET_FRACTION_SETTING"  # `skillListingBudgetFraction`
    # SLASH_COMMAND_TOOL_CHAR_BUDGET=6,483 (digits grouped by `,` `_` or a space) is read as 6483, not ignored
    BUDGET_ENV_GROUPED_DIGITS = "BUDGET_ENV_GROUPED_DIGITS"
    MAX_DESC_CHARS_SETTING = "MAX_DESC_CHARS_SETTING"  # `skillListingMaxDescChars`
    DISPLAY_NAME_IN_BRACKETS = "DISPLAY_NAME_IN_BRACKETS"  # `name (display)` when the display name resolves back
    LISTING_PRIORITY_MODE = "LISTING_PRIORITY_MODE"  # over budget: entries drop by priority, not common max length
    REQUEST_UTF8_REPLACES_LONE_SURROGATES = "REQUEST_UTF8_REPLACES_LONE_SURROGATES"  # lone surrogate sent as U+FFFD
    LISTING_TRAILING_NEWLINE = "LISTING_TRAILING_NEWLINE"  # `</system-reminder>\n`
    NEW_SKILLS_DISCOVERED_MESSAGE = "NEW_SKILLS_DISCOVERED_MESSAGE"  # mid-session: "New skills discovered in …"
    CONDITIONAL_REACTIVATES = "CONDITIONAL_REACTIVATES"  # a `paths:` skill is stored as conditional again after loads
    # Edit, and Write over an existing file, need a prior Read; refused, they discover nothing
    WRITE_TOOLS_NEED_PRIOR_READ = "WRITE_TOOLS_NEED_PRIOR_READ"
    # --- invocation (layer 2)
    UNKNOWN_SKILL_HINTS = "UNKNOWN_SKILL_HINTS"  # "Unknown skill" with scoped variants / Did you mean
    DMI_REFUSAL_EXPLAINS = "DMI_REFUSAL_EXPLAINS"  # the disable-model-invocation refusal asks the user to run it
    ASK_SUGGESTS_ALLOW_RULE = "ASK_SUGGESTS_ALLOW_RULE"  # the ask message names the settings.local.json allow rule
    ARGS_SPLIT_SHELL_QUOTE = "ARGS_SPLIT_SHELL_QUOTE"  # `$0`… words from shell-quote parse (else first-command words)
    ARGS_SUBSTITUTION_SINGLE_PASS = "ARGS_SUBSTITUTION_SINGLE_PASS"  # one scan, missing `$N` literal, a total cap
    EXPANSION_VARS_ESCAPED = "EXPANSION_VARS_ESCAPED"  # `${CLAUDE_…}` inside the argument pass, values `!`-escaped


# Values every release has (not on/off behaviours): name → what it is.
VALUE_NAMES = {
    "family": "human label of the release family",
    "default_model": "the model used when nothing chooses one",
    "per_entry_cap": "description(+when_to_use) cap per listing entry, UTF-16 code units",
    "bundled": "key of the bundled entries measured in resources/data/bundled_skills.json",
    "bundled_kept_when_disabled": "bundled names disableBundledSkills leaves (built-in plugin skills)",
    "source_order": "the order sources are loaded in (SourceKind values)",
    "effort_levels": "the values the `effort:` front-matter key accepts",
}
