// The approvals ledger the inbox's history, review queue and report read: the one COUNTERSIGN_LEDGER_URL names,
// opened at the first read (an inbox with the ledger off still serves its other pages) and closed with the server.
import type { FastifyInstance } from 'fastify';
import { openConfiguredLedger } from '../../client/approvals/ledgerAccess';
import type { LedgerStore } from '../../storage/ledger/ledgerStore';

type LedgerOf = () => Promise<LedgerStore>;
const readers = new WeakMap<FastifyInstance, LedgerOf>();

/** The app's ledger reader, made while the routes are registered (the close hook is added then); one per app. */
export function inboxLedger(app: FastifyInstance): LedgerOf {
  const known = readers.get(app);
  if (known) return known;
  let ledger: Promise<LedgerStore> | undefined;
  const ledgerOf: LedgerOf = () => {
    if (!ledger) {
      ledger = openConfiguredLedger();
      ledger.catch(() => (ledger = undefined)); // a failed open is tried again at the next read
    }
    return ledger;
  };
  app.addHook('onClose', async () => {
    await (await ledger?.catch(() => undefined))?.close();
  });
  readers.set(app, ledgerOf);
  return ledgerOf;
}
