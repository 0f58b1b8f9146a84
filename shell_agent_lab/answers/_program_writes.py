"""The write rules of the program check: the given frames, modules, classes and builtins, and
whatever is taken from them, may not be assigned into, deleted from, augmented in place or
changed by a mutating method. The check follows the program's control flow, so rebinding a
name to an object the program built (``df = df.copy()``) ends the protection from that point,
while a branch that may leave the original bound keeps it. Function parameters and names from
outside a function count as given (a helper copies first)."""
from __future__ import annotations

import ast
from dataclasses import dataclass

from ._program_rules import MUTATING_METHODS, at_line, show

__all__ = ["find_writes", "frames_written"]

_PASS_THROUGH_BUILTINS = frozenset({"next", "max", "min"})
_PASS_THROUGH_METHODS = frozenset({"get", "pop", "setdefault", "pipe", "squeeze", "item",
                                   "popitem"})
#: more methods that change their receiver, refused on modules and what is taken from them
#: (on frames they are pandas methods that return a new object: ``df.add(1)``)
_SHARED_MUTATORS = MUTATING_METHODS | {"add", "partition", "setfield", "byteswap"}


@dataclass(frozen=True)
class _Kind:
    """What a name may refer to: something the program built (``origin`` empty) or something
    it must not change, described for the message (``"the given frame `df`"``)."""

    origin: str = ""
    #: a module, class or builtin: shared with the notebook, not just borrowed from a frame
    shared: bool = False
    #: the given frame it is, or is taken from ("" for anything else)
    frame: str = ""

    @property
    def fresh(self) -> bool:
        return not self.origin


_FRESH = _Kind()


def _join(*kinds: _Kind) -> _Kind:
    return next((k for k in kinds if k.shared), None) or \
        next((k for k in kinds if not k.fresh), _FRESH)


_State = dict[str, _Kind]


class _WriteChecker:
    """Follows the program's control flow to tell writes to its own objects from writes to
    the given frames, modules and builtins (and to anything taken from them)."""

    def __init__(self, given: set[str]) -> None:
        self.given = given
        self.problems: list[str] = []
        #: the given frames the program writes to, directly or through what it took from them
        self.frames: set[str] = set()

    def check(self, tree: ast.Module) -> list[str]:
        state: _State = {name: _Kind(f"the given frame `{name}`", frame=name) for name in self.given}
        self._block(tree.body, state, outer=None)
        return self.problems

    # statements ---------------------------------------------------------------------------
    def _block(self, body: list[ast.stmt], state: _State, outer: _State | None) -> _State:
        for statement in body:
            state = self._statement(statement, state, outer)
        return state

    def _statement(self, node: ast.stmt, state: _State, outer: _State | None) -> _State:
        if isinstance(node, ast.Assign):
            kind = self._expr(node.value, state, outer)
            for target in node.targets:
                self._bind(target, kind, state, outer)
        elif isinstance(node, ast.AnnAssign):
            kind = self._expr(node.value, state, outer) if node.value else _FRESH
            self._bind(node.target, kind, state, outer)
        elif isinstance(node, ast.AugAssign):
            self._expr(node.value, state, outer)
            target = node.target
            if isinstance(target, ast.Name):
                kind = self._lookup(target.id, state, outer)
                # `n += 1` rebinds a number; only a given frame itself or a shared object is
                # changed in place by `+=` in a way worth refusing (anything else taken from a
                # frame is a copy-on-write object)
                if kind.shared or kind.origin == f"the given frame `{target.id}`":
                    self._problem(node, f"`{target.id} {_op(node.op)}= …` changes "
                                  f"{kind.origin} in place; write `{target.id} = "
                                  f"{target.id} {_op(node.op)} …`")
            else:
                self._write(target, state, outer)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    state = {**state, target.id: _FRESH}
                else:
                    self._write(target, state, outer)
        elif isinstance(node, (ast.For, ast.While)):
            state = self._loop(node, state, outer)
        elif isinstance(node, ast.If):
            self._expr(node.test, state, outer)
            then = self._block(node.body, dict(state), outer)
            other = self._block(node.orelse, dict(state), outer)
            state = _merge(then, other)
        elif isinstance(node, ast.Try):
            after = self._block(node.body, dict(state), outer)
            joined = _merge(state, after)
            ends = [self._block(node.orelse, dict(after), outer)]
            for handler in node.handlers:
                entry = dict(joined)
                if handler.name:
                    entry[handler.name] = _FRESH
                ends.append(self._block(handler.body, entry, outer))
            state = _merge(joined, *ends)
            state = self._block(node.finalbody, state, outer)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            state = dict(state)
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                state[name] = _Kind(f"the module or library object `{name}`", shared=True)
        elif isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                self._expr(decorator, state, outer)
            self._function(node.args, node.body, state, outer)
            state = {**state, node.name: _FRESH}
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self._expr(child, state, outer)
        return state

    def _loop(self, node: ast.For | ast.While, state: _State, outer: _State | None) -> _State:
        entry = dict(state)
        for _ in range(2):  # twice: a binding made late in the body reaches its start
            body_state = dict(entry)
            if isinstance(node, ast.For):
                self._bind(node.target, self._expr(node.iter, entry, outer), body_state, outer)
            else:
                self._expr(node.test, entry, outer)
            body_state = self._block(node.body, body_state, outer)
            entry = _merge(entry, body_state)
        return self._block(node.orelse, entry, outer)

    def _function(self, args: ast.arguments, body: list[ast.stmt] | ast.expr,
                  state: _State, outer: _State | None) -> None:
        for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            self._expr(default, state, outer)
        scope = _merge(state, outer) if outer is not None else dict(state)
        enclosing: _State = {name: _join(kind, _Kind(f"the outer name `{name}`"))
                             for name, kind in scope.items()}
        local: _State = {}
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs,
                 *([args.vararg] if args.vararg else []), *([args.kwarg] if args.kwarg else [])]
        for parameter in every:
            local[parameter.arg] = _Kind(f"the parameter `{parameter.arg}` (it may be a given "
                                         "frame; copy it first)")
        if isinstance(body, list):
            self._block(body, local, enclosing)
        else:
            self._expr(body, local, enclosing)

    # bindings and writes ------------------------------------------------------------------
    def _bind(self, target: ast.AST, kind: _Kind, state: _State, outer: _State | None) -> None:
        if isinstance(target, ast.Name):
            state[target.id] = kind
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._bind(element, kind, state, outer)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, kind, state, outer)
        elif isinstance(target, (ast.Attribute, ast.Subscript)):
            self._write(target, state, outer)

    def _write(self, target: ast.AST, state: _State, outer: _State | None) -> None:
        if not isinstance(target, (ast.Attribute, ast.Subscript)):
            return
        if isinstance(target, ast.Subscript):
            self._expr(target.slice, state, outer)
        kind = self._expr(target.value, state, outer)
        if not kind.fresh:
            if kind.frame:
                self.frames.add(kind.frame)
            shown = show(target.value) + (f".{target.attr}" if isinstance(target, ast.Attribute)
                                           else "[…]")
            self._problem(target, f"`{shown}` changes {kind.origin}: {_hint(kind)}")

    def _lookup(self, name: str, state: _State, outer: _State | None) -> _Kind:
        if name in state:
            return state[name]
        if outer is not None and name in outer:
            return outer[name]
        return _Kind(f"the builtin or module `{name}`", shared=True)

    def _problem(self, node: ast.AST, text: str) -> None:
        self.problems.append(at_line(node, text))

    # expressions --------------------------------------------------------------------------
    def _expr(self, node: ast.AST, state: _State, outer: _State | None) -> _Kind:
        if isinstance(node, ast.Name):
            return self._lookup(node.id, state, outer)
        if isinstance(node, (ast.Attribute, ast.Starred)):
            return self._expr(node.value, state, outer)
        if isinstance(node, ast.Subscript):
            self._expr(node.slice, state, outer)
            return self._expr(node.value, state, outer)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return _join(*(self._expr(e, state, outer) for e in node.elts))
        if isinstance(node, ast.Dict):
            keys = [self._expr(k, state, outer) for k in node.keys if k is not None]
            return _join(*keys, *(self._expr(v, state, outer) for v in node.values))
        if isinstance(node, ast.IfExp):
            self._expr(node.test, state, outer)
            return _join(self._expr(node.body, state, outer),
                         self._expr(node.orelse, state, outer))
        if isinstance(node, ast.BoolOp):
            return _join(*(self._expr(v, state, outer) for v in node.values))
        if isinstance(node, ast.NamedExpr):
            kind = self._expr(node.value, state, outer)
            state[node.target.id] = kind
            return kind
        if isinstance(node, ast.Call):
            return self._call(node, state, outer)
        if isinstance(node, ast.Lambda):
            self._function(node.args, node.body, state, outer)
            return _FRESH
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            self._comprehension(node, state, outer)
            return _FRESH
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self._expr(child, state, outer)
        return _FRESH

    def _call(self, node: ast.Call, state: _State, outer: _State | None) -> _Kind:
        func = node.func
        receiver = self._expr(func, state, outer)
        arguments = [self._expr(a, state, outer) for a in node.args]
        arguments += [self._expr(k.value, state, outer) for k in node.keywords]
        if isinstance(func, ast.Attribute):
            if (func.attr in MUTATING_METHODS and not receiver.fresh) or \
                    (func.attr in _SHARED_MUTATORS and receiver.shared):
                self._problem(node, f"`.{func.attr}()` changes {receiver.origin}: "
                              f"{_hint(receiver)}")
            if func.attr in _PASS_THROUGH_METHODS:
                return _join(receiver, *arguments)
        if isinstance(func, ast.Name) and func.id in _PASS_THROUGH_BUILTINS:
            return _join(*arguments)
        if isinstance(func, ast.Name) and func.id == "type":
            return _Kind("a class (classes are shared with the notebook)", shared=True)
        return _FRESH

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
                       state: _State, outer: _State | None) -> None:
        inner = dict(state)
        for generator in node.generators:
            self._bind(generator.target, self._expr(generator.iter, inner, outer), inner, outer)
            for condition in generator.ifs:
                self._expr(condition, inner, outer)
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for part in parts:
            self._expr(part, inner, outer)
        # a walrus inside a comprehension binds in the enclosing scope
        for name, kind in inner.items():
            if name not in state and any(isinstance(n, ast.NamedExpr) and n.target.id == name
                                         for n in ast.walk(node)):
                state[name] = kind


def _hint(kind: _Kind) -> str:
    if kind.origin.startswith(("the given frame", "the parameter", "the outer name")):
        return "work on a copy (`d = df.copy()`) or build a new frame with `df.assign(...)`"
    return "programs may not change modules, classes, builtins or shared settings"


def _merge(*states: _State | None) -> _State:
    merged: _State = {}
    for state in states:
        if state is None:
            continue
        for name, kind in state.items():
            merged[name] = _join(merged.get(name, _FRESH), kind)
    return merged


def _op(op: ast.operator) -> str:
    symbols = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
               ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>",
               ast.BitOr: "|", ast.BitAnd: "&", ast.BitXor: "^", ast.MatMult: "@"}
    return symbols.get(type(op), "op")


def find_writes(tree: ast.Module, given: set[str]) -> list[str]:
    """The writes in ``tree`` to objects the program did not build, one problem per write."""
    return _WriteChecker(given).check(tree)


def frames_written(tree: ast.Module, given: set[str]) -> set[str]:
    """The given frames ``tree`` writes to, directly or through a frame it took from one
    (``f = df[df.x > 0]; f['y'] = 1``)."""
    checker = _WriteChecker(given)
    checker.check(tree)
    return checker.frames
