// A decision that carries a token, read before anything applies: the token is decoded and its claims checked
// against the call (run, call id, decision, arguments, expiry, token id), and the decision becomes the token's:
// its approver is the token's `sub`, whatever the payload said. The signature itself is checked by the worker's
// approver keys (an activity, its answer recorded in history); the decision applies only after both. Pure.
import { checkDecisionClaims, decodeDecisionToken, timeBoundProblem } from './decisionToken';
import type { BookDecision, CheckedCall } from '../approvals/decisionRules';
import { signedArguments } from '../approvals/decisionText';

export interface TokenContext {
  /** The workflow id tokens must name: the top run's (decisions for nested calls are made through it). */
  wf: string;
  nowSeconds: number;
  jtiUsed: (jti: string) => boolean;
}

/**
 * The decision as its token says it (approver = sub, signer recorded), or why the token refuses it. Only a decision
 * that carries a token is read (whether the call needs one is the book's check). `call` undefined: the call is
 * unknown, which the book's check reports.
 */
export function readToken(
  d: BookDecision & { token: string },
  call: CheckedCall | undefined,
  ctx: TokenContext,
): { decision: BookDecision } | { problem: string } {
  if (!call) return { decision: d };
  const decoded = decodeDecisionToken(d.token);
  if ('problem' in decoded) return { problem: `decision for call ${d.callId} refused: ${decoded.problem}` };
  if (d.decision !== 'approve' && d.decision !== 'reject')
    return { problem: `decision for call ${d.callId} refused: only approve and reject are signed` };
  const problem = checkDecisionClaims(decoded, {
    wf: ctx.wf,
    call: d.callId,
    decision: d.decision,
    arguments: signedArguments(d, call),
    fingerprint: call.fingerprint,
    nowSeconds: ctx.nowSeconds,
    jtiUsed: ctx.jtiUsed,
  });
  if (problem) return { problem: `decision for call ${d.callId} refused: ${problem}` };
  const { sub, jti, exp } = decoded.claims;
  return { decision: { ...d, approver: sub, signed: { kid: decoded.kid, jti, exp } } };
}

/**
 * A token read earlier (before its signature and any edits were checked, asynchronously) still authorizes its
 * decision now: not expired meanwhile, its id not used meanwhile by another decision. The token is not decoded again.
 */
export function stillAuthorized(d: BookDecision, ctx: Omit<TokenContext, 'wf'>): string | undefined {
  const problem = d.signed && timeBoundProblem(d.signed, ctx.nowSeconds, ctx.jtiUsed);
  return problem ? `decision for call ${d.callId} refused: ${problem}` : undefined;
}
