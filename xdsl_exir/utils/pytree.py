"""
Calling a program as the exported module is called: inputs flattened along the
export's input spec, outputs rebuilt along its output spec.

The specs are torch's serialized `TreeSpec` text (`treespec_dumps`: `[protocol,
tree]`, a node being `{"type", "context", "children_spec"}`), read here without
torch: tuples, lists, dicts (`OrderedDict`, `defaultdict`), None and leaves;
any other registered container (a namedtuple, a dataclass) comes back as a
tuple. The Python API and the compiled-artifact runtime (`xdsl_exir.runtime`,
which imports nothing but numpy and IREE's runtime) share this module, so a
saved program is called exactly as the compiled one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, cast

__all__ = ["flatten_inputs", "load_spec", "prepare_unflatten", "unflatten"]


def load_spec(text: str) -> dict[str, Any] | None:
    """torch's serialized TreeSpec (`treespec_dumps`: `[protocol, tree]`), or None if unreadable."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, list) and len(cast(list[Any], data)) == 2 and isinstance(data[1], dict):
        return cast(dict[str, Any], data[1])
    return None


def _kind(spec: dict[str, Any]) -> str:
    t = spec.get("type")
    if t is None:
        return "leaf"
    name = str(t)
    if name.endswith("NoneType"):
        return "none"
    if name in ("builtins.dict", "collections.OrderedDict", "collections.defaultdict"):
        return "dict"
    if name == "builtins.list":
        return "list"
    return "tuple"  # tuples, namedtuples and other registered containers come back as tuples


def _children(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return cast(list[dict[str, Any]], spec.get("children_spec") or [])


def _dict_keys(spec: dict[str, Any]) -> list[Any]:
    context = spec.get("context")
    try:
        keys = json.loads(context) if isinstance(context, str) else context
    except ValueError:
        keys = None
    if isinstance(keys, list):
        return cast(list[Any], keys)
    if isinstance(keys, dict) and "dict_keys" in keys:  # defaultdict's context
        return cast(list[Any], cast(dict[str, Any], keys)["dict_keys"])
    return list(range(len(_children(spec))))


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def flatten_inputs(
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    in_spec: str | None,
    names: Sequence[str],
    leaf: Callable[[Any], Any],
    error: Callable[[str], Exception],
) -> list[Any]:
    """
    The user inputs in order: flat already (as many as `names`), or flattened
    along the program's input spec; `leaf` converts each leaf (a torch tensor
    to numpy, say), `error` makes the exception a wrong structure raises.
    """
    wanted = len(names)
    listing = f"{_count(wanted, 'user input')} ({', '.join(names) or 'none'})"
    if not kwargs and len(args) == wanted and not any(isinstance(a, (tuple, list, dict)) for a in args):
        return [leaf(a) for a in args]
    spec = load_spec(in_spec) if in_spec is not None else None
    if spec is None and kwargs:
        # Keyword arguments name the exported function's parameters, which only the input
        # spec maps to user inputs; a flat input's name (a placeholder's) need not be one.
        raise error(
            f"keyword arguments ({', '.join(kwargs)}) need the input structure torch.export records "
            f"(an in_spec), and this program has none: give its {listing} positionally, in that order"
        )
    if spec is None:
        nested = next((i for i, a in enumerate(args) if isinstance(a, (tuple, list, dict))), None)
        if len(args) == wanted and nested is not None:
            raise error(
                f"argument {nested} is a {type(args[nested]).__name__}, and the program records no input "
                f"structure to flatten it along: give each of its {listing} as an array"
            )
        raise error(f"the program takes {listing}, got {len(args)}")
    args_spec, kwargs_spec = _children(spec) if _kind(spec) == "tuple" and len(_children(spec)) == 2 else (spec, None)
    flat: list[Any] = []
    positional = _children(args_spec)
    if len(args) != len(positional):
        if len(positional) == wanted:
            raise error(f"the program takes {listing}, got {len(args)}")
        raise error(
            f"the program takes {_count(len(positional), 'argument')} as exported "
            f"(flattened: {listing}), got {len(args)}"
        )

    def along(value: Any, spec: dict[str, Any], where: str) -> None:
        kind = _kind(spec)
        children = _children(spec)
        if kind == "leaf":
            flat.append(leaf(value))
        elif kind == "none":
            if value is not None:
                raise error(f"{where}: expected None")
        elif kind == "dict":
            if not isinstance(value, dict):
                raise error(f"{where}: expected a dict with keys {_dict_keys(spec)}, got {type(value).__name__}")
            mapping = cast(dict[Any, Any], value)
            for key, child in zip(_dict_keys(spec), children):
                if key not in mapping:
                    raise error(f"{where}: missing key {key!r}")
                along(mapping[key], child, f"{where}[{key!r}]")
        else:
            if not isinstance(value, (tuple, list)) or len(cast(Sequence[Any], value)) != len(children):
                raise error(f"{where}: expected a {kind} of {len(children)} values, got {type(value).__name__}")
            for i, (item, child) in enumerate(zip(cast(Sequence[Any], value), children)):
                along(item, child, f"{where}[{i}]")

    for i, (value, child) in enumerate(zip(args, positional)):
        along(value, child, f"argument {i}")
    if kwargs_spec is None and kwargs:
        raise error(f"unexpected keyword arguments {', '.join(kwargs)} (the program takes none: give its {listing} positionally)")
    if kwargs_spec is not None:
        keys = _dict_keys(kwargs_spec)
        unknown = sorted(set(kwargs) - set(keys))
        if unknown:
            raise error(f"unexpected keyword arguments {', '.join(unknown)} (the program takes: {', '.join(keys) or 'none'})")
        for key, child in zip(keys, _children(kwargs_spec)):
            if key not in kwargs:
                raise error(f"missing keyword argument '{key}'")
            along(kwargs[key], child, f"keyword argument '{key}'")
    if len(flat) != wanted:
        raise error(f"the inputs flatten to {len(flat)} values, the program takes {listing}")
    return flat


def unflatten(flat: Sequence[Any], spec_text: str) -> Any:
    """The outputs in the structure `spec_text` records; flat as they are if it cannot be read."""
    spec = load_spec(spec_text)
    if spec is None:
        return list(flat)
    values = iter(flat)
    count = [0]

    def build(node: dict[str, Any]) -> Any:
        kind = _kind(node)
        if kind == "leaf":
            count[0] += 1
            return next(values)
        if kind == "none":
            return None
        items = [build(child) for child in _children(node)]
        if kind == "dict":
            return dict(zip(_dict_keys(node), items))
        return items if kind == "list" else tuple(items)

    try:
        result = build(spec)
    except StopIteration:
        return list(flat)
    return result if count[0] == len(flat) else list(flat)


def prepare_unflatten(spec_text: str, count: int) -> Callable[[Sequence[Any]], Any]:
    """
    `unflatten` along `spec_text` for `count` flat outputs, decided once, for a call
    path that must not read the spec's JSON at each call: where the structure is the
    flat outputs themselves, a tuple or a list of them, or the only one, that (found
    by unflattening stand-ins, so `unflatten` stays the one reading of a spec);
    `unflatten` itself otherwise.
    """
    stand_ins = [object() for _ in range(count)]
    probe = unflatten(stand_ins, spec_text)
    if type(probe) is tuple and list(probe) == stand_ins:
        return tuple
    if type(probe) is list and probe == stand_ins:
        return list
    if count == 1 and probe is stand_ins[0]:
        return _only
    return lambda flat: unflatten(flat, spec_text)


def _only(flat: Sequence[Any]) -> Any:
    return flat[0]
