"""Schema migrations, applied in order and recorded in ``schema_version`` and ``PRAGMA user_version``."""
from __future__ import annotations

import sqlite3
from typing import Callable

MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = []
migration = MIGRATIONS.append


def _run_script(db: sqlite3.Connection, script: str) -> None:
    """Run each statement of ``script`` inside the caller's transaction.

    (``executescript`` would commit first, breaking the all-or-nothing migration.)
    """
    pending = ""
    for line in script.splitlines(keepends=True):
        if not pending and (not line.strip() or line.strip().startswith("--")):
            continue
        pending += line
        if sqlite3.complete_statement(pending):
            db.execute(pending)
            pending = ""
    if pending.strip():
        raise ValueError(f"incomplete SQL statement in migration: {pending.strip()[:60]}")


@migration
def m001_initial(db: sqlite3.Connection) -> None:
    _run_script(db, 
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL,
            notebook_path TEXT,
            private INTEGER NOT NULL DEFAULT 0,
            profile TEXT,
            key TEXT,
            title_locked INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE INDEX sessions_by_updated ON sessions (updated_at);
        CREATE INDEX sessions_by_key ON sessions (key);
        CREATE INDEX sessions_by_notebook ON sessions (notebook_path);

        CREATE TABLE records (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            role TEXT NOT NULL,
            content TEXT NOT NULL,
            tool_name TEXT,
            tool_call_id TEXT,
            tool_calls TEXT,
            status TEXT,
            meta TEXT,
            created_at TEXT NOT NULL,
            UNIQUE (session_id, seq)
        );
        CREATE TRIGGER records_append_only BEFORE UPDATE ON records
        BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;

        CREATE TABLE summaries (
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            kind TEXT NOT NULL,
            tier TEXT NOT NULL,
            summarizer_id TEXT NOT NULL,
            from_ts TEXT,
            to_ts TEXT,
            record_count INTEGER NOT NULL,
            summary TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (session_id, key)
        );

        -- Global Memory (session_id IS NULL) and Session Memory share one table.
        CREATE TABLE memory (
            id INTEGER PRIMARY KEY,
            scope TEXT NOT NULL,             -- 'global' or 's:<session id>'
            session_id TEXT REFERENCES sessions (id) ON DELETE CASCADE,
            fact TEXT NOT NULL,
            norm TEXT NOT NULL,
            native_fact TEXT NOT NULL DEFAULT '',
            category TEXT NOT NULL,
            source TEXT NOT NULL DEFAULT '',
            tool_originated INTEGER NOT NULL DEFAULT 0,
            relevance REAL NOT NULL DEFAULT 1.0,
            state TEXT NOT NULL DEFAULT 'fresh',
            created_turn INTEGER NOT NULL DEFAULT 0,
            last_touched_turn INTEGER NOT NULL DEFAULT 0,
            last_touched_at TEXT NOT NULL,
            touch_count INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            source_time TEXT,
            superseded_by INTEGER,
            token_count INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX memory_by_scope ON memory (scope, created_at, id);
        CREATE INDEX memory_by_norm ON memory (scope, norm);
        CREATE INDEX memory_by_fact ON memory (scope, fact);

        -- inverted index of similarity tokens, for near-duplicate lookup without a scan
        CREATE TABLE memory_tokens (
            entry_id INTEGER NOT NULL REFERENCES memory (id) ON DELETE CASCADE,
            scope TEXT NOT NULL,
            token TEXT NOT NULL,
            PRIMARY KEY (scope, token, entry_id)
        ) WITHOUT ROWID;
        CREATE INDEX memory_tokens_by_entry ON memory_tokens (entry_id);
        CREATE TABLE memory_token_df (
            scope TEXT NOT NULL,
            token TEXT NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (scope, token)
        ) WITHOUT ROWID;
        CREATE TRIGGER memory_tokens_df_add AFTER INSERT ON memory_tokens BEGIN
            INSERT INTO memory_token_df (scope, token, n) VALUES (NEW.scope, NEW.token, 1)
            ON CONFLICT (scope, token) DO UPDATE SET n = n + 1;
        END;
        CREATE TRIGGER memory_tokens_df_remove AFTER DELETE ON memory_tokens BEGIN
            UPDATE memory_token_df SET n = n - 1 WHERE scope = OLD.scope AND token = OLD.token;
            DELETE FROM memory_token_df WHERE scope = OLD.scope AND token = OLD.token AND n <= 0;
        END;

        CREATE TABLE findings (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL,
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            content TEXT NOT NULL,
            norm TEXT NOT NULL,
            tags TEXT NOT NULL DEFAULT '[]',
            source TEXT NOT NULL,
            tool_originated INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            created_label TEXT NOT NULL,
            UNIQUE (session_id, id)
        );
        CREATE TABLE finding_counters (
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            day TEXT NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (session_id, day)
        );

        CREATE TABLE objects (
            id TEXT PRIMARY KEY,
            session_id TEXT REFERENCES sessions (id) ON DELETE CASCADE,
            type TEXT NOT NULL,
            mime_type TEXT NOT NULL DEFAULT '',
            name TEXT NOT NULL DEFAULT '',
            size INTEGER NOT NULL,
            lines INTEGER NOT NULL DEFAULT 0,
            tokens INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL
        );
        CREATE INDEX objects_by_session ON objects (session_id, created_at);
        """
    )


@migration
def m002_memory_suggestions(db: sqlite3.Connection) -> None:
    """Session Memory may hold preference/decision *suggestions* the Global gate refused."""
    db.execute("ALTER TABLE memory ADD COLUMN suggested INTEGER NOT NULL DEFAULT 0")


@migration
def m003_memory_signatures(db: sqlite3.Connection) -> None:
    """Cache each fact's similarity tokens and protected-token signature, so near-duplicate
    lookup never re-tokenises stored facts."""
    db.execute("ALTER TABLE memory ADD COLUMN sim_tokens TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE memory ADD COLUMN signature TEXT NOT NULL DEFAULT ''")
    _reindex_memory(db)


def _reindex_memory(db: sqlite3.Connection) -> None:
    """Recompute every memory row's similarity tokens and signature with the current rules."""
    from .similarity import signature

    rows = db.execute("SELECT id, fact FROM memory").fetchall()
    for entry_id, fact in rows:
        sig = signature(fact)
        tokens = sorted(sig.tokens)
        db.execute(
            "UPDATE memory SET token_count = ?, sim_tokens = ?, signature = ? WHERE id = ?",
            (len(tokens), " ".join(tokens), sig.dumps(), entry_id),
        )


@migration
def m004_memory_change_tracking(db: sqlite3.Connection) -> None:
    """A per-scope render version, a change log for in-process token caches, and an index of
    the rendered rows."""
    _run_script(
        db,
        """
        CREATE TABLE memory_versions (scope TEXT PRIMARY KEY, v INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TRIGGER memory_version_insert AFTER INSERT ON memory BEGIN
            INSERT INTO memory_versions (scope, v) VALUES (NEW.scope, 1)
            ON CONFLICT (scope) DO UPDATE SET v = v + 1;
        END;
        CREATE TRIGGER memory_version_delete AFTER DELETE ON memory BEGIN
            INSERT INTO memory_versions (scope, v) VALUES (OLD.scope, 1)
            ON CONFLICT (scope) DO UPDATE SET v = v + 1;
        END;
        CREATE TRIGGER memory_version_update AFTER UPDATE ON memory
        WHEN OLD.fact IS NOT NEW.fact OR OLD.native_fact IS NOT NEW.native_fact
          OR OLD.category IS NOT NEW.category OR OLD.source IS NOT NEW.source
          OR OLD.state IS NOT NEW.state OR OLD.superseded_by IS NOT NEW.superseded_by
          OR OLD.suggested IS NOT NEW.suggested OR OLD.created_at IS NOT NEW.created_at
        BEGIN
            INSERT INTO memory_versions (scope, v) VALUES (NEW.scope, 1)
            ON CONFLICT (scope) DO UPDATE SET v = v + 1;
        END;

        CREATE TABLE memory_changes (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            scope TEXT NOT NULL,
            entry_id INTEGER NOT NULL
        );
        CREATE INDEX memory_changes_by_scope ON memory_changes (scope, seq);
        CREATE TRIGGER memory_change_insert AFTER INSERT ON memory BEGIN
            INSERT INTO memory_changes (scope, entry_id) VALUES (NEW.scope, NEW.id);
        END;
        CREATE TRIGGER memory_change_delete AFTER DELETE ON memory BEGIN
            INSERT INTO memory_changes (scope, entry_id) VALUES (OLD.scope, OLD.id);
        END;
        CREATE TRIGGER memory_change_update AFTER UPDATE OF fact, sim_tokens, superseded_by ON memory
        BEGIN
            INSERT INTO memory_changes (scope, entry_id) VALUES (NEW.scope, NEW.id);
        END;
        CREATE TRIGGER memory_changes_prune AFTER INSERT ON memory_changes
        WHEN NEW.seq % 1000 = 0 BEGIN
            DELETE FROM memory_changes WHERE seq <= NEW.seq - 20000;
        END;

        CREATE INDEX memory_rendered ON memory (scope, created_at, id)
        WHERE superseded_by IS NULL AND state IN ('fresh', 'active');

        -- near-duplicate lookup now runs on the in-process token cache
        DROP TRIGGER memory_tokens_df_add;
        DROP TRIGGER memory_tokens_df_remove;
        DROP TABLE memory_token_df;
        DROP TABLE memory_tokens;
        """,
    )


@migration
def m005_reindex_memory_signatures(db: sqlite3.Connection) -> None:
    """Signatures gained contrast classes and lexicon places; similarity tokens now read spelled-out
    numbers as digits and "doesn't" as "does not". Recompute both for every stored fact."""
    _reindex_memory(db)


def migrate(db: sqlite3.Connection) -> int:
    """Bring ``db`` up to the newest schema inside one ``BEGIN IMMEDIATE`` transaction.

    Returns the resulting version. Raises ``RuntimeError`` for a database newer than this code.
    """
    db.execute("BEGIN IMMEDIATE")
    try:
        current = db.execute("PRAGMA user_version").fetchone()[0]
        if current > len(MIGRATIONS):
            raise RuntimeError(
                f"schema version {current} is newer than this shell-agent-lab understands "
                f"({len(MIGRATIONS)}); upgrade shell-agent-lab"
            )
        if current < len(MIGRATIONS):
            db.execute(
                "CREATE TABLE IF NOT EXISTS schema_version "
                "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            for version, step in enumerate(MIGRATIONS[current:], start=current + 1):
                step(db)
                db.execute(
                    "INSERT INTO schema_version (version, name, applied_at) "
                    "VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                    (version, step.__name__),
                )
                db.execute(f"PRAGMA user_version = {version}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return len(MIGRATIONS)
