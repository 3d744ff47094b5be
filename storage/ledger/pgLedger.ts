// The approvals ledger on PostgreSQL, for clusters: every worker writes to one ledger through a `pg` pool. Writes to
// one chain take turns on a transaction-scoped advisory lock (two workers may retry the same write: the second finds
// the entries kept and skips them); call rows are read FOR UPDATE, so a review and its run never overwrite each
// other's fold. A deadlock or serialization failure is retried; a server that is down fails the write (the activity
// retries it) and shows on ping.
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { SchemaRunner } from './ledgerSchema';
import { type SqlDriver, openSqlLedger } from './sqlLedger';
import type { LedgerStore } from './ledgerStore';
import { redacted } from './ledgerUrl';

const POOL_SIZE = 10;
const CONNECT_TIMEOUT_MS = 5_000;
const RETRIED = new Set(['40P01', '40001']);
/** The server closed the connection (a restart): the pool may still hold such connections; a fresh one works. */
const DROPPED = new Set(['57P01', '57P02', '57P03', 'ECONNRESET', 'EPIPE']);
const dropped = (err: unknown): boolean =>
  DROPPED.has((err as { code?: string }).code ?? '') || /Connection terminated/i.test((err as Error).message ?? '');
const retried = (err: unknown, attempt: number): boolean =>
  (attempt < 5 && RETRIED.has((err as { code?: string }).code ?? '')) || (attempt < 3 && dropped(err));

/** `?` placeholders (the SQL the stores share) as PostgreSQL's $1, $2, … */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** A 64-bit advisory lock key for a name (SHA-256's first 8 bytes, signed). */
const lockKey = (name: string): string =>
  createHash('sha256').update(`countersign-ledger\n${name}`).digest().readBigInt64BE(0).toString();

type Row = Record<string, unknown>;

class PgDriver implements SqlDriver {
  readonly dialect = 'postgres' as const;

  constructor(
    private readonly pool: pg.Pool,
    readonly describe: string,
  ) {}

  async all(sql: string, params: unknown[] = []): Promise<Row[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.pool.query(numbered(sql), params)).rows as Row[];
      } catch (err) {
        if (!retried(err, attempt)) throw err;
      }
    }
  }

  async transaction<T>(fn: (db: SchemaRunner) => Promise<T>, locks: string[]): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(fn, locks);
      } catch (err) {
        if (!retried(err, attempt)) throw err;
      }
    }
  }

  private async once<T>(fn: (db: SchemaRunner) => Promise<T>, locks: string[]): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      // Always in one order, so two writers never wait on each other's second lock.
      for (const key of [...new Set(locks.map(lockKey))].sort())
        await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [key]);
      const db: SchemaRunner = {
        all: async (sql, params = []) => (await client.query(numbered(sql), params)).rows as Row[],
        run: async (sql, params = []) => void (await client.query(numbered(sql), params)),
      };
      const result = await fn(db);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      if (dropped(err)) broken = err as Error;
      else await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw err;
    } finally {
      client.release(broken);
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** Connects to the ledger at `url` (its schema migrated under a lock, so workers starting together migrate once). */
export async function openPgLedger(url: string): Promise<LedgerStore & { migrated: number[] }> {
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // An idle connection dropped by a restarting server is replaced on the next query; it must not end the process.
  pool.on('error', () => undefined);
  try {
    return await openSqlLedger(new PgDriver(pool, `postgres ${redacted(url)}`));
  } catch (err) {
    // The message names the server without its password.
    throw new Error(`cannot open the approvals ledger ${redacted(url)}: ${(err as Error).message.split('\n')[0]}`);
  }
}
