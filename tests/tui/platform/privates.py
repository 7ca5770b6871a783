"""Where the TUI's sources name a private of Textual or Rich, read with `ast` against the installed packages.

The deny-list is made from the installed Textual and Rich themselves, each time: every name their sources
define with a leading underscore (not a dunder) — functions, methods and classes, module-level and class-level
names, attributes they assign (`self._x = ...`), `__slots__` entries, name-mangled attributes in both spellings,
names they reach by string (`getattr(obj, "__watchers")`), and prefixes they build attribute names from
(`f"_reactive_{name}"`) — and every private module (`textual._compositor`, `textual.widgets._markdown`,
`rich._unicode_data`).

A use in a TUI file is an import from a private module or of a private name, an attribute with a denied name,
or a string naming either (docstrings aside). A name the file's own classes define is the file's own — unless
a Textual or Rich class those classes derive from defines it too: overriding or overwriting a Textual private
(`def _on_key` in a `TextArea`, `self._size = ...` in a `Widget`) is a use. An attribute of a module imported
from elsewhere (`os._exit`) is not Textual's.

Run as a script for the census: `python -m tests.tui.platform.privates [folder]`.
"""

from __future__ import annotations

import ast
import collections
import functools
import importlib
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rich
import textual

ROOT = Path(__file__).resolve().parents[3]
TUI = ROOT / "tui"
UPSTREAM_PACKAGES = ("textual", "rich")
REACH_BY_NAME = {"getattr", "setattr", "hasattr", "delattr"}


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__")) and name != "_"


@dataclass(frozen=True)
class DenyList:
    names: frozenset[str]
    prefixes: tuple[str, ...]
    modules: frozenset[str]
    #: (module, class qualname) -> the private names that class defines (its body and `self._x = ...`)
    by_class: dict[tuple[str, str], frozenset[str]]

    def denies(self, name: str) -> bool:
        return name in self.names or (is_private(name) and name.startswith(self.prefixes))

    def private_module(self, dotted: str) -> bool:
        """`dotted` is, or is inside, a private module of Textual or Rich."""
        parts = dotted.split(".")
        return parts[0] in UPSTREAM_PACKAGES and any(is_private(part) for part in parts[1:])


def _module_name(package_dir: Path, path: Path) -> str:
    parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _mangled(class_name: str, name: str) -> str:
    return f"_{class_name.lstrip('_')}{name}"


class _Definitions(ast.NodeVisitor):
    """The private names one upstream module defines."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.names: set[str] = set()
        self.prefixes: set[str] = set()
        self.by_class: dict[tuple[str, str], set[str]] = collections.defaultdict(set)
        self.classes: list[str] = []
        self.depth_in_function = 0

    def _add(self, name: str, on_class: bool = True) -> None:
        if is_private(name):
            self.names.add(name)
            if self.classes and on_class:
                self.by_class[(self.module, ".".join(self.classes))].add(name)
                if name.startswith("__"):
                    mangled = _mangled(self.classes[-1].split(".")[-1], name)
                    self.names.add(mangled)
                    self.by_class[(self.module, ".".join(self.classes))].add(mangled)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._add(node.name)
        if self.depth_in_function:
            self.generic_visit(node)
            return
        self.classes.append(node.name)
        self.generic_visit(node)
        self.classes.pop()

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._add(node.name)
        self.depth_in_function += 1
        self.generic_visit(node)
        self.depth_in_function -= 1

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def _target(self, target: ast.expr) -> None:
        if isinstance(target, ast.Name) and not self.depth_in_function:
            self._add(target.id)  # module-level or class-level
        elif isinstance(target, ast.Attribute):  # on the class only when set on self or cls
            on_self = isinstance(target.value, ast.Name) and target.value.id in {"self", "cls"}
            self._add(target.attr, on_class=on_self)
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._target(element)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._target(target)
            if isinstance(target, ast.Name) and target.id == "__slots__":
                for constant in ast.walk(node.value):
                    if isinstance(constant, ast.Constant) and isinstance(constant.value, str):
                        self._add(constant.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._target(node.target)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._target(node.target)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in REACH_BY_NAME and len(node.args) >= 2:
            name = node.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                self._add(name.value, on_class=False)
            elif isinstance(name, ast.JoinedStr) and name.values:
                first = name.values[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str) and is_private(first.value):
                    self.prefixes.add(first.value)
        self.generic_visit(node)


@functools.cache
def deny_list() -> DenyList:
    """Made from the installed Textual and Rich (their sources)."""
    names: set[str] = set()
    prefixes: set[str] = set()
    modules: set[str] = set()
    by_class: dict[tuple[str, str], frozenset[str]] = {}
    for package in (textual, rich):
        package_dir = Path(package.__file__ or "").parent
        for path in sorted(package_dir.rglob("*.py")):
            module = _module_name(package_dir, path)
            if any(is_private(part) for part in module.split(".")[1:]):
                modules.add(module)
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError):
                continue
            found = _Definitions(module)
            found.visit(tree)
            names |= found.names
            prefixes |= found.prefixes
            by_class.update({key: frozenset(value) for key, value in found.by_class.items()})
    return DenyList(frozenset(names), tuple(sorted(prefixes)), frozenset(modules), by_class)


@dataclass(frozen=True)
class Use:
    path: str
    line: int
    name: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.name}"


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(TUI).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["visindigo.tui", *parts])


def _class_objects(module: Any, tree: ast.Module) -> Iterator[tuple[ast.ClassDef, Any]]:
    """Each class statement of the module with the class it made (found by name, or made from its bases)."""

    def walk(body: Iterable[ast.stmt], owner: Any, in_function: bool) -> Iterator[tuple[ast.ClassDef, Any]]:
        for node in body:
            if isinstance(node, ast.ClassDef):
                made = None if in_function or owner is None else getattr(owner, node.name, None)
                if not isinstance(made, type):
                    made = _from_bases(module, node)
                yield node, made
                yield from walk(node.body, made, in_function)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from walk(node.body, None, True)
            else:  # if / try / with / for: the statements inside, as at this level
                inner: list[ast.stmt] = []
                for field in ("body", "orelse", "finalbody", "handlers"):
                    for child in getattr(node, field, None) or []:
                        inner += child.body if isinstance(child, ast.ExceptHandler) else [child]
                yield from walk(inner, owner, in_function)

    yield from walk(tree.body, module, False)


def _from_bases(module: Any, node: ast.ClassDef) -> Any:
    """A stand-in class with the bases a class statement names (for classes made inside functions)."""
    bases = []
    for base in node.bases:
        try:
            value = eval(compile(ast.Expression(base), "<base>", "eval"), vars(module))
        except Exception:
            continue
        if isinstance(value, type):
            bases.append(value)
    return type("Stand-in", tuple(bases), {}) if bases else object


def _upstream_names(cls: Any, deny: DenyList) -> frozenset[str]:
    """The private names the Textual and Rich classes `cls` derives from define."""
    found: set[str] = set()
    for base in getattr(cls, "__mro__", ()):
        if base.__module__.split(".")[0] in UPSTREAM_PACKAGES:
            found |= deny.by_class.get((base.__module__, base.__qualname__), frozenset())
    return frozenset(found)


def _flat(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a body, with those inside its if / try / with blocks (e.g. `if TYPE_CHECKING:`)."""
    for statement in body:
        if isinstance(statement, ast.If | ast.Try | ast.With):
            for field in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(statement, field, None) or []:
                    yield from _flat(child.body if isinstance(child, ast.ExceptHandler) else [child])
        else:
            yield statement


def _own_names(node: ast.ClassDef) -> set[str]:
    """What a class statement defines: its body's names and the attributes its methods set on self/cls."""
    own: set[str] = set()
    for statement in _flat(node.body):
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            own.add(statement.name)
        elif isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            own |= {target.id for target in targets if isinstance(target, ast.Name)}
    for method in node.body:
        if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
            for child in ast.walk(method):
                if (
                    isinstance(child, ast.Attribute)
                    and isinstance(child.ctx, ast.Store | ast.Del)
                    and isinstance(child.value, ast.Name)
                    and child.value.id in {"self", "cls"}
                ):
                    own.add(child.attr)
    return own


def uses_in(path: Path, deny: DenyList | None = None, module: Any = None) -> list[Use]:
    """Every use of a Textual or Rich private in one TUI source file (`module`: the module it makes, if it is
    not a visindigo.tui module)."""
    deny = deny or deny_list()
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    relative = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name
    if module is None:
        module = importlib.import_module(_module_of(path))
    #: class statement -> the names it may use as its own (what it defines that no Textual base defines)
    own_by_class: dict[int, set[str]] = {}
    found: list[Use] = []
    for node, made in _class_objects(module, tree):
        defined = _own_names(node)
        shadowed = defined & _upstream_names(made, deny)
        own_by_class[id(node)] = defined - shadowed
        for statement in node.body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and statement.name in shadowed:
                found.append(Use(relative, statement.lineno, f"def {statement.name}"))
    anywhere = set().union(*own_by_class.values()) if own_by_class else set()
    foreign_modules = {
        alias.asname or alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name.split(".")[0] not in UPSTREAM_PACKAGES
    }
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }

    def visit(node: ast.AST, excused: set[str]) -> None:
        if isinstance(node, ast.ClassDef):
            excused = own_by_class.get(id(node), excused)
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if deny.private_module(node.module):
                found.append(Use(relative, node.lineno, node.module))
            elif node.module.split(".")[0] in UPSTREAM_PACKAGES:
                found.extend(Use(relative, node.lineno, a.name) for a in node.names if is_private(a.name))
        elif isinstance(node, ast.Import):
            found.extend(Use(relative, node.lineno, a.name) for a in node.names if deny.private_module(a.name))
        elif isinstance(node, ast.Attribute) and deny.denies(node.attr) and node.attr not in excused:
            if not (isinstance(node.value, ast.Name) and node.value.id in foreign_modules):
                found.append(Use(relative, node.lineno, node.attr))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value
            named_module = (
                deny.private_module(text.partition(":")[0]) and text.replace(":", ".").replace(".", "_").isidentifier()
            )
            if (deny.denies(text) and text not in excused) or named_module:
                found.append(Use(relative, node.lineno, repr(text)))
        for child in ast.iter_child_nodes(node):
            visit(child, excused)

    visit(tree, anywhere)
    return sorted(set(found), key=lambda use: (use.line, use.name))


def census(folder: Path = TUI) -> dict[str, list[Use]]:
    """File (relative to the repository) -> its uses, for every file with at least one."""
    deny = deny_list()
    result = {}
    for path in sorted(folder.rglob("*.py")):
        uses = uses_in(path, deny)
        if uses:
            result[str(path.relative_to(ROOT))] = uses
    return result


def main(argv: list[str]) -> int:
    folder = Path(argv[0]).resolve() if argv else TUI
    found = census(folder)
    for path, uses in sorted(found.items(), key=lambda item: -len(item[1])):
        print(f"{len(uses):4} {path}")
        for use in uses:
            print(f"       {use.line}: {use.name}")
    print(f"total {sum(len(uses) for uses in found.values())} in {len(found)} files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
