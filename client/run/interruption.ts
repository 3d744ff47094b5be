// A pending call as the OpenAI Agents SDK shows it (an interruption): what `result.interruptions` and
// `state.getInterruptions()` return.
import type { PendingApproval } from '../../contract/runViews';

/**
 * The pending call with the Agents SDK's names added (the reason this type exists): `id` and `callId` are the same,
 * `name` is `toolName`, `args` is `arguments` parsed (undefined when the model's JSON does not parse), and
 * `agent.name` is `agentName` (the SDK's `interruption.agent.name`; not enumerable, so JSON and equality see the
 * pending call as before).
 */
export type Interruption = PendingApproval & {
  id: string;
  name: string;
  args: Record<string, unknown> | undefined;
  readonly agent: { readonly name: string };
};

/** The Agents SDK's view of a pending call. */
export function interruptionOf(p: PendingApproval): Interruption {
  let args: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(p.arguments);
    args =
      parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    args = undefined;
  }
  const interruption = { ...p, id: p.callId, name: p.toolName, args };
  return Object.defineProperty(interruption, 'agent', { value: { name: p.agentName } }) as Interruption;
}
