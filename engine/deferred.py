"""Validators built on first use, so that an input waits only for the models it holds.

``TaggedUnion``: a tagged union whose members are built on first use (the layer kinds, ``engine.method1.kinds``).

``Annotated[LayerBase, LAYERS]`` validates an object with the model its ``type`` names: that model's validator is
built when an input first names it, so a file of three kinds builds three, not the ~100 of the whole union.
Anything else (an unknown or missing tag, a value that is not an object) goes to the whole union, built on first
such use, so that every message and path is pydantic's own for the union: ``layers.3.dense.units`` as before
(the tag in the path), the same errors in the same order. The JSON schema is the whole union's.

``Section``: an optional field validated by a model that is imported on first use (a scenario's hardware run, plan,
serving and compression: a file without them never imports their modules); the same errors and JSON schema as
``Model | None``.
"""

import importlib
import threading
from typing import Annotated, Any, Union

from pydantic import BaseModel, Field
from pydantic_core import PydanticKnownError, SchemaValidator, core_schema

MAX_NESTED = 64
"""Members validated inside members (a block's layers) at most this deep, then pydantic's own "maximum validation
depth" error. Each level is a validator calling another, so pydantic's recursion guard (one per call) does not
see the depth; without this bound a hand-built object thousands deep overflows the stack. Validated input is
bounded earlier (``blocks.MAX_DEPTH`` = 32 blocks)."""


class TaggedUnion:
    """Members registered by their tag (``register_all``: a duplicate is refused); a validator per tag on first use.

    With a ``table`` (tag → (module relative to ``package``, class)), a tag's module is imported when an input first
    names it; ``everything`` (a module, relative to ``package``) registers every member when it is imported: the
    whole union (its JSON schema, an unknown tag) imports it."""

    def __init__(self, tag: str = "type", table: dict[str, tuple[str, str]] | None = None, package: str = "",
                 everything: str = ""):
        self.tag = tag
        self.table = table or {}
        self.package = package
        self.everything = everything
        self.members: dict[str, type[BaseModel]] = {}
        """Every member, once registered, in the whole union's order."""
        self._found: dict[str, type[BaseModel]] = {}
        self._one: dict[str, SchemaValidator] = {}
        self._whole = None
        self._in_json_schema = False
        self._depth = threading.local()

    def register_all(self, kinds) -> None:
        """Register ``kinds`` (models whose ``tag`` field defaults to their tag), in order: the whole union's order.
        Refused: a tag twice, a kind the table does not name where it is defined, a table entry of no kind."""
        for kind in kinds:
            tag = kind.model_fields[self.tag].default
            if tag in self.members:
                raise ValueError(f"{self.tag} {tag!r} is registered twice ({self.members[tag].__name__}, "
                                 f"{kind.__name__})")
            if self.table and self.table.get(tag) != self._where(kind):
                raise ValueError(f"{self.tag} {tag!r} ({kind.__name__}) is not in the table as {self._where(kind)}")
            self.members[tag] = kind
        if self.table and set(self.table) != set(self.members):
            raise ValueError(f"the table names kinds not registered: {sorted(set(self.table) - set(self.members))}")
        self._whole = None

    def _where(self, kind: type[BaseModel]) -> tuple[str, str]:
        return "." + kind.__module__.removeprefix(self.package + "."), kind.__name__

    def member(self, tag: str) -> type[BaseModel] | None:
        """The model of ``tag`` (its module imported now, through the table, if it was not), or None."""
        kind = self.members.get(tag) or self._found.get(tag)
        if kind is None and tag in self.table:
            module, name = self.table[tag]
            kind = imported(module, name, self.package)
            if kind.model_fields[self.tag].default != tag:
                raise ValueError(f"the table names {name} for {self.tag} {tag!r}; it has another")
            self._found[tag] = kind
        return kind

    def every_member(self) -> dict[str, type[BaseModel]]:
        if self.everything and not self.members:
            importlib.import_module(self.everything, self.package)
        return self.members

    def whole(self) -> Any:
        """The union of every member, as pydantic's discriminated union."""
        return Annotated[Union[tuple(self.every_member().values())], Field(discriminator=self.tag)]

    def __get_pydantic_core_schema__(self, source, handler) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            self.validate, metadata={"pydantic_js_functions": [self._json_schema]})

    def validate(self, value: object) -> object:
        """``value`` validated by its tag's member (built on first use), or by the whole union where the tag is
        missing or unknown; nesting deeper than ``MAX_NESTED`` is pydantic's depth error."""
        local = self._depth
        depth = getattr(local, "n", 0)
        if depth >= MAX_NESTED:
            raise PydanticKnownError("recursion_depth_exceeded")
        local.n = depth + 1
        try:
            if type(value) is dict:  # the common case first: one call a layer (10,000 layers)
                tag = value.get(self.tag)
            elif isinstance(value, BaseModel):
                tag = getattr(value, self.tag, None)
            else:
                tag = None
            if type(tag) is str:
                one = self._one.get(tag)
                if one is None and self.member(tag) is not None:
                    one = self._one[tag] = self._one_validator(tag)
                if one is not None:
                    return one.validate_python(value)
            if self._whole is None:
                from pydantic import TypeAdapter  # only here: the whole union is for the rare input that needs it

                self._whole = TypeAdapter(self.whole())
            return self._whole.validate_python(value)
        finally:
            local.n = depth

    def _one_validator(self, tag: str) -> SchemaValidator:
        """The whole union's validator narrowed to one member: the same tagged union (the tag in the error path,
        attributes read from an instance), of one choice."""
        return SchemaValidator(core_schema.tagged_union_schema(
            {tag: built_schema(self.member(tag))}, discriminator=self.tag, strict=False,
            from_attributes=True))

    def _json_schema(self, _schema, handler) -> dict:
        """The whole union's JSON schema: every member a definition, the union their references (a member holding
        this union again, a block's layer list, refers to them)."""
        generator = handler.generate_json_schema
        choices, definitions = {}, []
        for tag, kind in self.every_member().items():
            schema = built_schema(kind)
            if schema["type"] == "definitions":  # a recursive member: its own definitions, itself among them
                definitions.extend(schema["definitions"])
                schema = schema["schema"]
            if schema["type"] == "definition-ref":
                choices[tag] = schema
            else:
                choices[tag] = core_schema.definition_reference_schema(schema["ref"])
                definitions.append(schema)
        union = core_schema.tagged_union_schema(choices, discriminator=self.tag)
        if self._in_json_schema:
            return generator.generate_inner(union)
        self._in_json_schema = True
        try:
            return generator.generate_inner(core_schema.definitions_schema(union, definitions))
        finally:
            self._in_json_schema = False


class Section:
    """``Annotated[BaseModel | None, Section(module, name, package)]``: None, or what the model ``name`` of
    ``module`` (relative to ``package``, imported on first use, as the layer union's table names a kind) validates."""

    def __init__(self, module: str, name: str, package: str):
        self.where = module, name, package
        self._model: type[BaseModel] | None = None

    @property
    def model(self) -> type[BaseModel]:
        if self._model is None:
            self._model = imported(*self.where)
        return self._model

    def __get_pydantic_core_schema__(self, source, handler) -> core_schema.CoreSchema:
        # a wrap validator that never calls its inner schema: that schema's ref only tells the JSON schema, as for
        # ``Model | None``, that the field needs no title (the model has its own)
        # (written as the value is: None, or the model by its own serializer, as ``Model | None`` writes it)
        return core_schema.no_info_wrap_validator_function(
            self.validate, core_schema.none_schema(ref=f"{__name__}.Section:{id(self)}"),
            serialization=core_schema.simple_ser_schema("any"),
            metadata={"pydantic_js_functions": [self._json_schema]})

    def validate(self, value: object, _inner=None) -> object:
        return None if value is None else self.model.__pydantic_validator__.validate_python(value)

    def _json_schema(self, _schema, handler) -> dict:
        return handler.generate_json_schema.generate_inner(core_schema.nullable_schema(built_schema(self.model)))


def imported(module: str, name: str, package: str) -> type[BaseModel]:
    """The class ``name`` of ``module`` (relative to ``package``), imported now if it was not."""
    return getattr(importlib.import_module(module, package), name)


def built_schema(model: type[BaseModel]) -> core_schema.CoreSchema:
    """``model``'s core schema, built now if it was deferred (a mock stands in until then; reading it builds)."""
    schema = model.__pydantic_core_schema__
    return schema if isinstance(schema, dict) else dict(schema)
