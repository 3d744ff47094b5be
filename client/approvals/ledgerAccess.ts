// How the client library's readers reach the approvals ledger: the store a caller hands them, else the one
// COUNTERSIGN_LEDGER_URL names, opened for the one read and closed after it (a PostgreSQL pool would otherwise keep a
// command-line process alive). With the ledger off there is nothing to read: one line says so.
import { setting } from '../../temporal.config';
import type { LedgerStore } from '../../storage/ledger/ledgerStore';
import { CountersignError } from '../errors';

/** The store COUNTERSIGN_LEDGER_URL names (default `.temporal/ledger.db`); a one-line error when it is `off`. */
export async function openConfiguredLedger(url = setting('COUNTERSIGN_LEDGER_URL')): Promise<LedgerStore> {
  // The store loads at the first read: importing the client library opens no database driver.
  const { openLedger } = require('../../storage/ledger/ledgerUrl') as typeof import('../../storage/ledger/ledgerUrl');
  const ledger = await openLedger(url);
  if (!ledger)
    throw new CountersignError(
      'the approvals ledger is off (COUNTERSIGN_LEDGER_URL=off): set COUNTERSIGN_LEDGER_URL to the path or postgres:// URL the workers write to',
    );
  return ledger;
}

/** `fn` over `ledger`, or over the configured one, opened for it and closed after. */
export async function withLedger<T>(ledger: LedgerStore | undefined, fn: (l: LedgerStore) => Promise<T>): Promise<T> {
  if (ledger) return fn(ledger);
  const opened = await openConfiguredLedger();
  try {
    return await fn(opened);
  } finally {
    await opened.close();
  }
}
