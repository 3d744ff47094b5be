// Which of a coding agent's tool calls a person decides (the gateway config's `hooks`): the first rule whose tool,
// `command` regular expression and `filePath` glob all match decides; no rule matching, `otherwise` does. A rule
// that names a condition the input lacks (a `command` on a Write) does not match.
import type { ApprovalPolicy } from '../contract/approvalPolicy';
import type { HookRule, HooksConfig } from './gatewayConfig';

export type HookVerdict =
  | { kind: 'allow' | 'ask'; reason: string }
  | { kind: 'deny'; reason: string }
  /** A person decides, on these terms, under this rule (its index in `rules`). */
  | { kind: 'gate'; policy: ApprovalPolicy; rule: number };

/** A glob as a regular expression: `**` any folders, `*` within one folder, `?` one character. */
export function globRegex(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      out += '.*';
      i++;
      if (glob[i + 1] === '/') i++; // "a/**/b" matches "a/b" too
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function matches(rule: HookRule, tool: string, input: Record<string, unknown>): boolean {
  if (rule.tool !== tool && rule.tool !== '*') return false;
  if (rule.command !== undefined) {
    const command = text(input.command);
    if (command === undefined || !new RegExp(rule.command).test(command)) return false;
  }
  if (rule.filePath !== undefined) {
    const path = text(input.file_path) ?? text(input.path);
    if (path === undefined || !globRegex(rule.filePath).test(path)) return false;
  }
  return true;
}

export function verdictOf(hooks: HooksConfig, tool: string, input: Record<string, unknown>): HookVerdict {
  const at = hooks.rules.findIndex((r) => matches(r, tool, input));
  if (at < 0)
    return {
      kind: hooks.otherwise,
      reason: hooks.otherwise === 'allow' ? 'no Countersign rule matches this call' : 'no Countersign rule matches',
    };
  const { tool: _t, command: _c, filePath: _f, deny, needsApproval, ...policy } = hooks.rules[at]!;
  if (deny !== undefined) return { kind: 'deny', reason: deny };
  if (needsApproval === false) return { kind: 'allow', reason: `Countersign rule ${at + 1} allows it` };
  return { kind: 'gate', policy, rule: at };
}
