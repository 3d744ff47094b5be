// The newest records of a filter, for views that show the latest N of a ledger that may hold years of calls (the
// inbox's history): the ledger pages oldest first, so this finds, by the report's counts (indexed aggregates), a
// start time after which between N and 4N records lie, and reads only those. Small ledgers are read whole.
import type { Client } from '@temporalio/client';
import type { ApprovalRecord } from '../../core/approvals/approvalHistory';
import type { LedgerQuery, LedgerStore } from '../../storage/ledger/ledgerStore';
import { type ApprovalsQuery, approvalsAcross, ledgerQueryOf } from './approvalsReport';
import { withLedger } from './ledgerAccess';

const HOUR_MS = 3_600_000;
/** Steps of the search for the start time: enough to narrow a century to a second. */
const MAX_STEPS = 40;

/** How many decided (not pending) calls match `q`. */
async function decidedCount(ledger: LedgerStore, q: LedgerQuery): Promise<number> {
  const r = await ledger.report(q);
  return r.total - (r.byOutcome.pending ?? 0);
}

/** A start time after which between `n` and 4n decided records lie, or undefined: read them all. */
async function startFor(ledger: LedgerStore, q: LedgerQuery, n: number): Promise<string | undefined> {
  const end = q.untilIso ? Date.parse(q.untilIso) : Date.now() + HOUR_MS;
  const floor = q.sinceIso ? Date.parse(q.sinceIso) : 0;
  const count = (at: number) => decidedCount(ledger, { ...q, sinceIso: new Date(at).toISOString() });
  // Widen from an hour back, four times each step, until the window holds n; then narrow it to at most 4n.
  let [near, span] = [end, HOUR_MS];
  for (let step = 0; step < MAX_STEPS; step++, span *= 4) {
    const far = Math.max(floor, end - span);
    const c = await count(far);
    if (c >= n && c <= 4 * n) return new Date(far).toISOString();
    if (c > 4 * n) {
      let [lo, hi] = [far, near]; // count(lo) > 4n, count(hi) < n
      for (let i = 0; i < MAX_STEPS && hi - lo > 1; i++) {
        const mid = Math.floor((lo + hi) / 2);
        const m = await count(mid);
        if (m >= n && m <= 4 * n) return new Date(mid).toISOString();
        if (m > 4 * n) lo = mid;
        else hi = mid;
      }
      return new Date(lo).toISOString(); // a burst within a millisecond: read it
    }
    if (far === floor) return undefined;
    near = far;
  }
  return undefined;
}

/** The newest `n` decided records matching `f`, newest first, and how many match in all. */
export async function newestDecided(
  client: Client | undefined,
  f: ApprovalsQuery,
  n: number,
): Promise<{ records: ApprovalRecord[]; total: number }> {
  const q = ledgerQueryOf(f);
  return withLedger(f.ledger, async (ledger) => {
    const total = await decidedCount(ledger, q);
    const since = total > 4 * n ? await startFor(ledger, q, n) : undefined;
    const read = await approvalsAcross(client, { ...f, ledger, ...(since ? { since } : {}) });
    const decided = read.filter((r) => r.status !== 'pending').reverse();
    return { records: decided.slice(0, n), total: Math.max(total, decided.length) };
  });
}
