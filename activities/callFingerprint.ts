// A call's fingerprint: the tool's word for the state of what the call acts on, taken when the call is planned and
// again just before it runs (core/approvals/staleCalls.ts says what a difference does). It fails closed: a
// fingerprint that throws or takes too long is the text of that failure, and a failed one just before the run
// never matches, so people are asked again rather than the call running on a state nobody saw.
import type { Tool, ToolPlanningContext } from '../agents/defineTool';
import { withinTime } from './deadline';

export const FINGERPRINT_TIMEOUT_MS = 5_000;
const MAX_FINGERPRINT_CHARS = 500;

export async function fingerprintOf(
  tool: Tool,
  params: Record<string, unknown>,
  ctx: ToolPlanningContext,
  timeoutMs = FINGERPRINT_TIMEOUT_MS,
): Promise<{ fingerprint: string; failed?: true }> {
  try {
    const fingerprint = await withinTime(timeoutMs, () => tool.fingerprint!(params, ctx));
    if (typeof fingerprint !== 'string') throw new Error('it returned no string');
    return { fingerprint: fingerprint.slice(0, MAX_FINGERPRINT_CHARS) };
  } catch (err) {
    return {
      fingerprint: `fingerprint failed: ${err instanceof Error ? err.message : String(err)}`.slice(
        0,
        MAX_FINGERPRINT_CHARS,
      ),
      failed: true,
    };
  }
}

/** Just before the call runs: the state it would now act on, when that is not the state its decision was given for. */
export async function changedSince(
  tool: Tool,
  params: Record<string, unknown>,
  ctx: ToolPlanningContext,
  was: string,
): Promise<{ was: string; now: string } | undefined> {
  const now = await fingerprintOf(tool, params, ctx);
  return now.failed || now.fingerprint !== was ? { was, now: now.fingerprint } : undefined;
}
