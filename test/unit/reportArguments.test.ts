// The approvals readers' time arguments (--since/--until, --month, --older-than, --limit, --after) and the
// report's CSV: each bad value refused in one line before anything is read or deleted.
import { monthRange, olderThanIso, reportPeriod, sinceIso, timeIso } from '../../client/approvals/reportPeriod';
import { checkCursor, ledgerQueryOf, limitOf } from '../../client/approvals/approvalsReport';
import { REPORT_CSV_HEADER, csvField, durationText, reportCsv } from '../../cli/reportFormats';
import type { ComplianceReport } from '../../storage/ledger/ledgerStore';

const NOW = Date.parse('2026-11-26T12:00:00.000Z');
const oneLine = (fn: () => unknown) => {
  let message = '';
  try {
    fn();
  } catch (err) {
    message = (err as Error).message;
  }
  expect(message).not.toBe('');
  expect(message).not.toContain('\n');
  return message;
};

test('--month: the month in UTC, until exclusive; anything else is one line', () => {
  expect(monthRange('2026-11')).toEqual({
    sinceIso: '2026-11-01T00:00:00.000Z',
    untilIso: '2026-12-01T00:00:00.000Z',
  });
  expect(monthRange('2026-12')).toEqual({
    sinceIso: '2026-12-01T00:00:00.000Z',
    untilIso: '2027-01-01T00:00:00.000Z',
  });
  expect(monthRange('2024-02').untilIso).toBe('2024-03-01T00:00:00.000Z');
  for (const bad of ['2026-13', '2026-00', '2026-1', 'november', '2026-11-01', '', '26-11'])
    expect(oneLine(() => monthRange(bad))).toBe(
      `--month must be a month such as 2026-11 (YYYY-MM), got ${JSON.stringify(bad)}`,
    );
});

test('--since / --until: a duration back from now or an ISO date; the old --since message stays', () => {
  expect(timeIso('--since', '7d', NOW)).toBe('2026-11-19T12:00:00.000Z');
  expect(timeIso('--until', '2026-11-01', NOW)).toBe('2026-11-01T00:00:00.000Z');
  expect(timeIso('--since', '2026-11-01T09:30:00+01:00', NOW)).toBe('2026-11-01T08:30:00.000Z');
  expect(sinceIso('24h', NOW)).toBe('2026-11-25T12:00:00.000Z');
  expect(oneLine(() => timeIso('--since', 'soon', NOW))).toContain(
    '--since must be a duration such as 30m, 24h or 7d, got "soon"',
  );
  for (const bad of ['2026-02-30', '2026-11-01T09:00', '-1d', '0s', 'yesterday'])
    expect(oneLine(() => timeIso('--until', bad, NOW))).toMatch(/^--until must be a duration .*\(or give an ISO date/);
  expect(oneLine(() => sinceIso('2026-11-01', NOW))).toBe(
    '--since must be a duration such as 30m, 24h or 7d, got "2026-11-01"',
  );
  expect(reportPeriod({ since: '2026-11-01', until: '2026-11-15' }, NOW)).toEqual({
    sinceIso: '2026-11-01T00:00:00.000Z',
    untilIso: '2026-11-15T00:00:00.000Z',
  });
  expect(reportPeriod({}, NOW)).toEqual({});
  expect(oneLine(() => reportPeriod({ month: '2026-11', since: '7d' }, NOW))).toBe(
    'give either --month or --since/--until, not both',
  );
  expect(oneLine(() => reportPeriod({ since: '1d', until: '7d' }, NOW))).toMatch(
    /^--since \(.*\) must be before --until/,
  );
  expect(oneLine(() => ledgerQueryOf({ since: '2026-11-02', until: '2026-11-01' }, NOW))).toMatch(/must be before/);
});

test('--older-than: calendar years and months, days, hours; less than a day is refused', () => {
  expect(olderThanIso('7y', NOW)).toBe('2019-11-26T12:00:00.000Z');
  expect(olderThanIso('18mo', NOW)).toBe('2025-05-26T12:00:00.000Z');
  expect(olderThanIso('90d', NOW)).toBe('2026-08-28T12:00:00.000Z');
  expect(olderThanIso('24h', NOW)).toBe('2026-11-25T12:00:00.000Z');
  expect(olderThanIso('1d', NOW)).toBe('2026-11-25T12:00:00.000Z');
  for (const bad of ['23h', '0d', '0y', '0mo'])
    expect(oneLine(() => olderThanIso(bad, NOW))).toBe(
      `--older-than must be at least 1d, got ${JSON.stringify(bad)}: prune keeps the last day`,
    );
  for (const bad of ['7 years', '7Y', '1.5y', '-1y', '7m', '', 'y'])
    expect(oneLine(() => olderThanIso(bad, NOW))).toMatch(/^--older-than must be a whole number of years/);
});

test('--limit and --after, and the plain-name filters', () => {
  expect(limitOf(undefined)).toBeUndefined();
  expect(limitOf('50')).toBe(50);
  expect(limitOf(10_000)).toBe(10_000);
  for (const bad of ['0', '-1', '1.5', 'ten', '10001', ''])
    expect(oneLine(() => limitOf(bad))).toMatch(/^--limit must be a whole number from 1 to 10000, got/);
  expect(() => checkCursor('eyJ0IjoiMjAyNi0xMSJ9_-')).not.toThrow();
  expect(oneLine(() => checkCursor("x' OR 1=1"))).toMatch(/^--after must be the cursor a page printed last/);
  expect(oneLine(() => ledgerQueryOf({ tool: 'a b' }))).toMatch(/^tool must be a plain name/);
  expect(oneLine(() => ledgerQueryOf({ taskQueue: "q' OR 'x" }))).toMatch(/^task queue must be a plain name/);
});

test('CSV fields: quoted when they hold a comma, quote or line break; formulas defused', () => {
  expect(csvField('plain')).toBe('plain');
  expect(csvField('a,b')).toBe('"a,b"');
  expect(csvField('say "hi"')).toBe('"say ""hi"""');
  expect(csvField('two\nlines')).toBe('"two\nlines"');
  expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
  expect(csvField('+1')).toBe("'+1");
  expect(csvField('@ann')).toBe("'@ann");
  expect(csvField(-3)).toBe('-3');
  expect(csvField(0.5)).toBe('0.5');
  expect(csvField(null)).toBe('');
});

test('the report as CSV: one header, the totals, then each tool and approver', () => {
  const group = (total: number, byOutcome: Record<string, number>, rate: number | null, p50: number | null) => ({
    total,
    byOutcome,
    approvalRate: rate,
    timeToDecisionMs: { p50, p95: p50 === null ? null : p50 * 2 },
  });
  const report: ComplianceReport = {
    ...group(3, { approved: 2, rejected: 1 }, 2 / 3, 1500),
    byTool: { send_email: group(3, { approved: 2, rejected: 1 }, 2 / 3, 1500) },
    byApprover: { 'ann, the "boss"': group(2, { approved: 2 }, 1, 1000), bob: group(1, { rejected: 1 }, 0, 2000) },
  };
  const lines = reportCsv(report).split('\r\n');
  expect(lines.at(-1)).toBe('');
  expect(lines[0]).toBe(REPORT_CSV_HEADER.join(','));
  expect(lines[0]).toMatch(
    /^group,name,total,pending,approved,rejected,.*,approval_rate,time_to_decision_p50_ms,time_to_decision_p95_ms$/,
  );
  const cols = REPORT_CSV_HEADER.length;
  const at = (line: string, name: string) => line.split(',')[REPORT_CSV_HEADER.indexOf(name)];
  expect(lines[1]!.split(',')).toHaveLength(cols);
  expect([
    at(lines[1]!, 'group'),
    at(lines[1]!, 'total'),
    at(lines[1]!, 'approved'),
    at(lines[1]!, 'rejected'),
  ]).toEqual(['total', '3', '2', '1']);
  expect(at(lines[1]!, 'approval_rate')).toBe('0.666667');
  expect(at(lines[1]!, 'time_to_decision_p95_ms')).toBe('3000');
  expect(lines[2]).toMatch(/^tool,send_email,3,/);
  expect(lines[3]).toMatch(/^approver,"ann, the ""boss""",2,0,2,/);
  expect(lines[4]).toMatch(/^approver,bob,1,0,0,1,/);
  expect(lines).toHaveLength(6);
  expect(durationText(850)).toBe('850ms');
  expect(durationText(12_340)).toBe('12.3s');
  expect(durationText(3 * 3_600_000 + 5 * 60_000)).toBe('3h 5m');
  expect(durationText(null)).toBe('-');
});
