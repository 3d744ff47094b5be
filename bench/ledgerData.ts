// The ledger bench's data: a year of decisions as runs would write them, deterministic (a seeded generator), with a
// realistic mix: most calls approved by a person, some rejected, rules and grants deciding others, a few quorums,
// extensions, expiries, cancellations and audit-only calls; a handful of tools and agents doing most of the work, a
// few dozen approvers. Each run is one LedgerWrite of its whole audit (as a backfill writes it), oldest first.
import type { LedgerEntry, LedgerWrite } from '../contract/ledgerRecords';

/** The year the records span: the 12 months up to and including this month. */
export const LAST_MONTH = '2026-11';
const YEAR_START = Date.parse('2025-12-01T00:00:00Z');
const YEAR_END = Date.parse('2026-12-01T00:00:00Z');

export const TOOLS = [
  'send_email',
  'refund_payment',
  'delete_record',
  'wire_money',
  'update_crm',
  'create_ticket',
  'deploy_service',
  'grant_access',
  'post_message',
  'issue_credit',
  'close_account',
  'export_report',
];
const AGENTS = ['billing', 'support', 'ops', 'sales', 'email-assistant', 'security'];
const QUEUES = ['countersign', 'countersign-eu', 'countersign-batch'];
export const APPROVERS = Array.from({ length: 40 }, (_, i) => `approver-${String(i + 1).padStart(2, '0')}`);

/** mulberry32: small, fast, good enough to shape test data the same way every time. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A skewed pick: the first items are chosen far more often (roughly Zipf). */
const skewed = <T>(items: readonly T[], r: number): T =>
  items[Math.min(items.length - 1, Math.floor(items.length * r * r))]!;

/** A human wait: seconds to a day or so, log-normal-ish (median about 4 minutes). */
const humanWaitMs = (rnd: () => number) => Math.round(Math.exp(5.5 + 2 * (rnd() + rnd() + rnd() - 1.5)) * 1000);

const digest = (rnd: () => number) =>
  Buffer.from(Array.from({ length: 32 }, () => Math.floor(rnd() * 256))).toString('base64url');

type Draft = Omit<LedgerEntry, 'seq'>;

/** The entries one call leaves in its run's audit, requested at `at`. */
function callEntries(rnd: () => number, callId: string, toolName: string, at: number): Draft[] {
  const requestedAt = new Date(at).toISOString();
  const when = (ms: number) => new Date(at + ms).toISOString();
  const who = () => skewed(APPROVERS, rnd());
  const base = { callId, toolName, requestedAt, argumentsDigest: digest(rnd) };
  const wait = humanWaitMs(rnd);
  const r = rnd();
  if (r < 0.05) {
    // A quorum of two: one counted approval, then the deciding one.
    const [a, b] = [who(), APPROVERS[(APPROVERS.indexOf(who()) + 7) % APPROVERS.length]!];
    return [
      {
        ...base,
        decision: 'approval_counted',
        approver: a,
        decidedAt: when(wait),
        via: 'update',
        quorum: { needed: 2, approvedBy: [a] },
      },
      {
        ...base,
        decision: 'approved',
        approver: b,
        decidedAt: when(wait * 2),
        via: 'update',
        quorum: { needed: 2, approvedBy: [a, b] },
      },
    ];
  }
  if (r < 0.6) {
    const signed = rnd() < 0.15;
    const approver = who();
    return [
      {
        ...base,
        decision: 'approved',
        approver,
        decidedAt: when(wait),
        via: rnd() < 0.7 ? 'update' : 'signal',
        ...(signed ? { verified: true as const, keyId: `${approver}-2026`, jti: digest(rnd).slice(0, 16) } : {}),
      },
    ];
  }
  if (r < 0.69)
    return [
      { ...base, decision: 'rejected', approver: who(), decidedAt: when(wait), via: 'update', reason: 'not this one' },
    ];
  if (r < 0.81)
    return [{ ...base, decision: 'auto_approved', decidedAt: when(5), via: rnd() < 0.5 ? 'rule' : 'onApproval' }];
  if (r < 0.83)
    return [{ ...base, decision: 'auto_rejected', decidedAt: when(5), via: 'onApproval', reason: 'over the limit' }];
  if (r < 0.88)
    return [
      {
        ...base,
        decision: 'granted',
        approver: who(),
        grantId: `grant-${Math.floor(rnd() * 50)}`,
        decidedAt: when(10),
        via: 'grant',
      },
    ];
  if (r < 0.9) {
    const approver = who();
    return [
      {
        ...base,
        decision: 'extended',
        approver,
        extendedBy: '1d',
        expiresAt: when(2 * 86_400_000),
        decidedAt: when(wait),
        via: 'update',
      },
      { ...base, decision: 'approved', approver, decidedAt: when(wait * 3), via: 'update' },
    ];
  }
  if (r < 0.93)
    return [{ ...base, decision: 'expired', decidedAt: when(86_400_000), via: 'timer', onTimeout: 'reject' }];
  if (r < 0.94)
    return [{ ...base, decision: 'timed_out', decidedAt: when(3_600_000), via: 'timer', onTimeout: 'approve' }];
  if (r < 0.96) return [{ ...base, decision: 'cancelled', decidedAt: when(wait), via: 'run' }];
  return [{ ...base, decision: 'audited', decidedAt: when(20), via: 'run', review: true }];
}

/**
 * Runs' writes until `entries` entries are written in all: each run has 1–15 calls (about 8 on average) and starts at
 * a moment of the year (more on weekdays' working hours); `prefix` keeps two data sets apart.
 */
export function* yearOfWrites(entries: number, seed = 35, prefix = 'bench'): Generator<LedgerWrite> {
  const rnd = seeded(seed);
  let written = 0;
  for (let run = 0; written < entries; run++) {
    let at = YEAR_START + rnd() * (YEAR_END - YEAR_START - 3 * 86_400_000);
    const day = new Date(at).getUTCDay();
    if ((day === 0 || day === 6) && rnd() < 0.7) at -= 2 * 86_400_000; // fewer runs at weekends
    const agent = skewed(AGENTS, rnd());
    const calls = 1 + Math.floor(rnd() * rnd() * 15 + rnd() * 5);
    const drafts: Draft[] = [];
    for (let c = 0; c < calls && written + drafts.length < entries; c++) {
      drafts.push(...callEntries(rnd, `call-${c + 1}`, skewed(TOOLS, rnd()), at));
      at += 2_000 + rnd() * 60_000;
    }
    const kept = drafts.slice(0, entries - written);
    written += kept.length;
    yield {
      workflowId: `${prefix}-run-${run}`,
      chainId: `${prefix}-chain-${run}`,
      taskQueue: skewed(QUEUES, rnd()),
      agent,
      entries: kept.map((e, i) => ({ ...e, seq: i + 1 })),
      closed: true,
    };
  }
}
