"""The store's schema as ordered migrations, and the code that brings a database up to date.

`PRAGMA user_version` holds the number of migrations applied; each runs in its own transaction together
with the version bump, so a crash mid-upgrade leaves the previous version intact. `PRAGMA application_id`
marks the file as ours, which is how a foreign SQLite file at our path is told apart from an old store.
Append new steps at the end; never edit one that has shipped.
"""

from __future__ import annotations

import sqlite3

from ..record import record

#: "VISI" in ASCII: written into the database header so another program's SQLite file is recognised.
APPLICATION_ID = 0x56495349


@record(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "dialogs and messages",
        """
        CREATE TABLE dialogs (
            id TEXT PRIMARY KEY,
            branch_from_id TEXT NOT NULL DEFAULT '',
            title TEXT NOT NULL DEFAULT '',
            provider_id TEXT NOT NULL DEFAULT '',
            model_id TEXT NOT NULL DEFAULT '',
            capability_requirement TEXT NOT NULL DEFAULT '["text"]',
            skills TEXT NOT NULL DEFAULT '[]',
            mcp_servers TEXT NOT NULL DEFAULT '[]',
            prompts TEXT NOT NULL DEFAULT '[]',
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            message_count INTEGER NOT NULL DEFAULT 0,
            input_draft TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX dialogs_by_branch ON dialogs (branch_from_id);
        CREATE INDEX dialogs_by_created ON dialogs (created_at, id);
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            dialog_id TEXT NOT NULL REFERENCES dialogs (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            role TEXT NOT NULL,
            content TEXT NOT NULL DEFAULT '',
            name TEXT NOT NULL DEFAULT '',
            reasoning TEXT NOT NULL DEFAULT '',
            tool_call_id TEXT NOT NULL DEFAULT '',
            tool_calls TEXT NOT NULL DEFAULT '',
            images TEXT NOT NULL DEFAULT '',
            meta TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL,
            UNIQUE (dialog_id, position)
        );
        CREATE TABLE drafts (
            dialog_id TEXT PRIMARY KEY REFERENCES dialogs (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            content TEXT NOT NULL DEFAULT '',
            reasoning TEXT NOT NULL DEFAULT '',
            started_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        """,
    ),
    Migration(
        2,
        "full-text search over message content",
        # trigram: substring search that works for every script, Chinese and Japanese included, where the
        # default tokenizer would see a whole sentence without spaces as one word.
        """
        CREATE VIRTUAL TABLE messages_fts USING fts5 (
            content, content = 'messages', content_rowid = 'id', tokenize = 'trigram'
        );
        CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
            INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
        END;
        CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
            INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
        END;
        CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
            INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
            INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
        END;
        INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
        """,
    ),
    Migration(
        3,
        "the search index holds the first 100,000 characters of a message",
        # Trigram-indexing a 5 MB reply took a second of the app's event loop as the reply was saved. Rows longer
        # than that were indexed whole: they are taken out whole and put back cut, so every later 'delete'
        # (which must name what was indexed) matches.
        """
        DROP TRIGGER messages_fts_insert;
        DROP TRIGGER messages_fts_delete;
        DROP TRIGGER messages_fts_update;
        INSERT INTO messages_fts (messages_fts, rowid, content)
            SELECT 'delete', id, content FROM messages WHERE length(content) > 100000;
        INSERT INTO messages_fts (rowid, content)
            SELECT id, substr(content, 1, 100000) FROM messages WHERE length(content) > 100000;
        CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
            INSERT INTO messages_fts (rowid, content) VALUES (new.id, substr(new.content, 1, 100000));
        END;
        CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
            INSERT INTO messages_fts (messages_fts, rowid, content)
                VALUES ('delete', old.id, substr(old.content, 1, 100000));
        END;
        CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
            INSERT INTO messages_fts (messages_fts, rowid, content)
                VALUES ('delete', old.id, substr(old.content, 1, 100000));
            INSERT INTO messages_fts (rowid, content) VALUES (new.id, substr(new.content, 1, 100000));
        END;
        """,
    ),
    Migration(
        4,
        "generation parameters per dialog",
        """
        ALTER TABLE dialogs ADD COLUMN parameters TEXT NOT NULL DEFAULT '{}';
        """,
    ),
    Migration(
        5,
        "picks of comparisons",
        # No foreign keys to dialogs: the scores are the user's judgement and outlive deleting the dialogs. The
        # losers are a JSON array of {dialog_id, provider_id, model_id}; a pick has one to three of them.
        """
        CREATE TABLE picks (
            id INTEGER PRIMARY KEY,
            question_dialog_id TEXT NOT NULL,
            winner_dialog_id TEXT NOT NULL,
            winner_provider_id TEXT NOT NULL DEFAULT '',
            winner_model_id TEXT NOT NULL DEFAULT '',
            losers TEXT NOT NULL DEFAULT '[]',
            created_at REAL NOT NULL,
            blind INTEGER NOT NULL DEFAULT 0,
            tag TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX picks_by_time ON picks (created_at, id);
        """,
    ),
    Migration(
        6,
        "attached files, stored once by their hash",
        # Additive: old rows read as messages without attachments. A message's column holds its attachments'
        # references (name, kind, size, sha256) as a JSON array; the bytes are in `attachments`, once each.
        """
        ALTER TABLE messages ADD COLUMN attachments TEXT NOT NULL DEFAULT '';
        CREATE TABLE attachments (
            sha256 TEXT PRIMARY KEY,
            data BLOB NOT NULL,
            size INTEGER NOT NULL,
            created_at REAL NOT NULL
        );
        """,
    ),
)

#: Characters of a message the full-text index holds (migration 3); longer text is found by its beginning.
INDEXED_CHARACTERS = 100_000

LATEST_VERSION = MIGRATIONS[-1].version


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, migrations: tuple[Migration, ...] = MIGRATIONS) -> list[str]:
    """Apply every migration newer than the database; returns the names applied, oldest first.

    The connection must be in autocommit mode (`isolation_level=None`) so the explicit transactions here
    are the only ones.
    """
    applied = []
    current = schema_version(conn)
    for migration in migrations:
        if migration.version <= current:
            continue
        try:
            conn.execute("BEGIN IMMEDIATE")
            for statement in _statements(migration.sql):
                conn.execute(statement)
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {migration.version}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        applied.append(migration.name)
        current = migration.version
    return applied


def _statements(script: str) -> list[str]:
    """Split a migration into statements, keeping trigger bodies (which contain `;`) whole."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
