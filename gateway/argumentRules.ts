// Conditions over a call's arguments: one shape wherever the gateway config decides by them, a tool's
// `needsApproval: { "when": [...] }` or `{ "unless": [...] }` and a hook rule's `when` (its `command` and `filePath`
// are two such conditions). A condition names an argument (a dotted path reaches into objects) and tests it:
// `matches` a regular expression, `glob` a path pattern, `above` or `below` a number; all its tests must hold. An
// argument missing or of another type fails the test, so `unless` (an allowlist) fails closed and `when` does not.
import type { ArgumentCondition, ArgumentRule } from './gatewayConfig';

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

/** A path with its `.` and `..` segments resolved, so "/srv/shared/../etc" is tested as "/etc". */
export function withoutDotSegments(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    const root = out.length === 1 && out[0] === ''; // "/": nothing above it
    if (part === '.') continue;
    if (part !== '..') out.push(part);
    else if (out.length && out.at(-1) !== '..' && !root) out.pop();
    else if (!root) out.push('..'); // a relative path that starts above its folder keeps saying so
  }
  return out.join('/') || (path.startsWith('/') ? '/' : '.');
}

/** The argument at a dotted path ("options.force"), or undefined. */
function argumentAt(args: Record<string, unknown>, path: string): unknown {
  let value: unknown = args;
  for (const key of path.split('.')) {
    if (!value || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function holds(c: ArgumentCondition, value: unknown): boolean {
  if (c.matches !== undefined && (typeof value !== 'string' || !new RegExp(c.matches).test(value))) return false;
  if (c.glob !== undefined && (typeof value !== 'string' || !globRegex(c.glob).test(withoutDotSegments(value))))
    return false;
  if (c.above !== undefined && (typeof value !== 'number' || !(value > c.above))) return false;
  if (c.below !== undefined && (typeof value !== 'number' || !(value < c.below))) return false;
  return true;
}

/**
 * The condition holds for these arguments. An array argument (several paths, say) is tested element by element:
 * `some` element holding is enough to ask a person (`when`), `every` element must hold to spare one (`unless`).
 */
export function conditionHolds(
  c: ArgumentCondition,
  args: Record<string, unknown>,
  elements: 'some' | 'every' = 'some',
): boolean {
  const value = argumentAt(args, c.argument);
  if (!Array.isArray(value)) return holds(c, value);
  return value.length > 0 && value[elements]((v) => holds(c, v));
}

/** A person decides this call: some `when` condition holds, or no `unless` condition does. */
export function ruleAsks(rule: ArgumentRule, args: Record<string, unknown>): boolean {
  if ('when' in rule) return rule.when.some((c) => conditionHolds(c, args, 'some'));
  return !rule.unless.some((c) => conditionHolds(c, args, 'every'));
}
