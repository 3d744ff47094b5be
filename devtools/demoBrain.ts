// The scripted model's default behaviour when no script is queued: a small deterministic planner that reads the
// user's request and the tools offered, and answers like a cooperative model would. It covers the demo agents' scenarios
// (email, records, weather) so `npm start` and the CLI demos work offline; other tools are planned by
// devtools/anyAgentBrain.ts (a `call <tool> {…}` message, or the tools a message names); anything else gets a plain reply.
import { DEMO_CONTACTS } from '../agents/demo/contacts';
import { planAnyAgent, type ToolSpec } from './anyAgentBrain';
import { EMAIL } from './messageValues';
import type { ScriptStep } from './scriptSteps';

export type BrainItem =
  | { kind: 'message'; role: string; text: string }
  | { kind: 'call'; callId: string; name: string; arguments: string }
  | { kind: 'output'; callId: string; output: string };

type PlannedCall = { name: string; arguments: Record<string, unknown> };

const RECORD_ID = /\b[A-Z]{2,}-\d+\b/g;
/** The tools this planner knows; requests to others go to the planner for any agent. */
const KNOWN_TOOLS: ReadonlySet<string> = new Set([
  'send_email',
  'lookup_contact',
  'delete_record',
  'get_temperature',
  'get_weather',
]);

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function subjectOf(text: string): string {
  const about = /\babout (?:the )?(.+?)(?:[.?!]|,| and (?:delete|remove)\b|$)/i.exec(text);
  if (about) return capitalise(about[1]!.trim());
  const sendThe = /\bsend (?:the |a |an )?(.+?) to\b/i.exec(text);
  if (sendThe && !sendThe[1]!.match(/^(an? )?e-?mail$/i)) return capitalise(sendThe[1]!.trim());
  return 'Message from your assistant';
}

/** Names after "to"/"email" that are not addresses, e.g. "send the report to alice" → alice. */
function recipientNames(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/\b(?:to|email|e-mail|mail|message|look ?up)\s+([A-Za-z][A-Za-z'-]*)/gi)) {
    const name = m[1]!.toLowerCase();
    if (
      !['the', 'a', 'an', 'my', 'our', 'me', 'him', 'her', 'them', 'about', 'send', 'delete', 'remove'].includes(name)
    )
      names.add(name);
  }
  return [...names];
}

function citiesOf(text: string): string[] {
  const m =
    /\b(?:in|for|at)\s+((?:[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*)(?:(?:\s*,\s*|\s+and\s+)(?:[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*))*)/.exec(
      text,
    );
  if (!m) return [];
  return m[1]!
    .split(/\s*,\s*|\s+and\s+/)
    .map((c) => c.trim())
    .filter(Boolean);
}

function planFromRequest(text: string, tools: Set<string>): PlannedCall[] {
  const calls: PlannedCall[] = [];
  const wantsEmail = tools.has('send_email') && /\b(send|e-?mail|mail|write to)\b/i.test(text);
  const wantsDelete = tools.has('delete_record') && /\b(delete|remove)\b/i.test(text);
  if (wantsEmail) {
    const subject = subjectOf(text);
    const body = text;
    const addresses = text.match(EMAIL) ?? [];
    const explicitLookup = /\blook ?up\b/i.test(text);
    for (const to of addresses) calls.push({ name: 'send_email', arguments: { to, subject, body } });
    if (addresses.length === 0) {
      for (const name of recipientNames(text)) {
        const known = DEMO_CONTACTS[name];
        if (known && !explicitLookup) calls.push({ name: 'send_email', arguments: { to: known, subject, body } });
        else if (tools.has('lookup_contact')) calls.push({ name: 'lookup_contact', arguments: { name } });
      }
    }
  } else if (tools.has('lookup_contact') && /\blook ?up\b/i.test(text)) {
    for (const name of recipientNames(text)) calls.push({ name: 'lookup_contact', arguments: { name } });
  }
  if (wantsDelete) {
    const ids =
      text.match(RECORD_ID) ?? [/\brecord\s+(\S+?)[.,!?]?(?:\s|$)/i.exec(text)?.[1]].filter((x): x is string => !!x);
    for (const record_id of ids) calls.push({ name: 'delete_record', arguments: { record_id } });
  }
  const cities = citiesOf(text);
  if (tools.has('get_temperature') && /\btemperature\b/i.test(text))
    for (const city of cities) calls.push({ name: 'get_temperature', arguments: { city } });
  if (tools.has('get_weather') && /\bweather\b/i.test(text))
    for (const city of cities) calls.push({ name: 'get_weather', arguments: { city } });
  return calls;
}

/**
 * The reply for a conversation: new tool calls, or a final text that quotes every tool result of this request.
 * `specs` are the offered tools with their descriptions and JSON schemas (default: the names alone).
 */
export function demoReply(
  items: BrainItem[],
  toolNames: string[],
  specs: ToolSpec[] = toolNames.map((name) => ({ name })),
): ScriptStep {
  const tools = new Set(toolNames);
  let lastUser = -1;
  items.forEach((it, i) => {
    if (it.kind === 'message' && it.role === 'user') lastUser = i;
  });
  const request = lastUser >= 0 ? (items[lastUser] as { text: string }).text : '';
  const since = items.slice(lastUser + 1);
  const calls = since.filter((i): i is Extract<BrainItem, { kind: 'call' }> => i.kind === 'call');
  const outputs = new Map(since.flatMap((i) => (i.kind === 'output' ? [[i.callId, i.output] as const] : [])));

  if (calls.length === 0) {
    const planned = planFromRequest(request, tools);
    if (planned.length > 0) return { toolCalls: planned };
    const any = planAnyAgent(request, specs, KNOWN_TOOLS);
    if (any) return any;
    const offer = toolNames.length ? ` I can use: ${toolNames.join(', ')}.` : '';
    return { text: `You said: "${request}".${offer}` };
  }

  // A looked-up address the user wanted to write to, and no email sent to it yet: send it now.
  if (tools.has('send_email') && /\b(send|e-?mail|mail)\b/i.test(request)) {
    const sentTo = new Set(
      calls.filter((c) => c.name === 'send_email').map((c) => String(safeJson(c.arguments).to ?? '')),
    );
    const followUps: PlannedCall[] = [];
    for (const c of calls.filter((c) => c.name === 'lookup_contact')) {
      const address = outputs.get(c.callId)?.match(EMAIL)?.[0];
      if (address && !sentTo.has(address))
        followUps.push({ name: 'send_email', arguments: { to: address, subject: subjectOf(request), body: request } });
    }
    if (followUps.length > 0) return { toolCalls: followUps };
  }
  return { text: calls.map((c) => `${c.name}: ${outputs.get(c.callId) ?? '(no result)'}`).join('\n') };
}

function safeJson(s: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(s);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
