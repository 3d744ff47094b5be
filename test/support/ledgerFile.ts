// A test's own approvals ledger: a SQLite file in a temporary folder, named in this process's environment
// (COUNTERSIGN_LEDGER_URL), so the readers (the library, an in-process inbox, `countersign` child processes through
// cliEnv) find the ledger the test's workers write (startHarness({ ledgerUrl })).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function testLedgerUrl(): string {
  const url = join(mkdtempSync(join(tmpdir(), 'countersign-ledger-')), 'ledger.db');
  process.env.COUNTERSIGN_LEDGER_URL = url;
  return url;
}
