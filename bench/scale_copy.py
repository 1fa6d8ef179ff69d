"""Copying a planned table into PostgreSQL with COPY, its columns read from the Django model.

The columns come from the model's `_meta`, so a field added to a model is filled from its default (or
NULL) without touching the bench, and a new field the bench cannot fill is named in a clear error.
Indexes and foreign keys of a table are dropped while it is copied and built again after, which is how
PostgreSQL loads in bulk fastest; the rebuilt constraints are checked in full when they are added back.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.db import models
from django.db.models.fields import NOT_PROVIDED


class UnknownColumn(RuntimeError):
    """A model has a required column the bench's plan does not fill."""


@dataclass(frozen=True)
class Rebuild:
    """How to put a table's indexes and constraints back once its rows are in."""

    drops: list[str]
    creates: list[str]


def column_sources(model: type[models.Model], planned: dict[str, Any], rows: int, connection: Any) -> dict[str, Any]:
    """For each concrete column of `model`: the planned list, or the same value for every row.

    Fields the plan leaves out get their default (a blank text field: ""), or NULL where allowed; anything
    else is an error.
    """
    sources: dict[str, Any] = {}
    for field in model._meta.concrete_fields:
        if field.attname in planned:
            value = planned[field.attname]
            if isinstance(value, list) and len(value) != rows:
                raise ValueError(f"{model.__name__}.{field.attname}: {len(value)} values planned for {rows} rows")
            sources[field.column] = value if isinstance(value, list) else field.get_db_prep_save(value, connection)
        elif field.default is not NOT_PROVIDED or (field.blank and field.empty_strings_allowed):
            sources[field.column] = field.get_db_prep_save(field.get_default(), connection)
        elif field.null:
            sources[field.column] = None
        else:
            raise UnknownColumn(
                f"{model._meta.label}.{field.name} ({field.column}) is required and has no default: "
                "bench/scale_plan.py must plan it (the model changed since the bench was written)"
            )
    return sources


def unplanned(model: type[models.Model], planned: dict[str, Any]) -> list[str]:
    """Planned columns the model no longer has (moved or renamed by a schema change)."""
    names = {field.attname for field in model._meta.concrete_fields}
    return sorted(set(planned) - names)


def rows_of(sources: dict[str, Any], rows: int) -> Iterator[tuple]:
    columns = [value if isinstance(value, list) else itertools.repeat(value, rows) for value in sources.values()]
    return zip(*columns)  # noqa: B905 (repeat() has no length; the lists were checked against `rows`)


def detach_indexes(cursor: Any, table: str) -> Rebuild:
    """Drop the table's secondary indexes, unique and foreign-key constraints; return how to restore them."""
    cursor.execute(
        """
        SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
        WHERE conrelid = %s::regclass AND contype IN ('f', 'u', 'c', 'x')
        """,
        [table],
    )
    constraints = cursor.fetchall()
    cursor.execute(
        """
        SELECT i.indexname, i.indexdef FROM pg_indexes i
        WHERE i.tablename = %s AND i.schemaname = current_schema()
          AND i.indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass)
        """,
        [table, table],
    )
    indexes = cursor.fetchall()
    drops = [f'ALTER TABLE "{table}" DROP CONSTRAINT "{name}"' for name, _ in constraints]
    drops += [f'DROP INDEX "{name}"' for name, _ in indexes]
    creates = [definition for _, definition in indexes]
    creates += [f'ALTER TABLE "{table}" ADD CONSTRAINT "{name}" {definition}' for name, definition in constraints]
    return Rebuild(drops, creates)


def copy_rows(cursor: Any, table: str, columns: list[str], rows: Iterable[tuple]) -> None:
    names = ", ".join(f'"{column}"' for column in columns)
    cursor.execute(f'SELECT {names} FROM "{table}" LIMIT 0')
    types = [description.type_code for description in cursor.description]
    with cursor.copy(f'COPY "{table}" ({names}) FROM STDIN (FORMAT BINARY)') as copy:
        copy.set_types(types)
        for row in rows:
            copy.write_row(row)


def copy_model(cursor: Any, model: type[models.Model], planned: dict[str, Any], rows: int, connection: Any) -> None:
    sources = column_sources(model, planned, rows, connection)
    copy_rows(cursor, model._meta.db_table, list(sources), rows_of(sources, rows))
