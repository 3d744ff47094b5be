// GET /history: decided calls across the runs of the inbox's task queue, read from the approvals ledger by the same
// reader as `countersign approvals` (client/approvals/approvalsReport.ts); GET /report: the compliance report of
// `countersign approvals report` for a month or a period. Filters are checked before anything is read: a bad one
// gets its one-line error on the page (400) and nothing is read.
import type { FastifyInstance } from 'fastify';
import { APPROVAL_STATUSES, type ApprovalStatus } from '../../core/approvals/approvalHistory';
import { complianceReport, newestDecided, sinceIso } from '../../client/approvals/approvalsReport';
import { reportPeriod } from '../../client/approvals/reportPeriod';
import { QUERY_NAME } from '../../client/visibility';
import { HISTORY_ROWS, type HistoryFilter, historyPage } from './historyPage';
import type { InboxContext } from './inboxServer';
import { inboxLedger } from './inboxLedger';
import { type ReportFilter, reportPage } from './reportPage';

/** Every outcome but `pending`: the history holds calls that no longer wait. */
export const DECIDED_STATUSES = APPROVAL_STATUSES.filter((s) => s !== 'pending');

/** Whether the reader takes it as its `since` (a positive duration). */
const readableSince = (s: string) => {
  try {
    return Boolean(sinceIso(s));
  } catch {
    return false;
  }
};

/** The filter's one-line problem, or undefined when every value is usable. */
export function historyFilterProblem(f: HistoryFilter): string | undefined {
  if (f.status && !(DECIDED_STATUSES as readonly string[]).includes(f.status))
    return `outcome ${JSON.stringify(f.status)} is not one of ${DECIDED_STATUSES.join(', ')}: pick one from the list`;
  for (const key of ['agent', 'tool'] as const) {
    const v = f[key];
    if (v && !(v.length <= 200 && QUERY_NAME.test(v)))
      return `${key} ${JSON.stringify(v.slice(0, 200))} is not a plain name: use letters, digits and _ . @ - only`;
  }
  if (f.approver && f.approver.length > 200) return 'approver is longer than 200 characters: shorten it';
  if (f.since && !readableSince(f.since))
    return `since ${JSON.stringify(f.since.slice(0, 200))} is not a duration: use one such as 30m, 24h or 7d`;
  return undefined;
}

/** The query string's filters: empty fields (a GET form sends them) are unset; a repeated one is a problem. */
function filterOf<K extends string>(
  query: Record<string, unknown>,
  keys: readonly K[],
): Partial<Record<K, string>> | string {
  const f: Partial<Record<K, string>> = {};
  for (const key of keys) {
    const v = query[key];
    if (Array.isArray(v)) return `${key} is given more than once: give it once`;
    if (typeof v === 'string' && v.trim()) f[key] = v.trim();
  }
  return f;
}

/** This month (UTC), the report page's default period. */
const thisMonth = (now = new Date()) => now.toISOString().slice(0, 7);

/** The report's period problem in one line, or undefined. */
function periodProblem(f: ReportFilter): string | undefined {
  try {
    reportPeriod(f);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

export function addHistoryRoutes(app: FastifyInstance, ctx: InboxContext): void {
  const ledger = inboxLedger(app);
  app.get<{ Querystring: Record<string, unknown> }>('/history', async (req, reply) => {
    const parsed = filterOf(req.query ?? {}, ['status', 'agent', 'tool', 'approver', 'since'] as const);
    const filter = typeof parsed === 'string' ? {} : parsed;
    const problem = typeof parsed === 'string' ? parsed : historyFilterProblem(parsed);
    const page = { approver: req.identity.approver, filter, statuses: DECIDED_STATUSES };
    if (problem)
      return reply
        .code(400)
        .type('text/html')
        .send(historyPage({ ...page, error: problem }));
    // Only the newest rows the page shows are read, however many years the ledger holds.
    const { records, total } = await newestDecided(
      {
        ...filter,
        status: filter.status as ApprovalStatus | undefined,
        taskQueue: ctx.runner.taskQueue,
        ledger: await ledger(),
      },
      HISTORY_ROWS,
    );
    return reply.type('text/html').send(historyPage({ ...page, records: records.reverse(), total }));
  });

  app.get<{ Querystring: Record<string, unknown> }>('/report', async (req, reply) => {
    const parsed = filterOf(req.query ?? {}, ['month', 'since', 'until'] as const);
    const typed = typeof parsed === 'string' ? {} : parsed;
    const filter = typed.month || typed.since || typed.until ? typed : { month: thisMonth() };
    const problem = typeof parsed === 'string' ? parsed : periodProblem(filter);
    const page = { approver: req.identity.approver, filter };
    if (problem)
      return reply
        .code(400)
        .type('text/html')
        .send(reportPage({ ...page, error: problem }));
    const report = await complianceReport(ctx.runner.client, {
      ...filter,
      taskQueue: ctx.runner.taskQueue,
      ledger: await ledger(),
    });
    return reply.type('text/html').send(reportPage({ ...page, report }));
  });
}
