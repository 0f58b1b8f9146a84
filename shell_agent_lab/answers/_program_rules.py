"""The allowlists and denylists a short analysis program is held to, shared by the static check
(:mod:`.program_check`) and the runtime guards (:mod:`._program_guards`), so both layers refuse
the same things for the same reasons.
"""
from __future__ import annotations

import ast
import string

__all__ = [
    "ALLOWED_BUILTINS", "ALLOWED_EXCEPTIONS", "FORBIDDEN_BUILTINS", "FORBIDDEN_ATTRIBUTES",
    "TEXT_WRITERS", "CONVERTERS", "MUTATING_METHODS", "DISPATCH_METHODS", "PATH_KEYWORDS",
    "NUMPY_RANDOM_ALLOWED", "SEQUENCE_CAP", "RANGE_CAP", "POWER_BITS_CAP",
    "module_allowed", "attribute_refusal", "STDLIB_MODULES", "at_line", "show",
    "format_reads_fields",
]

#: standard-library modules a program may import: pure computation, no I/O, no global state a
#: program could change for the notebook (``random`` is left out for its shared generator:
#: ``numpy.random.default_rng(seed)`` gives a private one; ``itertools`` for its endless
#: iterators, which run inside C where the time limit cannot stop them; ``decimal`` for its
#: thread-wide context; ``string`` for ``Formatter.get_field``, which reads attributes by name)
STDLIB_MODULES = frozenset({"math", "statistics", "datetime", "re", "collections", "functools",
                            "fractions"})

_NUMPY_SUBMODULES = frozenset({"linalg", "random", "fft", "ma", "polynomial", "char", "strings",
                               "emath", "dtypes", "exceptions", "typing"})
_SCIPY_SUBMODULES = frozenset({"stats", "special", "optimize", "interpolate", "linalg",
                               "signal", "integrate", "spatial", "cluster", "fft", "ndimage",
                               "sparse", "constants", "odr", "differentiate", "fftpack"})
_PANDAS_SUBMODULES = frozenset({"api", "api.types", "api.typing", "api.indexers", "tseries",
                                "tseries.offsets", "tseries.frequencies", "errors", "arrays"})


def module_allowed(name: str) -> bool:
    """Whether ``name`` (a dotted module name) may be imported or reached by a program."""
    if any(part.startswith("_") for part in name.split(".")):
        return False
    top, _, rest = name.partition(".")
    if top in STDLIB_MODULES:
        return not rest
    if top in {"pandas", "numpy", "scipy"} and not rest:
        return True
    if top == "pandas":
        return rest in _PANDAS_SUBMODULES
    if top == "numpy":
        return rest.split(".")[0] in _NUMPY_SUBMODULES or rest == "lib.scimath"
    if top == "scipy":
        return rest.split(".")[0] in _SCIPY_SUBMODULES
    return False


#: exception classes a program may name (in ``except`` or ``raise``); never ``BaseException``,
#: ``KeyboardInterrupt`` or ``SystemExit``, so the time limit cannot be caught
ALLOWED_EXCEPTIONS = frozenset({
    "Exception", "ArithmeticError", "AssertionError", "AttributeError", "IndexError",
    "KeyError", "LookupError", "NotImplementedError", "OverflowError", "RuntimeError",
    "StopIteration", "TypeError", "ValueError", "ZeroDivisionError", "FloatingPointError",
})

#: builtins a program may use: values, containers, iteration and arithmetic
ALLOWED_BUILTINS = frozenset({
    "print", "len", "round", "sum", "min", "max", "abs", "sorted", "reversed", "list", "dict",
    "set", "frozenset", "tuple", "str", "int", "float", "bool", "complex", "range",
    "enumerate", "zip", "map", "filter", "any", "all", "isinstance", "divmod", "pow", "repr",
    "format", "chr", "ord", "hex", "bin", "oct", "slice", "next", "callable", "hash", "type",
    "True", "False", "None", "Ellipsis", "NotImplemented",
}) | ALLOWED_EXCEPTIONS

#: builtins named in refusals with the reason, so the model is told why rather than "unknown"
FORBIDDEN_BUILTINS = {
    "open": "file access is not allowed",
    "eval": "running code from a string is not allowed",
    "exec": "running code from a string is not allowed",
    "compile": "running code from a string is not allowed",
    "__import__": "use an `import` statement for pandas, numpy, scipy or math",
    "getattr": "use `obj.name` with a literal name",
    "setattr": "programs may not change attributes by name",
    "delattr": "programs may not change attributes by name",
    "hasattr": "use `obj.name` with a literal name",
    "globals": "the program's namespace is not available",
    "locals": "the program's namespace is not available",
    "vars": "the program's namespace is not available",
    "dir": "list columns with `df.columns` instead",
    "input": "there is no one to answer `input()`",
    "breakpoint": "debugging is not available",
    "help": "help is not available",
    "memoryview": "raw memory access is not allowed",
    "bytes": "binary buffers are not needed for analysis",
    "bytearray": "binary buffers are not needed for analysis",
    "iter": "loop over the object directly",
    "object": "class tricks are not allowed",
    "super": "classes are not allowed",
    "classmethod": "classes are not allowed",
    "staticmethod": "classes are not allowed",
    "property": "classes are not allowed",
    "id": "object identities are not needed",
    "exit": "the program ends at its last line",
    "quit": "the program ends at its last line",
    "BaseException": "catch `Exception` or a specific error instead",
    "KeyboardInterrupt": "the time limit cannot be caught",
    "SystemExit": "the program ends at its last line",
    "GeneratorExit": "generators are not needed",
}

#: ``to_*`` methods that return text when called without a path or buffer: allowed only so
TEXT_WRITERS = frozenset({"to_csv", "to_json", "to_string", "to_markdown", "to_html",
                          "to_latex"})
#: ``to_*`` methods that convert in memory and never write
CONVERTERS = frozenset({
    "to_dict", "to_list", "to_numpy", "to_frame", "to_records", "to_period", "to_timestamp",
    "to_datetime", "to_numeric", "to_timedelta", "to_pydatetime", "to_pytimedelta",
    "to_series", "to_flat_index", "to_julian_date", "to_offset", "to_tuples",
    "to_datetime64", "to_numpy_dtype", "to_coo", "to_dense",
})
#: keyword arguments through which a text writer would write a file or buffer
PATH_KEYWORDS = frozenset({"path_or_buf", "buf", "path", "excel_writer", "con", "fname",
                           "file", "filename"})

#: methods that change their receiver: refused on the given frames, modules and what is taken
#: from them (the program may use them on objects it built)
MUTATING_METHODS = frozenset({
    "update", "insert", "pop", "popitem", "clear", "setdefault", "append", "extend", "remove",
    "discard", "sort", "reverse", "fill", "put", "resize", "itemset", "appendleft",
    "extendleft", "rotate",
})

#: methods that call a function named by a string (``df.agg('mean')`` looks ``mean`` up with
#: ``getattr``): their arguments must be literal names, functions or lambdas
DISPATCH_METHODS = frozenset({"agg", "aggregate", "apply", "transform"})

#: the only ``numpy.random`` names a program may use: private generators, never the shared one
NUMPY_RANDOM_ALLOWED = frozenset({"default_rng", "Generator", "PCG64", "PCG64DXSM", "Philox",
                                  "SFC64", "MT19937", "SeedSequence", "BitGenerator"})

#: the longest ``range`` and the longest list, string or tuple a ``*`` may build
RANGE_CAP = 10_000_000
SEQUENCE_CAP = 10_000_000
#: the largest integer (in bits) ``**`` and ``<<`` may build
POWER_BITS_CAP = 100_000

_IO_NAMES = {
    # numpy and pandas file access
    "save": "files", "savez": "files", "savez_compressed": "files", "savetxt": "files",
    "load": "files", "loadtxt": "files", "genfromtxt": "files", "fromfile": "files",
    "tofile": "files", "memmap": "files", "open_memmap": "files", "fromregex": "files",
    "DataSource": "files", "dump": "files", "dumps": "files", "ExcelWriter": "files",
    "ExcelFile": "files", "HDFStore": "files", "savefig": "files", "show_versions": "files",
    "read_excel": "files", "ctypeslib": "raw memory", "ctypes": "raw memory",
    "as_strided": "raw memory", "setflags": "raw memory", "LowLevelCallable": "raw memory",
    "flags": "raw memory", "base": "raw memory", "save_npz": "files", "load_npz": "files",
    "f2py": "compilers", "distutils": "compilers", "testing": "test helpers",
    "datasets": "downloads", "show_config": "printing configuration",
    "info": "output outside the program's (use `df.dtypes` or `len(df)`)",
    "show_runtime": "output outside the program's",
    "lookfor": "printing documentation",
    "source": "printing documentation", "add_docstring": "changing numpy",
    "add_newdoc": "changing numpy",
}
_CODE_FROM_TEXT = {"query", "eval"}
_GLOBAL_STATE = {
    "options", "set_option", "reset_option", "option_context", "describe_option",
    "set_eng_float_format", "set_printoptions", "printoptions", "seterr", "seterrcall",
    "errstate", "setbufsize", "seed", "set_state", "register_dataframe_accessor",
    "register_series_accessor", "register_index_accessor", "register_extension_dtype",
    "register_matplotlib_converters", "deregister_matplotlib_converters",
    "set_global_backend", "set_backend", "register_backend", "set_workers",
}
_FRAME_ACCESS = {
    "gi_frame", "gi_code", "gi_yieldfrom", "gi_suspended", "cr_frame", "cr_code", "cr_await",
    "ag_frame", "ag_code", "f_back", "f_globals", "f_locals", "f_builtins", "f_code",
    "tb_frame", "tb_next", "func_globals", "func_code", "mro", "with_traceback",
}
_PLOTTING = {"plot", "hist", "boxplot", "style", "plotting", "scatter_matrix"}
_DANGEROUS_MODULES = {
    "os", "sys", "subprocess", "socket", "shutil", "pathlib", "io", "builtins", "importlib",
    "pickle", "marshal", "tempfile", "glob", "urllib", "http", "threading", "multiprocessing",
    "signal", "gc", "inspect", "types", "code", "codeop", "runpy", "platform", "sysconfig",
    "site", "mmap", "posix", "nt", "resource", "zipfile", "tarfile", "gzip", "bz2", "lzma",
    "sqlite3", "warnings", "weakref", "linecache", "traceback", "core", "compat", "util",
    "lib", "config", "internals", "computation", "npyio", "format_parser",
}

#: attribute names refused whatever the object: the reason is the sentence the model reads
FORBIDDEN_ATTRIBUTES: dict[str, str] = {}
FORBIDDEN_ATTRIBUTES.update({name: f"it reaches {what}" for name, what in _IO_NAMES.items()})
FORBIDDEN_ATTRIBUTES.update({name: "it runs code written as a string; filter with boolean "
                             "masks (`df[df['a'] > 1]`) and compute with columns instead"
                             for name in _CODE_FROM_TEXT})
FORBIDDEN_ATTRIBUTES.update({name: "it changes settings shared with the notebook"
                             for name in _GLOBAL_STATE})
FORBIDDEN_ATTRIBUTES.update({name: "it reaches the interpreter's internals"
                             for name in _FRAME_ACCESS})
FORBIDDEN_ATTRIBUTES["format_map"] = "it reads attributes named in text; use an f-string"
FORBIDDEN_ATTRIBUTES.update({name: "answers are text: print the numbers instead"
                             for name in _PLOTTING})
FORBIDDEN_ATTRIBUTES.update({name: "it reaches a module that is not allowed"
                             for name in _DANGEROUS_MODULES})


def attribute_refusal(name: str) -> str | None:
    """Why the attribute ``name`` may not be used at all (``None`` when it may, perhaps with
    conditions the caller checks: text writers only without a path)."""
    if name.startswith("_"):
        return "names starting with `_` reach internals"
    if name in FORBIDDEN_ATTRIBUTES:
        return FORBIDDEN_ATTRIBUTES[name]
    if name.startswith("read_"):
        return "programs read only the frames they are given"
    if name.startswith("to_") and name not in TEXT_WRITERS and name not in CONVERTERS:
        return "programs may not write files; print the result instead"
    return None


def at_line(node: ast.AST, text: str) -> str:
    """``text`` prefixed with the line of ``node``."""
    return f"line {getattr(node, 'lineno', 1)}: {text}"


def show(node: ast.AST, limit: int = 40) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # unparse is total on parsed trees; this is only a safety net
        return "this expression"
    return text if len(text) <= limit else text[:limit - 1] + "…"


def format_reads_fields(template: str) -> bool:
    """Whether a ``str.format`` template reads attributes or items of its arguments
    (``{0.__class__}``, ``{0[key]}``, also nested in a format spec), which would reach past
    every attribute rule; a template that cannot be parsed counts as reading."""
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError:
        return True
    for _, field, spec, _ in parts:
        if field is not None and ("." in field or "[" in field):
            return True
        if spec and "{" in spec and format_reads_fields(spec):
            return True
    return False
