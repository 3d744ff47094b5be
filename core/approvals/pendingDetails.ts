// The Web UI's "current details" of a run waiting for people: one entry per waiting call, with the absolute times
// (details are read later, so nothing relative), quorum progress, and the approver's context, shortened: the run's
// request and the assistant's words before the call. The Web UI renders details as markdown, so text from the run
// is escaped to read as written (no links, emphasis or HTML of its own). Pure; safe in workflow code.
import type { PendingApproval } from '../../contract/runViews';
import { shorten, summarizeCall } from './callSummary';
import { quorumText } from './decisionText';
import { utcMinute } from '../relativeTime';

const REQUEST_SHOWN = 120;
const SAID_SHOWN = 160;

/** The characters that could make markup mid-line (emphasis, code, links, HTML, tables, entities), escaped: each renders as itself. */
export const markdownText = (s: string) => s.replace(/[\\`*_[\]<>|~&]/g, (c) => `\\${c}`);

function pendingLine(p: PendingApproval): string {
  const where = p.path ? p.path.slice(0, p.path.lastIndexOf(' > ') + 3) : '';
  const what = `${where}${summarizeCall(p.toolName, p.arguments)}${p.kind === 'uncertain' ? ' may or may not have run' : ''}`;
  const times = `${p.kind === 'uncertain' ? 'since' : 'requested'} ${utcMinute(p.requestedAt)}${p.expiresAt ? `, expires ${utcMinute(p.expiresAt)}` : ''}`;
  const context = [
    ...(p.request ? [`request: “${shorten(p.request, REQUEST_SHOWN)}”`] : []),
    ...(p.assistantSaid ? [`assistant: “${shorten(p.assistantSaid, SAID_SHOWN)}”`] : []),
  ];
  return markdownText(
    `${what} (call ${p.callId}, ${times}${p.quorum ? `, ${quorumText(p.quorum)}` : ''})${context.length ? ` — ${context.join(', ')}` : ''}`,
  );
}

/** "Awaiting approval: send_email to alice@example.com (call c1, requested 2026-11-22 10:31 UTC) — request: “…”; …" */
export function pendingDetails(pending: readonly PendingApproval[]): string {
  return `Awaiting approval: ${pending.map(pendingLine).join('; ')}`;
}
