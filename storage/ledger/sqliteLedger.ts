// The embedded approvals ledger: one SQLite file through node:sqlite (no native build), WAL so readers (the CLI, the
// inbox) never block the worker's writes, a short busy timeout so two processes on one file wait a moment, and
// BEGIN IMMEDIATE per write so a write takes the file's write lock before it reads what it will change.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { SchemaRunner } from './ledgerSchema';
import { type SqlDriver, openSqlLedger } from './sqlLedger';
import type { LedgerStore } from './ledgerStore';

/**
 * node:sqlite is synchronous: a write that waits for another process's lock holds the worker's event loop (every
 * activity and workflow task of the process) for as long. So it waits briefly, then fails; the activity retries it.
 */
const BUSY_TIMEOUT_MS = 1_000;
const CACHED_STATEMENTS = 256;

/** node:sqlite, loaded with its one-time ExperimentalWarning left out (every other warning still shows). */
async function loadSqlite(): Promise<typeof import('node:sqlite')> {
  const emit = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === 'string' ? warning : warning.message;
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if ((type === 'ExperimentalWarning' || (warning as Error).name === 'ExperimentalWarning') && /SQLite/i.test(text))
      return;
    return (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return await import('node:sqlite');
  } finally {
    process.emitWarning = emit;
  }
}

/** node:sqlite binds null, numbers, bigints, strings and bytes only. */
const bindable = (v: unknown) => (v === undefined ? null : typeof v === 'boolean' ? (v ? 1 : 0) : v) as never;

class SqliteDriver implements SqlDriver {
  readonly dialect = 'sqlite' as const;
  private readonly statements = new Map<string, StatementSync>();
  /** One connection: transactions take turns (the file's lock orders them against other processes). */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly db: DatabaseSync,
    readonly describe: string,
  ) {}

  private statement(sql: string): StatementSync {
    let s = this.statements.get(sql);
    if (!s) {
      if (this.statements.size >= CACHED_STATEMENTS) this.statements.delete(this.statements.keys().next().value!);
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  private readonly runner: SchemaRunner = {
    all: async (sql, params = []) => this.statement(sql).all(...params.map(bindable)) as Array<Record<string, unknown>>,
    run: async (sql, params = []) => void this.statement(sql).run(...params.map(bindable)),
  };

  all(sql: string, params: unknown[] = []) {
    if (this.closed) return Promise.reject(new Error('the approvals ledger is closed'));
    return this.runner.all(sql, params);
  }

  transaction<T>(fn: (db: SchemaRunner) => Promise<T>): Promise<T> {
    const turn = this.queue.then(async () => {
      if (this.closed) throw new Error('the approvals ledger is closed');
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(this.runner);
        this.db.exec('COMMIT');
        return result;
      } catch (err) {
        if (this.db.isTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
    });
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.queue;
    this.closed = true;
    this.statements.clear();
    this.db.close();
  }
}

/** Opens (creating it and its folder if need be) the ledger file at `file`, migrated to the current schema. */
export async function openSqliteLedger(file: string): Promise<LedgerStore & { migrated: number[] }> {
  const { DatabaseSync } = await loadSqlite();
  const full = path.resolve(file);
  mkdirSync(path.dirname(full), { recursive: true });
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(full);
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.exec('PRAGMA journal_mode = WAL');
    // WAL with synchronous NORMAL: a committed write survives a process crash; only a power cut may lose the last ones.
    db.exec('PRAGMA synchronous = NORMAL');
  } catch (err) {
    throw new Error(`cannot open the approvals ledger ${full}: ${(err as Error).message}`);
  }
  return openSqlLedger(new SqliteDriver(db, `sqlite ${full}`));
}
