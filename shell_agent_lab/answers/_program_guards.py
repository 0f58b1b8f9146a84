"""The run-time half of the program rules: the builtins a checked program sees, the guarded
``__import__``, and the guards the runner's rewrite puts around attribute reads, writes and the
operators that can build huge values. Each refusal raises :class:`Blocked`, which a program's
``except Exception`` cannot catch, so the run ends with the reason.

These guards are defence in depth: :func:`~.program_check.check_program` refuses the same
things before anything runs; the guards hold even for what the static view cannot see (a value
laundered through a container, a module reached through a library attribute).
"""
from __future__ import annotations

import ast
import builtins
import dis
import sys
import threading
import types
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray

from ._program_outcome import Capture
from ._program_rules import (
    ALLOWED_BUILTINS, FORBIDDEN_BUILTINS, MUTATING_METHODS, PATH_KEYWORDS, POWER_BITS_CAP,
    RANGE_CAP, SEQUENCE_CAP, TEXT_WRITERS, attribute_refusal, format_reads_fields,
    module_allowed,
)

__all__ = ["Blocked", "Capture", "make_builtins", "guard_names", "rewrite"]


_ATTR, _TARGET, _BINOP = "__sal_attr__", "__sal_target__", "__sal_binop__"

#: modules whose functions a program must never hold, whichever public attribute leads there
_UNSAFE_FUNCTION_MODULES = frozenset({
    "os", "posix", "nt", "subprocess", "socket", "_socket", "shutil", "io", "_io", "pickle",
    "_pickle", "marshal", "ctypes", "_ctypes", "importlib", "sys", "pathlib", "tempfile",
    "urllib", "http", "shelve", "builtins", "inspect", "gc", "signal", "threading", "_thread",
    "multiprocessing", "runpy", "code", "codecs", "mmap", "glob", "sqlite3", "zipfile",
})
_UNSAFE_BUILTINS = frozenset(id(getattr(builtins, name)) for name in FORBIDDEN_BUILTINS
                             if hasattr(builtins, name))
_INTERNAL_TYPES = (types.FrameType, types.TracebackType, types.CodeType)


class Blocked(BaseException):
    """A guard refused an operation at run time.

    A ``BaseException`` on purpose (like the runner's time limit): the program's own
    ``except Exception`` must not swallow it and carry on. It never leaves the runner.
    """


def _refuse(text: str) -> Blocked:
    return Blocked(text)


def _global_random_state() -> object:
    try:
        import numpy as np
    except ImportError:  # numpy is a dependency; only a broken install lands here
        return object()
    return getattr(np.random.random, "__self__", object())


_GLOBAL_RNG: list[object] = []


def guarded_attr(obj: object, name: str, shared: frozenset[int] = frozenset()) -> Any:
    """``obj.name`` for a program: refused names, modules outside the allowlist, interpreter
    internals, unsafe functions, the shared random generator's methods and the mutating
    methods of objects a module holds (``shared``) are blocked."""
    reason = attribute_refusal(name)
    if reason:
        raise _refuse(f"`.{name}` is not allowed: {reason}")
    if name in _MUTATORS and id(obj) in shared:
        raise _refuse(f"`.{name}()` would change an object that belongs to a module")
    if name == "format" and (obj is str or isinstance(obj, str) and format_reads_fields(obj)):
        raise _refuse("format fields may not read attributes or items; use an f-string")
    value = getattr(obj, name)
    _check_value(value, name)
    if name in TEXT_WRITERS and callable(value):
        return _text_only(value, name)
    return _unshared(obj, value)


def _unshared(obj: object, value: Any) -> Any:
    """``value`` without a way to write into data it shares with a given frame.

    Copy-on-Write protects frames and Series, not what they hand out raw: an extension array
    (``s.array``, ``.values`` of a nullable, categorical or tz-aware column) is the column's
    own storage, so the program gets a copy; a writable NumPy view taken from any pandas
    object (a Series, an accessor such as ``.sparse``) is handed out read-only (the program can
    ``.copy()`` it to write)."""
    if isinstance(value, ExtensionArray):
        return value.copy()
    if isinstance(value, np.ndarray) and value.flags.writeable \
            and (type(obj).__module__ or "").startswith("pandas"):
        view = value.view()
        view.flags.writeable = False
        return view
    if value is pd.array:
        return _copying_array
    if isinstance(value, types.ModuleType) and value.__name__ == "math":
        return _MATH
    return value


def _copying_array(data: Any, dtype: Any = None, copy: bool = True) -> Any:
    """``pd.array`` that always copies (``copy=False`` would hand out a column's storage)."""
    return pd.array(data, dtype=dtype, copy=True)


def _check_value(value: object, name: str) -> None:
    if isinstance(value, types.ModuleType):
        if not module_allowed(value.__name__):
            raise _refuse(f"`.{name}` reaches the module `{value.__name__}`, which is not "
                          "allowed")
        return
    if isinstance(value, _INTERNAL_TYPES):
        raise _refuse(f"`.{name}` reaches the interpreter's internals")
    if callable(value):
        if id(value) in _UNSAFE_BUILTINS:
            raise _refuse(f"`.{name}` is a builtin that is not allowed")
        module = getattr(value, "__module__", None)
        if isinstance(module, str) and module.split(".")[0] in _UNSAFE_FUNCTION_MODULES \
                and not (isinstance(value, type) and module == "builtins"):
            raise _refuse(f"`.{name}` comes from `{module}`, which is not allowed")
        if not _GLOBAL_RNG:
            _GLOBAL_RNG.append(_global_random_state())
        if getattr(value, "__self__", None) is _GLOBAL_RNG[0]:
            raise _refuse(f"`.{name}` uses the random state shared with the notebook; use "
                          "`np.random.default_rng(0)`")


def _text_only(method: Callable[..., Any], name: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        if args or PATH_KEYWORDS.intersection(kwargs):
            raise _refuse(f"`.{name}()` may only return text: call it without a path")
        return method(**kwargs)
    return call


def guarded_target(obj: object, shared: frozenset[int] = frozenset()) -> object:
    """The object an assignment or ``del`` writes into, refused when it is shared with the
    notebook: a module, a class, a function, pandas' options, or an object a module holds
    (``shared``: ids from :func:`module_objects`)."""
    if isinstance(obj, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType,
                        types.MethodType)):
        raise _refuse("programs may not change modules, classes or functions")
    kind = type(obj).__module__ or ""
    if kind.startswith(("pandas._config", "numpy._core._ufunc_config")):
        raise _refuse("programs may not change shared settings")
    if id(obj) in shared:
        raise _refuse("programs may not change objects that belong to a module")
    return obj


_IMMUTABLE = (int, float, complex, str, bytes, tuple, frozenset, bool, type(None),
              types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)
_MODULE_OBJECTS: dict[tuple[str, ...], frozenset[int]] = {}
#: methods that change a container or array in place, refused on objects a module holds
_MUTATORS = MUTATING_METHODS | {"add", "partition", "setfield", "byteswap", "__setitem__"}


def module_objects() -> frozenset[int]:
    """The ids of the mutable objects the loaded allowed modules hold at their top level
    (``scipy.stats.norm``, ``numpy.sctypeDict``, ``scipy.constants.physical_constants``…):
    a program may read them, never change them, however it came to hold them. Cached per set
    of loaded modules (module-level objects live as long as their module)."""
    loaded = tuple(sorted(name for name, module in list(sys.modules.items())
                          if module is not None and module_allowed(name)))
    found = _MODULE_OBJECTS.get(loaded)
    if found is None:
        ids: set[int] = set()
        for name in loaded:
            for attr, value in list(vars(sys.modules[name]).items()):
                if not attr.startswith("_") and not isinstance(value, _IMMUTABLE):
                    ids.add(id(value))
        found = frozenset(ids)
        _MODULE_OBJECTS.clear()
        _MODULE_OBJECTS[loaded] = found
    return found


def guarded_binop(op: str, left: Any, right: Any) -> Any:
    """``left * right``, ``left ** right`` or ``left << right``, refusing Python values too
    large to build (a C loop the time limit could not stop, or memory for nothing)."""
    if op == "*":
        for seq, count in ((left, right), (right, left)):
            if isinstance(seq, (str, bytes, list, tuple)) and isinstance(count, int) \
                    and len(seq) * count > SEQUENCE_CAP:
                raise _refuse(f"`*` would build {len(seq) * count:,} items (at most "
                              f"{SEQUENCE_CAP:,})")
        if type(left) is int and type(right) is int \
                and left.bit_length() + right.bit_length() > POWER_BITS_CAP:
            raise _refuse("`*` would build a number too large to compute")
        return left * right
    if op == "**":
        _check_power(left, right)
        return left ** right
    if type(left) is int and type(right) is int and right > POWER_BITS_CAP:
        raise _refuse("`<<` would build a number too large to compute")
    return left << right


def _check_power(base: Any, exponent: Any) -> None:
    if type(base) in (int, bool) and type(exponent) is int and exponent > 0 \
            and abs(base) > 1 and exponent * int(base).bit_length() > POWER_BITS_CAP:
        raise _refuse("`**` would build a number too large to compute")


_EXACT_CAP = 20_000


def _bounded(function: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        if any(isinstance(a, int) and a > _EXACT_CAP for a in args):
            raise _refuse(f"`math.{function.__name__}` of a number over {_EXACT_CAP:,} would "
                          "run for minutes inside C; use `scipy.special.gammaln` for sizes")
        return function(*args)
    return call


def _make_math() -> types.ModuleType:
    """``math`` with ``factorial``, ``comb`` and ``perm`` capped: exact big-number work runs
    inside C, where the time limit cannot stop it."""
    import math
    module = types.ModuleType("math", math.__doc__)
    module.__dict__.update({k: v for k, v in vars(math).items() if not k.startswith("__")})
    for name in ("factorial", "comb", "perm"):
        setattr(module, name, _bounded(getattr(math, name)))
    return module


_MATH = _make_math()


_IMPORT_NAME = dis.opmap["IMPORT_NAME"]


def _library_import(name: str, level: int) -> Any:
    """The module a compiled library function imports while the program calls it (pandas'
    ``Timestamp.strftime`` imports ``time``: code without a frame of its own finds the program's
    ``__import__``), or None when this is the program's own ``import`` statement. Only a module
    already loaded is handed over: nothing new runs, and the library, not the program, gets it."""
    try:
        caller = sys._getframe(2)
        own = caller.f_code.co_code[caller.f_lasti] == _IMPORT_NAME
    except (ValueError, IndexError):
        return None
    if own or level:
        return None
    return sys.modules.get(name)


def _guarded_import(name: str, globals: Any = None, locals: Any = None,
                    fromlist: Any = (), level: int = 0) -> Any:
    loaded = _library_import(name, level)
    if loaded is not None:
        return loaded if fromlist else sys.modules.get(name.partition(".")[0], loaded)
    if level or not module_allowed(name):
        raise _refuse(f"importing `{name}` is not allowed")
    for item in fromlist or ():
        if not isinstance(item, str) or item == "*" or attribute_refusal(item):
            raise _refuse(f"importing `{item}` from `{name}` is not allowed")
    module = builtins.__import__(name, None, None, fromlist, 0)
    if name == "math":
        return _MATH
    if not fromlist:
        return module
    # `from m import a, b` reads a and b from what this returns: hand over only those, each
    # through the same checks and substitutions as an attribute read
    chosen = types.ModuleType(module.__name__)
    for item in fromlist:
        if hasattr(module, item):
            value = getattr(module, item)
            _check_value(value, item)
            setattr(chosen, item, _unshared(module, value))
    return chosen


def make_builtins(capture: Capture) -> dict[str, Any]:
    """The builtins a program sees: the allowlist, with ``print`` bound to ``capture`` and
    capped ``range``, ``pow`` and one-argument ``type``."""
    lock = threading.Lock()

    def program_print(*args: Any, sep: str | None = " ", end: str | None = "\n",
                      file: Any = None, flush: bool = False) -> None:
        if file is not None:
            raise _refuse("`print` writes only to the program's output; leave out `file=`")
        text = (" " if sep is None else str(sep)).join(str(a) for a in args)
        with lock:
            capture.write(text + ("\n" if end is None else str(end)))

    def program_range(*args: int) -> range:
        span = range(*args)
        try:
            length = len(span)
        except OverflowError:
            length = RANGE_CAP + 1
        if length > RANGE_CAP:
            raise _refuse(f"`range` of {length:,} numbers is too long (at most {RANGE_CAP:,})")
        return span

    def program_pow(base: Any, exponent: Any, mod: Any = None) -> Any:
        if mod is None:
            _check_power(base, exponent)
            return pow(base, exponent)
        return pow(base, exponent, mod)

    def program_type(obj: Any) -> type:
        return type(obj)

    table: dict[str, Any] = {name: getattr(builtins, name) for name in ALLOWED_BUILTINS
                             if hasattr(builtins, name)}
    table.update(print=program_print, range=program_range, pow=program_pow,
                 type=program_type, __import__=_guarded_import)
    return table


def guard_names() -> dict[str, Any]:
    """The guard functions the rewritten program calls, under names it cannot spell itself
    (call it after the program's modules are loaded: it takes stock of their objects)."""
    shared = module_objects()

    def attr(obj: object, name: str) -> Any:
        return guarded_attr(obj, name, shared)

    def target(obj: object) -> object:
        return guarded_target(obj, shared)

    return {_ATTR: attr, _TARGET: target, _BINOP: guarded_binop}


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])


class _Rewrite(ast.NodeTransformer):
    """Routes attribute reads through ``guarded_attr``, the objects of attribute and item
    writes through ``guarded_target``, and ``*``, ``**``, ``<<`` through ``guarded_binop``."""

    _OPS = {ast.Mult: "*", ast.Pow: "**", ast.LShift: "<<"}

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load):
            return ast.copy_location(_call(_ATTR, node.value, ast.Constant(node.attr)), node)
        node.value = ast.copy_location(_call(_TARGET, node.value), node.value)
        return node

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            node.value = ast.copy_location(_call(_TARGET, node.value), node.value)
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        symbol = self._OPS.get(type(node.op))
        if symbol is None:
            return node
        return ast.copy_location(_call(_BINOP, ast.Constant(symbol), node.left, node.right),
                                 node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        symbol = self._OPS.get(type(node.op))
        if symbol is None or not isinstance(node.target, ast.Name):
            return node
        name = node.target.id
        value = _call(_BINOP, ast.Constant(symbol), ast.Name(id=name, ctx=ast.Load()),
                      node.value)
        return ast.copy_location(
            ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value), node)


def rewrite(tree: ast.Module) -> ast.Module:
    """``tree`` with the guards in place (the tree is changed and returned)."""
    return ast.fix_missing_locations(_Rewrite().visit(tree))

