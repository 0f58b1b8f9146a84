"""The static check of a short pandas program the model writes, before it runs unapproved.

:func:`check_program` parses the program and returns the problems, each one sentence naming the
line and what to do instead; an empty list means the program may run (through
:func:`~shell_agent_lab.answers.program_run.run_program`, which guards the same rules again at
run time). The rules are allowlists wherever the language allows:

* **Imports**: pandas, numpy and scipy (the analysis submodules: ``scipy.stats``,
  ``numpy.linalg``, ``numpy.random``…; never ``pandas.io``, ``numpy.lib``, ``scipy.io`` or a
  private module), and the computing part of the standard library: ``math``, ``statistics``,
  ``datetime``, ``re``, ``collections``, ``functools``, ``fractions``. Left out on purpose:
  ``random`` (its generator is shared with the notebook; a program seeds its own with
  ``numpy.random.default_rng``), ``itertools`` (``count``, ``cycle`` and ``repeat`` never end
  and run inside C, where no time limit reaches), ``decimal`` (its context is shared by the
  thread), ``string`` (``Formatter.get_field`` reads attributes named in text), and
  everything that touches files, processes, the network or the interpreter.
* **Names**: the program's own names, the frames it is given, and an allowlist of builtins
  (values, containers, iteration, arithmetic, ``print``). ``open``, ``eval``, ``exec``,
  ``getattr``, ``globals``, ``vars``, ``type`` with three arguments… are refused with the
  reason. No name or attribute may start with ``__``, and no attribute with ``_``.
* **Attributes** that read or write files, run code from text (``query``, ``eval``), change
  shared settings (``pd.options``, ``np.seterr``, ``np.random.seed``), plot, or reach
  interpreter frames are refused whatever the object. ``to_csv``/``to_json``/``to_string``
  and similar may return text (no path or buffer argument); ``to_dict``, ``to_numpy``…
  convert in memory; every other ``to_*`` writes and is refused. Methods that look a function
  up by name (``agg``, ``apply``, ``transform``, and any ``aggfunc=``/``func=``) take only
  literal names, functions and lambdas, so ``df.agg('to_pickle', path)`` or a name built from
  pieces cannot reach a refused method. ``pipe`` takes any function the program can name:
  everything it can name has passed these rules.
* **Writes**: the given frames, modules, builtins and whatever is taken from them (columns,
  ``.loc``, ``.attrs``, ``.index``, a name bound to one) may not be assigned into, deleted
  from, augmented in place or changed by a mutating method (``update``, ``insert``, ``pop``,
  ``append``…). Rebinding the name to something the program built ends that:
  ``df = df.copy()`` or ``df = df.assign(...)`` then ``df['x'] = …`` is allowed, because the
  rule follows the program's control flow (a branch that might leave the original bound keeps
  it protected). Function parameters are treated as given (a helper copies first). This is a
  first line with a clear message; at run time the frames are copy-on-write copies, so a write
  the check cannot see still leaves the user's frame alone. ``inplace=`` is refused anywhere.
* **Statements**: no classes, ``global``/``nonlocal``, ``with``, ``yield``, ``async`` or
  ``match``; ``except`` must name exception classes from an allowlist (never bare, never
  ``BaseException``), so the time limit cannot be caught. Loops are allowed: the runner's time
  limit stops them.
* **Size**: at most :data:`MAX_SOURCE_CHARS` characters and :data:`MAX_NODES` syntax nodes;
  constant expressions that would build huge values (``10**10**10``, ``'x' * 10**10``,
  ``range(10**12)``, ``np.zeros(10**11)``) are refused before they can stall the kernel in C.
"""
from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

from ._program_rules import (
    ALLOWED_BUILTINS, ALLOWED_EXCEPTIONS, DISPATCH_METHODS, FORBIDDEN_BUILTINS,
    NUMPY_RANDOM_ALLOWED, PATH_KEYWORDS, POWER_BITS_CAP, RANGE_CAP, SEQUENCE_CAP, TEXT_WRITERS,
    at_line, attribute_refusal, format_reads_fields, module_allowed, show,
)
from ._program_writes import find_writes

__all__ = ["check_program", "bound_names", "MAX_SOURCE_CHARS", "MAX_NODES"]

MAX_SOURCE_CHARS = 6_000
MAX_NODES = 3_000
_MAX_PROBLEMS = 8
_ARRAY_CAP = 100_000_000
#: the positional arguments that give the size of what a builder makes (keywords: shape,
#: size, periods, num); ``range`` and ``arange`` are measured from start, stop and step
_SIZE_ARGUMENTS: dict[str, tuple[int, ...]] = {
    "zeros": (0,), "ones": (0,), "empty": (0,), "full": (0,), "eye": (0, 1), "identity": (0,),
    "linspace": (2,), "repeat": (1,), "tile": (1,), "random": (0,), "standard_normal": (0,),
    "integers": (2,), "normal": (2,), "uniform": (2,), "choice": (1,), "date_range": (),
    "period_range": (), "timedelta_range": (), "range": (), "arange": (),
}
_SIZE_KEYWORDS = frozenset({"shape", "size", "periods", "num"})
_DISPATCH_KEYWORDS = frozenset({"func", "aggfunc"})
_DISPATCH_SKIP = frozenset({"axis", "args", "raw", "result_type", "engine", "engine_kwargs",
                            "by_row", "include_groups", "na_action", "convert_dtype"})
#: calls that draw from numpy's shared random state unless given a seed or generator
_SEEDED = frozenset({"sample", "rvs", "bootstrap", "permutation_test", "monte_carlo_test",
                     "kmeans", "kmeans2"})
_REFUSED_STATEMENTS: dict[type, str] = {
    ast.ClassDef: "classes are not allowed; use functions",
    ast.With: "`with` is not allowed",
    ast.AsyncWith: "`async` is not allowed",
    ast.AsyncFor: "`async` is not allowed",
    ast.AsyncFunctionDef: "`async` is not allowed",
    ast.Await: "`async` is not allowed",
    ast.Global: "`global` is not allowed; return values from functions",
    ast.Nonlocal: "`nonlocal` is not allowed; return values from functions",
    ast.Yield: "generators are not allowed; build a list",
    ast.YieldFrom: "generators are not allowed; build a list",
    ast.Match: "`match` is not supported; use `if`/`elif`",
}
if hasattr(ast, "TryStar"):
    _REFUSED_STATEMENTS[ast.TryStar] = "`except*` is not supported"


def check_program(source: str, *, given: Collection[str]) -> list[str]:
    """The problems that keep ``source`` from running unapproved (empty when it may run).

    ``given`` names the frames the program receives (e.g. ``{"df"}``); they may be read, never
    changed. Each problem is one sentence starting ``line N:`` when it has a place.
    """
    if len(source) > MAX_SOURCE_CHARS:
        return [f"the program is {len(source):,} characters; keep it under "
                f"{MAX_SOURCE_CHARS:,} (compute only what the question needs)"]
    try:
        tree = ast.parse(source, mode="exec")
    except SyntaxError as exc:
        return [f"line {exc.lineno or 1}: syntax error: {exc.msg}"]
    except (ValueError, MemoryError, RecursionError) as exc:
        return [f"the program cannot be parsed: {exc}"]
    nodes = sum(1 for _ in ast.walk(tree))
    if nodes > MAX_NODES:
        return [f"the program has {nodes:,} syntax nodes; keep it under {MAX_NODES:,}"]
    bindings = _Bindings.collect(tree)
    problems = _FormChecker(set(given), bindings).check(tree)
    problems += find_writes(tree, set(given))
    unique = list(dict.fromkeys(sorted(problems, key=_line_of)))
    if len(unique) > _MAX_PROBLEMS:
        more = len(unique) - _MAX_PROBLEMS
        unique = unique[:_MAX_PROBLEMS] + [f"… and {more} more problem(s) like these"]
    return unique


def _line_of(problem: str) -> int:
    head = problem.split(":", 1)[0]
    return int(head[5:]) if head.startswith("line ") and head[5:].isdigit() else 0


def bound_names(tree: ast.AST) -> set[str]:
    """Every name ``tree`` binds anywhere (assigned, looped over, imported, a parameter, a
    function, caught), as the check reads them."""
    return set(_Bindings.collect(tree).values)


@dataclass
class _Bindings:
    """Every name the program binds anywhere, with what it is bound to (for the names a
    function-by-name method receives) and which names are module aliases."""

    values: dict[str, list[ast.AST | _Iterated | None]] = field(default_factory=dict)
    modules: dict[str, str] = field(default_factory=dict)

    @classmethod
    def collect(cls, tree: ast.AST) -> _Bindings:
        found = cls()
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    found._bind(target, node.value)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                found._bind(node.target, node.value if isinstance(node, ast.AnnAssign)
                            else None)
            elif isinstance(node, ast.NamedExpr):
                found._bind(node.target, node.value)
            elif isinstance(node, (ast.For, ast.comprehension)):
                found._bind(node.target, _Iterated(node.iter))
            elif isinstance(node, ast.FunctionDef):
                found._bind_name(node.name, node)
            elif isinstance(node, ast.arg):
                found._bind_name(node.arg, None)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                found._bind_name(node.name, None)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    name = alias.asname or alias.name.split(".")[0]
                    found._bind_name(name, node)
                    found.modules[name] = alias.name if alias.asname else name
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    name = alias.asname or alias.name
                    found._bind_name(name, node)
                    full = f"{node.module}.{alias.name}"
                    found.modules[name] = full
        return found

    def _bind(self, target: ast.AST, value: ast.AST | _Iterated | None) -> None:
        if isinstance(target, ast.Name):
            self._bind_name(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._bind(element, None)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, None)

    def _bind_name(self, name: str, value: ast.AST | _Iterated | None) -> None:
        self.values.setdefault(name, []).append(value)


@dataclass(frozen=True)
class _Iterated:
    """A name bound by a loop over ``iterable`` (its values are the iterable's elements)."""

    iterable: ast.AST


class _Huge(Exception):
    """A constant expression that would build a value too large to compute safely."""


class _FormChecker:
    """The rules that do not depend on control flow: imports, names, attributes, calls,
    statements and constant sizes."""

    def __init__(self, given: set[str], bindings: _Bindings) -> None:
        self.given = given
        self.bindings = bindings
        self.problems: list[str] = []
        self.called: set[int] = set()

    def check(self, tree: ast.AST) -> list[str]:
        self.called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        for node in ast.walk(tree):
            self._node(node)
        return self.problems

    def _add(self, node: ast.AST, text: str) -> None:
        self.problems.append(at_line(node, text))

    def _node(self, node: ast.AST) -> None:
        refused = _REFUSED_STATEMENTS.get(type(node))
        if refused:
            self._add(node, refused)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self._import(node)
        elif isinstance(node, ast.Name):
            self._name(node)
        elif isinstance(node, ast.Attribute):
            self._attribute(node)
        elif isinstance(node, ast.Call):
            self._call(node)
        elif isinstance(node, ast.ExceptHandler):
            self._handler(node)
        elif isinstance(node, ast.arg) and node.arg.startswith("__"):
            self._add(node, f"the name `{node.arg}` starts with `__`; rename it")
        elif isinstance(node, ast.keyword) and node.arg is None:
            self._add(node.value, "pass keyword arguments by name (`f(a=1)`) instead of `**`")
        elif isinstance(node, ast.keyword) and node.arg == "copy":
            if not (isinstance(node.value, ast.Constant) and node.value.value is True):
                self._add(node.value, "leave out `copy=`: copies are made where they are "
                          "needed, and sharing a frame's storage is not allowed")
        elif isinstance(node, ast.keyword) and node.arg == "inplace":
            if not (isinstance(node.value, ast.Constant) and node.value.value is False):
                self._add(node.value, "`inplace=True` changes an object in place; assign the "
                          "result instead (`d = d.dropna()`)")
        elif isinstance(node, ast.BinOp):
            self._size(node)

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        allowed = ("imports are limited to pandas, numpy, scipy, math, statistics, datetime, "
                   "re, collections, functools, fractions")
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not module_allowed(alias.name):
                    self._add(node, f"{allowed}: remove `import {alias.name}`")
                self._dunder_alias(node, alias)
            return
        module = node.module or ""
        if node.level or not module_allowed(module):
            self._add(node, f"{allowed}: remove `from {'.' * node.level}{module} import …`")
            return
        for alias in node.names:
            self._dunder_alias(node, alias)
            if alias.name == "*":
                self._add(node, f"import names one by one (`from {module} import name`)")
                continue
            full = f"{module}.{alias.name}"
            reason = attribute_refusal(alias.name)
            if reason is None and alias.name in TEXT_WRITERS:
                reason = "call it as a method without a path instead"
            if reason is None and module == "numpy.random" \
                    and alias.name not in NUMPY_RANDOM_ALLOWED:
                reason = _SHARED_RNG
            if reason is None and _refused_submodule(full):
                reason = "that module is not allowed"
            if reason:
                self._add(node, f"`from {module} import {alias.name}` is refused: {reason}")

    def _dunder_alias(self, node: ast.AST, alias: ast.alias) -> None:
        if alias.asname and alias.asname.startswith("__"):
            self._add(node, f"the name `{alias.asname}` starts with `__`; rename it")

    def _name(self, node: ast.Name) -> None:
        name = node.id
        if name.startswith("__"):
            self._add(node, f"`{name}` is not available: names starting with `__` reach the "
                      "interpreter's internals")
            return
        if name in self.given or name in self.bindings.values:
            return
        if isinstance(node.ctx, ast.Load):
            if name in FORBIDDEN_BUILTINS:
                self._add(node, f"`{name}` is not available: {FORBIDDEN_BUILTINS[name]}")
            elif name not in ALLOWED_BUILTINS:
                names = ", ".join(f"`{g}`" for g in sorted(self.given)) or "none"
                self._add(node, f"`{name}` is not defined (given frames: {names}; "
                          "import modules explicitly)")

    def _attribute(self, node: ast.Attribute) -> None:
        name = node.attr
        reason = attribute_refusal(name)
        dotted = self._dotted(node)
        if name == "format":
            self._format(node)
        if name in TEXT_WRITERS and id(node) not in self.called:
            self._add(node, f"`.{name}` may only be called directly (`print(d.{name}())`)")
        if reason:
            column = "" if name.startswith("_") or self._dotted(node.value) is not None \
                or isinstance(node.value, ast.Name) and node.value.id in self.bindings.modules \
                else f" (for a column, write `{show(node.value)}['{name}']`)"
            self._add(node, f"`.{name}` is not allowed: {reason}{column}")
            return
        if dotted and dotted.startswith("numpy.random.") and \
                dotted.count(".") == 2 and name not in NUMPY_RANDOM_ALLOWED:
            self._add(node, f"`{show(node)}` is refused: {_SHARED_RNG}")
        if dotted and _refused_submodule(dotted):
            self._add(node, f"`{show(node)}` is refused: that module is not allowed")

    def _dotted(self, node: ast.AST) -> str | None:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.bindings.modules:
            return None
        if any(v is not None and not isinstance(v, (ast.Import, ast.ImportFrom))
               for v in self.bindings.values.get(node.id, [])):
            return None
        return ".".join([self.bindings.modules[node.id], *reversed(parts)])

    def _call(self, node: ast.Call) -> None:
        func = node.func
        method = func.attr if isinstance(func, ast.Attribute) else None
        if isinstance(func, ast.Name) and func.id == "type" and \
                (len(node.args) != 1 or node.keywords):
            self._add(node, "`type()` takes one argument here (building classes is refused)")
        if method in TEXT_WRITERS:
            if node.args or any(k.arg is None or k.arg in PATH_KEYWORDS
                                for k in node.keywords):
                self._add(node, f"`.{method}()` may only return text here: call it without a "
                          "path or buffer and print the result")
        if method in _SEEDED and not any(
                k.arg in {"random_state", "rng", "seed"}
                and not (isinstance(k.value, ast.Constant) and k.value.value is None)
                for k in node.keywords):
            self._add(node, f"`.{method}()` needs `random_state=0` (or another seed) so the "
                      "notebook's shared random state is left alone")
        if method in DISPATCH_METHODS and node.args:
            self._dispatch(node, method, node.args[0])
        for keyword in node.keywords:
            if keyword.arg in _DISPATCH_KEYWORDS or (
                    method in DISPATCH_METHODS and keyword.arg not in _DISPATCH_SKIP):
                self._dispatch(node, method or keyword.arg or "call", keyword.value)
        self._call_size(node, func)
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) \
                    and _NESTED_REPEAT.search(arg.value):
                self._add(node, f"the pattern `{arg.value[:40]}` nests repeats (like "
                          "`(a+)+`), which can run for ever inside the regular-expression "
                          "engine, out of the time limit's reach: use a single repeat")

    def _format(self, node: ast.Attribute) -> None:
        receiver = node.value
        if not (isinstance(receiver, ast.Constant) and isinstance(receiver.value, str)):
            self._add(node, "`.format` is allowed only on a literal string; use an f-string")
            return
        if format_reads_fields(receiver.value):
            self._add(node, "format fields may not read attributes or items; use an f-string")

    def _dispatch(self, node: ast.Call, method: str, arg: ast.AST) -> None:
        problem = self._dispatch_problem(arg, depth=0)
        if problem:
            self._add(node, f"the function given to `.{method}` {problem}")

    def _dispatch_problem(self, arg: ast.AST | _Iterated | None, depth: int) -> str | None:
        if depth > 6:
            return "is built too indirectly: pass a literal name, a function or a lambda"
        if arg is None:
            return "must be a literal name, a function or a lambda"
        if isinstance(arg, _Iterated):
            return self._dispatch_problem(arg.iterable, depth + 1)
        if isinstance(arg, ast.Constant):
            value = arg.value
            if isinstance(value, str):
                reason = attribute_refusal(value)
                if reason is None and value in TEXT_WRITERS:
                    reason = "it writes"
                if reason:
                    return f"may not name `{value}`: {reason}"
            return None
        if isinstance(arg, (ast.Lambda, ast.FunctionDef, ast.Import, ast.ImportFrom)):
            return None
        if isinstance(arg, ast.Attribute):
            inner: ast.AST = arg
            while isinstance(inner, ast.Attribute):
                inner = inner.value
            return None if isinstance(inner, (ast.Name, ast.Constant)) else \
                "must be a literal name, a function or a lambda"
        if isinstance(arg, ast.Starred):
            return self._dispatch_problem(arg.value, depth + 1)
        if isinstance(arg, (ast.List, ast.Tuple, ast.Set)):
            return _first(self._dispatch_problem(e, depth + 1) for e in arg.elts)
        if isinstance(arg, ast.Dict):
            return _first(self._dispatch_problem(v, depth + 1) for v in arg.values)
        if isinstance(arg, ast.Name):
            if arg.id in self.given or arg.id not in self.bindings.values:
                return None
            return _first(self._dispatch_problem(v, depth + 1)
                          for v in self.bindings.values[arg.id])
        if isinstance(arg, ast.Call):
            callee = arg.func
            last = callee.attr if isinstance(callee, ast.Attribute) else \
                callee.id if isinstance(callee, ast.Name) else ""
            if last in {"NamedAgg", "partial"}:
                return _first([self._dispatch_problem(a, depth + 1) for a in arg.args]
                              + [self._dispatch_problem(k.value, depth + 1)
                                 for k in arg.keywords])
        if isinstance(arg, (ast.DictComp, ast.ListComp)):
            parts = [arg.key, arg.value] if isinstance(arg, ast.DictComp) else [arg.elt]
            if isinstance(arg, ast.DictComp):
                parts = [arg.value]
            return _first(self._dispatch_problem(p, depth + 1) for p in parts)
        return f"must be a literal name, a function or a lambda, not `{show(arg)}`"

    def _handler(self, node: ast.ExceptHandler) -> None:
        if node.type is None:
            self._add(node, "a bare `except:` would swallow the time limit; name the error "
                      "(`except KeyError:`)")
            return
        names = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
        for item in names:
            if not (isinstance(item, ast.Name) and item.id in ALLOWED_EXCEPTIONS):
                self._add(node, f"`except {show(item)}` is refused: catch `Exception` or a "
                          "specific error such as `KeyError` or `ValueError`")

    def _size(self, node: ast.BinOp) -> None:
        try:
            _fold(node)
        except _Huge as exc:
            self._add(node, f"`{show(node)}` {exc}; use smaller numbers")

    def _call_size(self, node: ast.Call, func: ast.AST) -> None:
        name = func.id if isinstance(func, ast.Name) else \
            func.attr if isinstance(func, ast.Attribute) else ""
        if name not in _SIZE_ARGUMENTS:
            return
        cap = RANGE_CAP if name == "range" else _ARRAY_CAP
        try:
            sizes = [_fold(node.args[i]) for i in _SIZE_ARGUMENTS[name] if i < len(node.args)]
            sizes += [_fold(k.value) for k in node.keywords if k.arg in _SIZE_KEYWORDS]
            if name in {"range", "arange"}:
                bounds = [b for b in (_fold(a) for a in node.args) if type(b) is int]
                if bounds and len(bounds) == len(node.args) <= 3:
                    sizes.append(len(range(*bounds)))
        except (_Huge, ValueError, OverflowError):
            sizes = [cap + 1]
        for folded in sizes:
            total = 1
            for size in folded if isinstance(folded, tuple) else (folded,):
                if isinstance(size, int) and not isinstance(size, bool):
                    total *= max(size, 1)
            if total > cap:
                self._add(node, f"`{show(node)}` would build {total:,} items (at most "
                          f"{cap:,}); use smaller numbers")
                return


#: a group that ends in a repeat and is itself repeated: ``(a+)+``, ``(\w*)*``, ``(x+){2,}``
_NESTED_REPEAT = re.compile(r"\((?:[^()\\]|\\.)*(?:[+*]|\{\d*,\d*\})\)(?:[+*]|\{\d*,\d*\})")
_SHARED_RNG = ("it uses the random state shared with the notebook; use "
               "`rng = np.random.default_rng(0)` and `rng.…`")


_REFUSED_SUBMODULES = frozenset({"io", "core", "compat", "util", "lib", "plotting", "testing",
                                 "misc", "datasets", "ctypeslib", "f2py", "distutils",
                                 "matlib", "rec", "conftest", "config", "tslibs"})


def _refused_submodule(dotted: str) -> bool:
    """Whether ``dotted`` (``numpy.lib.npyio``) reaches into a pandas, numpy or scipy
    subpackage that is not for analysis (a best-effort static view; the runner checks every
    module a program actually reaches)."""
    top, _, rest = dotted.partition(".")
    return top in {"pandas", "numpy", "scipy"} and rest.split(".")[0] in _REFUSED_SUBMODULES


def _first(items: Iterator[str | None] | list[str | None]) -> str | None:
    for item in items:
        if item:
            return item
    return None


def _fold(node: ast.AST) -> object:
    """The value of a constant expression, refusing (``_Huge``) one too large to build; None
    when the expression is not constant."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        items = tuple(_fold(e) for e in node.elts)
        return items if isinstance(node, ast.Tuple) else list(items)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _fold(node.operand)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value if isinstance(node.op, ast.USub) else value
        return None
    if not isinstance(node, ast.BinOp):
        return None
    left, right = _fold(node.left), _fold(node.right)
    if left is None or right is None:
        return None
    try:
        return _binop(node.op, left, right)
    except (ArithmeticError, TypeError, ValueError):
        return None


def _binop(op: ast.operator, left: object, right: object) -> object:
    ints = isinstance(left, int) and isinstance(right, int)
    if isinstance(op, ast.Pow):
        if ints and isinstance(left, int) and isinstance(right, int) and right > 0 \
                and abs(left) > 1 and right * left.bit_length() > POWER_BITS_CAP:
            raise _Huge(f"would build a number of about {right * left.bit_length():,} bits")
        return left ** right  # type: ignore[operator]
    if isinstance(op, ast.LShift):
        if ints and isinstance(right, int) and right > POWER_BITS_CAP:
            raise _Huge(f"would build a number of {right:,} bits")
        return left << right  # type: ignore[operator]
    if isinstance(op, ast.Mult):
        for seq, count in ((left, right), (right, left)):
            if isinstance(seq, (str, bytes, list, tuple)) and isinstance(count, int):
                if len(seq) * count > SEQUENCE_CAP:
                    raise _Huge(f"would build {len(seq) * count:,} items (at most "
                                f"{SEQUENCE_CAP:,})")
                return None  # the size is what matters; do not build it
        if ints and isinstance(left, int) and isinstance(right, int) and \
                left.bit_length() + right.bit_length() > POWER_BITS_CAP:
            raise _Huge("would build a number too large to compute")
        return left * right  # type: ignore[operator]
    operators = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
                 ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
                 ast.Div: lambda a, b: a / b}
    for kind, apply in operators.items():
        if isinstance(op, kind):
            if isinstance(left, (list, tuple, str)) or isinstance(right, (list, tuple, str)):
                return None
            return apply(left, right)
    return None
