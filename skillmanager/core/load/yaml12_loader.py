"""The PyYAML side of yaml12: loaders with YAML 1.2 core-schema scalars, unique keys or Bun.YAML's
last-key-wins, and limits against alias bombs. Imported only when a front matter needs the full parser."""
from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any, Hashable

import yaml

from ..js.json_parse import js_int
from ..js.lazy_pattern import lazy_re
from .yaml12 import CORE_SCHEMA_RESOLVERS, restore_stand_ins, stand_ins_for_pyyaml, with_js_object_keys

YAMLError = yaml.YAMLError

if TYPE_CHECKING:  # the C loader has SafeLoader's interface (the stubs declare it apart)
    _BaseLoader = yaml.SafeLoader
else:  # the C scanner/parser is several times faster on large trees; PyYAML built without libyaml lacks it
    _BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class DuplicateKeyError(yaml.YAMLError):
    pass


class YamlLimitError(yaml.YAMLError):
    """The document is too big once its aliases are expanded, or nested too deeply (alias bombs)."""


# PyYAML shares the object an alias points to, but everything that walks the result (JS conversion,
# String(), comparisons) visits each alias as a copy: 9 aliases of 9 aliases … 9 levels deep is 344
# bytes and hundreds of millions of nodes. Real front matter has a few dozen nodes.
MAX_EXPANDED_NODES = 100_000
MAX_DEPTH = 100  # real front matter nests a few levels; construction recurses several frames a level


def _check_expansion(root: yaml.Node) -> None:
    """Raise YamlLimitError when `root`, with every alias expanded, has more than MAX_EXPANDED_NODES
    nodes or is nested deeper than MAX_DEPTH. Linear in the distinct nodes (memoized, iterative)."""
    sizes: dict[int, tuple[int, int]] = {}  # id(node) -> (expanded nodes, depth)
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            if isinstance(node, yaml.MappingNode):
                children = [n for pair in node.value for n in pair]
            elif isinstance(node, yaml.SequenceNode):
                children = node.value
            else:
                children = []
            total = 1 + sum(sizes[id(c)][0] for c in children)
            depth = 1 + max((sizes[id(c)][1] for c in children), default=0)
            if total > MAX_EXPANDED_NODES:
                raise YamlLimitError(f"aliases expand the front matter to more than {MAX_EXPANDED_NODES:,} "
                                     "values (an alias bomb); skillmanager does not expand it")
            if depth > MAX_DEPTH:
                raise YamlLimitError(f"the YAML is nested more than {MAX_DEPTH} levels deep")
            sizes[key] = (total, depth)
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise YamlLimitError("an alias refers to a collection that contains it (a recursive alias)")
        on_path.add(key)
        stack.append((node, True))
        if isinstance(node, yaml.MappingNode):
            stack.extend((n, False) for pair in node.value for n in pair if id(n) not in sizes)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((n, False) for n in node.value if id(n) not in sizes)
        if len(on_path) > MAX_DEPTH:
            raise YamlLimitError(f"the YAML is nested more than {MAX_DEPTH} levels deep")


def _may_exceed_limits(text: str) -> bool:
    """Without an alias the document has fewer nodes than characters (the 4 MB read cap bounds it), and it
    cannot be nested deeper than its count of brackets and lines: most front matter skips the walk."""
    return ("*" in text or text.count("[") + text.count("{") > MAX_DEPTH // 2
            or text.count("\n") + text.count("- ") > MAX_DEPTH // 2)


def load_bounded(text: str, loader_class: type[yaml.SafeLoader]) -> Any:
    """`yaml.load(text, Loader=loader_class)` that refuses alias bombs and absurd nesting (YamlLimitError)
    before anything is constructed."""
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _may_exceed_limits(text):
            _check_expansion(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


class Yaml12Loader(_BaseLoader):
    """SafeLoader with YAML 1.2 core-schema scalars and unique keys."""


Yaml12Loader.yaml_implicit_resolvers = {}

for _tag, _pattern, _first in CORE_SCHEMA_RESOLVERS:
    Yaml12Loader.add_implicit_resolver(_tag, lazy_re(_pattern), _first)


def _construct_int(loader: Yaml12Loader, node: yaml.ScalarNode) -> int | float:
    value = loader.construct_scalar(node)
    if value.startswith("0o"):
        return int(value[2:], 8)
    if value.startswith("0x"):
        return int(value[2:], 16)
    return js_int(value.lstrip("+"))  # thousands of digits: a float (Infinity), as in JavaScript


def _construct_float(loader: Yaml12Loader, node: yaml.ScalarNode) -> float:
    value = loader.construct_scalar(node).lower()
    if value.endswith(".inf"):
        return -math.inf if value.startswith("-") else math.inf
    if value == ".nan":
        return math.nan
    return float(value)


def _construct_mapping(loader: Yaml12Loader, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        if isinstance(key_node, yaml.ScalarNode):  # fast path: no second construction of plain keys
            if (key_node.tag, key_node.value) in seen:
                raise DuplicateKeyError(f"Map keys must be unique (line {key_node.start_mark.line + 1})")
            seen.add((key_node.tag, key_node.value))
            continue
        key = loader.construct_object(key_node, deep=True)
        try:
            hashable_key = key if not isinstance(key, (list, dict)) else repr(key)
        except Exception:  # pragma: no cover - defensive
            hashable_key = repr(key)
        if hashable_key in seen:
            raise DuplicateKeyError(f"Map keys must be unique (line {key_node.start_mark.line + 1})")
        seen.add(hashable_key)
    return loader.construct_mapping(node, deep=deep)


Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
Yaml12Loader.add_constructor("tag:yaml.org,2002:float", _construct_float)


def _construct_unique_mapping(loader: Yaml12Loader, node: yaml.MappingNode) -> dict[Hashable, Any]:
    return _construct_mapping(loader, node, deep=True)


def _construct_last_wins_mapping(loader: Yaml12Loader, node: yaml.MappingNode) -> dict[Hashable, Any]:
    return loader.construct_mapping(node, deep=True)


Yaml12Loader.add_constructor("tag:yaml.org,2002:map", _construct_unique_mapping)


class Yaml12LastWinsLoader(Yaml12Loader):
    """Bun.YAML (2.1.3xx): a repeated key takes the last value and `<<` merge keys are applied.
    Oracle tests/golden reg-yaml-probe (recorded into /tmp, FINDINGS-registry.md): `description: first value`
    then `description: second value` lists `second value` in 2.1.332 (2.1.88's `yaml` rejects the
    front matter: body fallback); `<<: *b` with `b: {description: from merge}` lists `from merge`."""


Yaml12LastWinsLoader.yaml_implicit_resolvers = {k: list(v) for k, v in Yaml12Loader.yaml_implicit_resolvers.items()}
Yaml12LastWinsLoader.add_implicit_resolver("tag:yaml.org,2002:merge", re.compile(r"^(?:<<)$"), ["<"])
Yaml12LastWinsLoader.add_constructor("tag:yaml.org,2002:map", _construct_last_wins_mapping)


def load_yaml12_full(text: str, *, unique_keys: bool = True) -> Any:
    """The full loader, without the fast path (also the reference the fast path is tested against)."""
    loader = Yaml12Loader if unique_keys else Yaml12LastWinsLoader
    if not unique_keys and "\x00" in text:  # Bun.YAML refuses NUL; `yaml` keeps it (probe-yaml-controls)
        raise yaml.YAMLError("a NUL character is not allowed in YAML")
    stand_ins = stand_ins_for_pyyaml(text)
    if stand_ins is None:
        return with_js_object_keys(load_bounded(text, loader))
    placed, originals = stand_ins
    return restore_stand_ins(with_js_object_keys(load_bounded(placed, loader)), originals)


