// How the inbox decides for a person: the decision from a form or the API, the approver from the request's identity
// (never from the body), signed with the approver's key when the server holds one (required where the call needs a
// signed decision), then sent through the validating `decide` update like any client's.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Decision } from '../../contract/messages';
import type { DecideResult, PendingApproval } from '../../contract/runViews';
import { type NamesKnown, approverNameProblem, sameApprover } from '../../contract/approverName';
import { buildDecision } from '../../client/approvals/decisionBuilder';
import type { Runner } from '../../client/run/runner';
import { CountersignError } from '../../client/errors';

/** A form or API body that is not a decision: one line saying what to fix, a client-library error like the run's refusals. */
export class DecisionProblem extends CountersignError {
  override name = 'DecisionProblem';
}

/** A form post as a decision, or a DecisionProblem saying what to fix. */
export function decisionFromForm(body: Record<string, unknown>): Decision {
  const text = (k: string) => (typeof body[k] === 'string' ? (body[k] as string) : undefined);
  const callId = text('callId');
  if (!callId) throw new DecisionProblem('the form names no call');
  const action = text('action');
  const seen = text('fingerprint') !== undefined ? { fingerprint: text('fingerprint')! } : {};
  if (action === 'approve') return { callId, decision: 'approve', ...seen };
  if (action === 'reject')
    return { callId, decision: 'reject', ...(text('message') ? { message: text('message')! } : {}), ...seen };
  if (action === 'edit') {
    let edited: unknown;
    try {
      edited = JSON.parse(text('editedArguments') ?? '');
    } catch (err) {
      throw new DecisionProblem(`the edited arguments are not valid JSON: ${(err as Error).message}`);
    }
    if (!edited || typeof edited !== 'object' || Array.isArray(edited))
      throw new DecisionProblem('the edited arguments must be a JSON object');
    return { callId, decision: 'approve', editedArguments: edited as Record<string, unknown>, ...seen };
  }
  if (action === 'input') {
    const values = Object.fromEntries(
      Object.entries(body)
        .filter(([k, v]) => k.startsWith('field:') && typeof v === 'string')
        .map(([k, v]) => [k.slice('field:'.length), parseValue(v as string)]),
    );
    return { callId, decision: 'input', values };
  }
  if (action === 'retry') return { callId, decision: 'retry' };
  if (action === 'done') return { callId, decision: 'done', result: text('result') ?? '' };
  if (action === 'failed') return { callId, decision: 'failed', error: text('error') || 'a person marked it failed' };
  if (action === 'result') {
    const error = text('error');
    return error ? { callId, decision: 'result', error } : { callId, decision: 'result', result: text('result') ?? '' };
  }
  throw new DecisionProblem('the form asks for no known action');
}

/** A typed value: JSON where it parses (numbers, true, objects), the text otherwise. */
function parseValue(v: string): unknown {
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

export class Decider {
  constructor(
    private readonly runner: Runner,
    /** Where `<approver>.private.jwk` files are (--keys-dir): the server signs for those approvers. */
    private readonly keysDir?: string,
    /** The approvers the inbox knows; each call adds its approvers list and who approved it so far. */
    private readonly names: NamesKnown = {},
  ) {}

  private keyFile(approver: string): string | undefined {
    // A name is a file name here only when it cannot leave the folder (a verified email is fine; `../x` never).
    if (!this.keysDir || /[/\\]|^\./.test(approver)) return undefined;
    const file = join(this.keysDir, `${approver}.private.jwk`);
    return existsSync(file) ? file : undefined;
  }

  /** Decisions by `approver` on run `workflowId`: approver set, signed where a key is held, sent. `known`: the run's pending calls, read just now. */
  async decide(
    workflowId: string,
    decisions: Decision[],
    approver: string,
    known?: PendingApproval[],
  ): Promise<DecideResult> {
    return this.runner.decide(workflowId, await this.prepare(workflowId, decisions, approver, known));
  }

  /** The decisions as `decide` sends them, without sending them (to go in one batch with others). */
  async prepare(
    workflowId: string,
    decisions: Decision[],
    approver: string,
    known?: PendingApproval[],
  ): Promise<Decision[]> {
    let pending = known;
    const out: Decision[] = [];
    for (const d of decisions) {
      if (d.approver !== undefined && !sameApprover(d.approver, approver))
        throw new DecisionProblem(
          `the approver comes from your identity (${approver}), not from the request: leave approver out`,
        );
      if (d.token !== undefined)
        throw new DecisionProblem(
          'send decisions without a token: the server signs them with your key if it holds one',
        );
      const mine: Decision = { ...d, approver };
      const refuse = (message: string) => new DecisionProblem(message);
      if (mine.decision !== 'approve' && mine.decision !== 'reject') {
        out.push(buildDecision(mine, { refuse }));
        continue;
      }
      pending ??= await this.runner.pending(workflowId);
      const call = pending.find((p) => p.callId === mine.callId);
      const known = [...(this.names.known ?? []), ...(call?.approvers ?? []), ...(call?.quorum?.approvedBy ?? [])];
      const lookAlike = approverNameProblem(approver, { ...this.names, known });
      if (lookAlike) throw new DecisionProblem(lookAlike);
      const keyFile = this.keyFile(approver);
      if (call?.signedDecisions && !keyFile)
        throw new DecisionProblem(
          `call ${mine.callId} (${call.toolName}) needs a signed decision and this server holds no key for ${approver}: sign it yourself with countersign ${mine.decision} --key <file>`,
        );
      out.push(
        buildDecision(mine, { refuse, ...(call && keyFile ? { sign: { key: keyFile, workflowId, call } } : {}) }),
      );
    }
    return out;
  }
}
