// The handoffs an agent declares (the OpenAI Agents SDK's handoff(): inputFilter, onHandoff), checked at definition,
// by the name of the tool each becomes; the snapshot records what the workflow needs to know of them.
import type { ToolSnapshot } from '../core/run/agentSnapshot';
import type { HandoffSpec } from './agentConfig';

/** Each handoff by its tool's name, its input filter and onHandoff checked; one clear line when one is wrong. */
export function checkHandoffs(
  agent: string,
  handoffs: ReadonlyArray<string | HandoffSpec>,
  toolName: (spec: string | HandoffSpec) => string,
): Map<string, HandoffSpec> {
  const out = new Map<string, HandoffSpec>();
  for (const h of handoffs) {
    const spec = typeof h === 'string' ? { agent: h } : h;
    const owner = `agent ${agent}: handoff to ${spec.agent}`;
    const f = spec.inputFilter;
    if (
      f !== undefined &&
      f !== 'remove_all_tools' &&
      typeof f !== 'function' &&
      !(typeof f === 'object' && f !== null && Number.isInteger(f.keepLast) && f.keepLast > 0)
    )
      throw new Error(
        `${owner}: inputFilter must be 'remove_all_tools', { keepLast: n } with n a positive integer, or a function`,
      );
    if (spec.onHandoff !== undefined && typeof spec.onHandoff !== 'function')
      throw new Error(`${owner}: onHandoff must be a function`);
    out.set(toolName(h), spec);
  }
  return out;
}

/** What a handoff tool's snapshot records of its filter and onHandoff (nothing for a plain handoff). */
export function handoffSnapshot(spec: HandoffSpec | undefined): Pick<ToolSnapshot, 'handoffInput' | 'onHandoff'> {
  const f = spec?.inputFilter;
  return {
    ...(f === undefined
      ? {}
      : {
          handoffInput: typeof f === 'function' ? 'function' : f === 'remove_all_tools' ? f : { keepLast: f.keepLast },
        }),
    ...(spec?.onHandoff ? { onHandoff: true as const } : {}),
  };
}
