// Which of a coding agent's tool calls a person decides (the gateway config's `hooks`): the first rule whose tool,
// `command` regular expression, `filePath` glob and `when` conditions all match decides; no rule matching,
// `otherwise` does. A rule that names a condition the input lacks (a `command` on a Write) does not match.
import type { ApprovalPolicy } from '../contract/approvalPolicy';
import type { ArgumentCondition, HookRule, HooksConfig } from './gatewayConfig';
import { conditionHolds } from './argumentRules';

export type HookVerdict =
  | { kind: 'allow' | 'ask'; reason: string }
  | { kind: 'deny'; reason: string }
  /** A person decides, on these terms, under this rule (its index in `rules`). */
  | { kind: 'gate'; policy: ApprovalPolicy; rule: number };

/**
 * The rule's tool, and its conditions on the input (argumentRules.ts): `command` a regular expression on the
 * input's command, `filePath` a glob on its file_path (or path), `when` any of its conditions. A rule that allows
 * needs an array argument's every element to hold; one that asks or denies, some element.
 */
function matches(rule: HookRule, tool: string, input: Record<string, unknown>): boolean {
  if (rule.tool !== tool && rule.tool !== '*') return false;
  const elements = rule.needsApproval === false ? 'every' : 'some';
  const holds = (c: ArgumentCondition) => conditionHolds(c, input, elements);
  if (rule.command !== undefined && !holds({ argument: 'command', matches: rule.command })) return false;
  const pathArgument = typeof input.file_path === 'string' ? 'file_path' : 'path';
  if (rule.filePath !== undefined && !holds({ argument: pathArgument, glob: rule.filePath })) return false;
  return rule.when === undefined || rule.when.some(holds);
}

export function verdictOf(hooks: HooksConfig, tool: string, input: Record<string, unknown>): HookVerdict {
  const at = hooks.rules.findIndex((r) => matches(r, tool, input));
  if (at < 0)
    return {
      kind: hooks.otherwise,
      reason: hooks.otherwise === 'allow' ? 'no Countersign rule matches this call' : 'no Countersign rule matches',
    };
  const { tool: _t, command: _c, filePath: _f, when: _w, deny, needsApproval, ...policy } = hooks.rules[at]!;
  if (deny !== undefined) return { kind: 'deny', reason: deny };
  if (needsApproval === false) return { kind: 'allow', reason: `Countersign rule ${at + 1} allows it` };
  return { kind: 'gate', policy, rule: at };
}
