// COUNTERSIGN_LEDGER_URL to a store: a path is an SQLite file (the default, .temporal/ledger.db), postgres:// or
// postgresql:// a PostgreSQL server shared by every worker, `off` no ledger at all. Anything else is refused in one
// line. The PostgreSQL client loads only when asked for, so SQLite users never load it.
import type { LedgerStore } from './ledgerStore';

export type LedgerTarget = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string } | { kind: 'off' };

/** What a ledger URL names, or a one-line reason it names nothing. */
export function ledgerTarget(url: string): LedgerTarget {
  const value = url.trim();
  if (!value) throw new Error('COUNTERSIGN_LEDGER_URL is empty: give a file path, a postgres:// URL or off');
  if (value.toLowerCase() === 'off') return { kind: 'off' };
  if (/^postgres(ql)?:\/\//i.test(value)) {
    try {
      new URL(value);
    } catch {
      throw new Error(`COUNTERSIGN_LEDGER_URL ${redacted(value)} is not a valid postgres:// URL`);
    }
    return { kind: 'postgres', url: value };
  }
  if (value.startsWith('file://')) return { kind: 'sqlite', file: decodeURIComponent(new URL(value).pathname) };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value))
    throw new Error(
      `COUNTERSIGN_LEDGER_URL ${redacted(value)}: only a file path (SQLite), postgres:// or postgresql:// or off are understood`,
    );
  return { kind: 'sqlite', file: value };
}

/** The URL without its password, for messages and `describe`. */
export function redacted(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}

/**
 * Opens the ledger `url` names (undefined for `off`), its schema migrated. The store's module loads here, with
 * require rather than import(): the CLI and `npm start` run under tsx, whose CommonJS hook does not cover import().
 */
export async function openLedger(url: string): Promise<LedgerStore | undefined> {
  const target = ledgerTarget(url);
  if (target.kind === 'off') return undefined;
  if (target.kind === 'sqlite')
    return (require('./sqliteLedger') as typeof import('./sqliteLedger')).openSqliteLedger(target.file);
  return (require('./pgLedger') as typeof import('./pgLedger')).openPgLedger(target.url);
}
