// A run's own events as AG-UI events (the AG-UI protocol, docs/ag-ui.md): each model turn a step, its streamed text
// a text message, each tool call its start, arguments, end and result. Nothing here reads Temporal: the route feeds
// it the run's event log (merged with model deltas) and asks for the interrupts when the run pauses.
import type { RunEvent } from '../../contract/runEvents';
import { asksToRun } from '../../core/approvals/callSummary';
import type { PendingApproval } from '../../contract/runViews';

/** An AG-UI event as it goes on the wire (type in SCREAMING_SNAKE_CASE, the rest of its fields). */
export type AgUiEvent = { type: string } & Record<string, unknown>;

/** Our message ids: a front end sends them back with its history, and they are never taken for new user input. */
export const OWN_ID_PREFIX = 'cs-';

const REASONS: Record<PendingApproval['kind'], string> = {
  approval: 'tool_approval',
  input: 'user_input',
  external: 'external_result',
  guardrail: 'guardrail',
  uncertain: 'uncertain_call',
};

const oneLine = (text: string, max = 300) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
};

/** The JSON schema of a resume payload for this kind of pending item. */
function responseSchema(p: PendingApproval): Record<string, unknown> {
  if (p.kind === 'input')
    return {
      type: 'object',
      properties: Object.fromEntries((p.fields ?? []).map((f) => [f, {}])),
      required: p.fields ?? [],
    };
  if (p.kind === 'external')
    return { type: 'object', properties: { result: { type: 'string' }, error: { type: 'string' } } };
  if (p.kind === 'uncertain')
    return {
      type: 'object',
      properties: {
        decision: { enum: ['retry', 'done', 'failed'] },
        result: { type: 'string' },
        error: { type: 'string' },
      },
      required: ['decision'],
    };
  return {
    type: 'object',
    properties: {
      approved: { type: 'boolean' },
      message: { type: 'string', description: 'shown to the model when rejected' },
      ...(p.kind === 'approval'
        ? {
            editedArgs: { type: 'object', description: "the arguments to run instead of the model's" },
            alwaysApprove: { type: 'boolean' },
          }
        : {}),
    },
    required: ['approved'],
  };
}

/** One interrupt per pending item: what a front end shows and how it answers (docs/ag-ui.md, the mapping table). */
export function interruptOf(p: PendingApproval, inboxUrl?: string): Record<string, unknown> & { id: string } {
  const metadata = {
    kind: p.kind,
    toolName: p.toolName,
    arguments: p.arguments,
    ...(p.quorum ? { quorum: p.quorum } : {}),
    ...(p.approvers ? { approvers: p.approvers } : {}),
    ...(p.excludedApprover ? { excludedApprover: p.excludedApprover } : {}),
    ...(p.signedDecisions ? { signedDecisions: true } : {}),
    ...(p.fingerprint ? { fingerprint: p.fingerprint } : {}),
    ...(p.stale ? { stale: p.stale } : {}),
    ...(inboxUrl ? { inboxUrl } : {}),
  };
  return {
    id: p.callId,
    reason: REASONS[p.kind],
    // Slack's title, and the impact as the inbox and Slack label it; the whole arguments are in metadata.
    message: oneLine(
      `${asksToRun(p.agentName, p.toolName, p.arguments)}${p.preview ? ` — impact: ${p.preview.summary}` : ''}`,
    ),
    // A tripped agent guardrail is no tool call: no TOOL_CALL_START carried its id.
    ...(p.kind === 'guardrail' ? {} : { toolCallId: p.callId }),
    responseSchema: responseSchema(p),
    ...(p.expiresAt ? { expiresAt: p.expiresAt } : {}),
    metadata,
  };
}

/**
 * Turns the run's events into AG-UI events, in order. Text streams as deltas while a turn runs; the turn's durable
 * message then adds what the deltas did not carry (all of it, when the run streams none) and closes the message.
 */
export class AgUiTranslator {
  private step: string | undefined;
  private turn = 0;
  private open: { id: string; sent: string } | undefined;
  private streamed = new Map<number, string>();

  constructor(private readonly workflowId: string) {}

  private messageId(turn: number, part = ''): string {
    return `${OWN_ID_PREFIX}${this.workflowId}-t${turn}${part}`;
  }

  private closeText(out: AgUiEvent[]): void {
    if (!this.open) return;
    out.push({ type: 'TEXT_MESSAGE_END', messageId: this.open.id });
    this.open = undefined;
  }

  private text(delta: string, out: AgUiEvent[], part = ''): void {
    if (!delta) return;
    if (!this.open) {
      this.open = { id: this.messageId(this.turn, part), sent: '' };
      out.push({ type: 'TEXT_MESSAGE_START', messageId: this.open.id, role: 'assistant' });
    }
    this.open.sent += delta;
    this.streamed.set(this.turn, (this.streamed.get(this.turn) ?? '') + delta);
    out.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: this.open.id, delta });
  }

  /** Closes what is open (a text message, the step) before the run's last event. */
  finish(out: AgUiEvent[] = []): AgUiEvent[] {
    this.closeText(out);
    if (this.step) out.push({ type: 'STEP_FINISHED', stepName: this.step });
    this.step = undefined;
    return out;
  }

  /** The AG-UI events for one run event (none for those a front end has no use for). */
  translate(e: RunEvent): AgUiEvent[] {
    const out: AgUiEvent[] = [];
    switch (e.type) {
      case 'turn_started':
        this.finish(out);
        this.turn = e.turn;
        this.step = `${e.agentName} turn ${e.turn}`;
        out.push({ type: 'STEP_STARTED', stepName: this.step });
        break;
      case 'model_text_delta':
        if (e.turn === this.turn) this.text(e.delta, out);
        break;
      case 'message_output': {
        const sent = this.streamed.get(this.turn) ?? '';
        // What the deltas carried is kept; the rest (or, if they went another way, nothing more) follows.
        const rest = e.text.startsWith(sent) ? e.text.slice(sent.length) : '';
        if (rest && !this.open && sent) this.text(rest, out, '-rest');
        else this.text(rest, out);
        this.closeText(out);
        break;
      }
      case 'tool_called': {
        this.closeText(out);
        const parentMessageId = this.messageId(this.turn, `-${e.callId}`);
        out.push({ type: 'TOOL_CALL_START', toolCallId: e.callId, toolCallName: e.toolName, parentMessageId });
        if (e.arguments) out.push({ type: 'TOOL_CALL_ARGS', toolCallId: e.callId, delta: e.arguments });
        out.push({ type: 'TOOL_CALL_END', toolCallId: e.callId });
        break;
      }
      case 'tool_output':
        out.push({
          type: 'TOOL_CALL_RESULT',
          messageId: `${OWN_ID_PREFIX}${this.workflowId}-${e.callId}-result`,
          toolCallId: e.callId,
          content: e.output,
          role: 'tool',
        });
        break;
      default:
        break;
    }
    return out;
  }
}
