// A test's own approvals ledger: a SQLite file in a temporary folder, named in this process's environment
// (COUNTERSIGN_LEDGER_URL), so the readers (the library, an in-process inbox, `countersign` child processes through
// cliEnv) find the ledger the test's workers write (startHarness({ ledgerUrl })).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { unpack } from '../../storage/ledger/ledgerCompact';

export function testLedgerUrl(): string {
  const url = join(mkdtempSync(join(tmpdir(), 'countersign-ledger-')), 'ledger.db');
  process.env.COUNTERSIGN_LEDGER_URL = url;
  return url;
}

/** A ledger entry's record as a test reads it: the decision and who asked. */
export type LedgerRecord = {
  decision: string;
  requestedBy?: string;
  outcome?: Record<string, unknown>;
  message?: string;
};

/**
 * The records of a run in a SQLite ledger (the entries table, as a gateway's or worker's process wrote them), in
 * order, once `count` are there.
 */
export async function ledgerRecordsOf(ledgerFile: string, workflowId: string, count: number): Promise<LedgerRecord[]> {
  for (let i = 0; i < 100; i++) {
    const db = new DatabaseSync(ledgerFile, { readOnly: true });
    try {
      const rows = db
        .prepare(
          'SELECT e.body FROM ledger_entries e JOIN ledger_chains h ON h.id = e.chain WHERE h.workflow_id = ? ORDER BY e.seq',
        )
        .all(workflowId)
        .map((r) => JSON.parse(unpack(r.body as Uint8Array)) as LedgerRecord); // the record alone, packed (schema 4)
      if (rows.length >= count) return rows;
    } finally {
      db.close();
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`fewer than ${count} ledger rows for ${workflowId}`);
}
