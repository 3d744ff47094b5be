// How the JSON agents file's mistakes read: one line naming the field as a JSON path (agents[0].mcpServers[1].url)
// and what is wrong, or for broken JSON the line and column. Used by agentsFile.ts and the MCP gateway's config.
import { readFileSync } from 'node:fs';
import type { z } from 'zod';

/** Messages for the issues every field shares; the schema's own messages win. */
export function defaultMessage(iss: z.core.$ZodRawIssue): string | undefined {
  if (iss.code === 'invalid_type')
    return iss.input === undefined
      ? `is required (${noun(iss.expected)})`
      : `must be ${noun(iss.expected)}, not ${noun(kindOf(iss.input))}`;
  if (iss.code === 'too_small' && (iss.origin === 'string' || iss.origin === 'array') && Number(iss.minimum) === 1)
    return 'must not be empty';
  return undefined;
}

const NOUNS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  record: 'an object',
  null: 'null',
};
const noun = (kind: string) => NOUNS[kind] ?? kind;
const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/**
 * The issue to report, with its full path. An unknown key becomes part of the path; for a union (requireApproval),
 * a branch that got into the value (an object form with a bad list) says more than "must be one of".
 */
export function innermost(issue: z.core.$ZodIssue): { path: PropertyKey[]; message: string } {
  if (issue.code === 'unrecognized_keys') return { path: [...issue.path, issue.keys[0]!], message: issue.message };
  if (issue.code === 'invalid_union') {
    const deepest = issue.errors
      .map((e) => e[0])
      .filter((e) => e && e.path.length > 0)
      .sort((a, b) => b!.path.length - a!.path.length)[0];
    if (deepest) {
      const inner = innermost(deepest);
      return { path: [...issue.path, ...inner.path], message: inner.message };
    }
  }
  return { path: issue.path, message: issue.message };
}

/** agents[0].mcpServers[1].env["X-Y"] */
export function jsonPath(path: PropertyKey[]): string {
  return path
    .map((k, i) =>
      typeof k === 'number'
        ? `[${k}]`
        : /^[A-Za-z_$][\w$]*$/.test(String(k))
          ? `${i ? '.' : ''}${String(k)}`
          : `[${JSON.stringify(String(k))}]`,
    )
    .join('');
}

/**
 * "at line L column C: <what>". V8 names a position for most errors but not for "Unexpected token 'x', … is not valid
 * JSON"; then it is found by parsing prefixes: the shortest one that fails before its own end holds the culprit.
 */
export function jsonErrorAt(text: string, message: string): string {
  let at = positionIn(message, text.length);
  if (at === undefined) {
    const brokenAt = (n: number) => {
      try {
        JSON.parse(text.slice(0, n));
        return false;
      } catch (err) {
        const p = positionIn((err as Error).message, n);
        return p === undefined || p < n; // a position at the prefix's end only means it was cut short
      }
    };
    let lo = 1;
    let hi = text.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (brokenAt(mid)) hi = mid;
      else lo = mid + 1;
    }
    at = lo - 1;
  }
  const before = text.slice(0, at).split('\n');
  const token = /^Unexpected token '(.+?)'/.exec(message)?.[1];
  const what = token ? `unexpected ${JSON.stringify(token)}` : message.replace(/( in JSON)? at position \d+.*$/, '');
  return `at line ${before.length} column ${before.at(-1)!.length + 1}: ${oneLine(what)}`;
}

/** Where V8's message says the error is: the end for "Unexpected end", else its "at position N"; undefined when it does not say. */
function positionIn(message: string, length: number): number | undefined {
  if (/^Unexpected end of JSON input/.test(message)) return length;
  const m = / at position (\d+)/.exec(message);
  return m ? Number(m[1]) : undefined;
}

export function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * A JSON config file's data (an agents file, a gateway config): a BOM dropped, a missing file, an unreadable one or
 * invalid JSON thrown as `fail(what)`, one line (`missing`: what to do about a missing one).
 */
export function readJsonFile(file: string, fail: (what: string) => Error, missing: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').replace(/^\uFEFF/, ''); // editors that write a BOM
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw fail(`no such file; ${missing}`);
    throw fail(`cannot read it: ${oneLine((err as Error).message)}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw fail(`invalid JSON ${jsonErrorAt(text, (err as Error).message)}`);
  }
}
