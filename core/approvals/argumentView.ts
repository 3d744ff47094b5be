// A call's arguments laid out for a person, the same in every place they decide (the CLI, the inbox, the
// notifications): shell commands as the lines that run, file edits as diffs, other objects as a key/value table.
// Control characters and invisible or direction-changing Unicode are made visible (core/visibleText.ts): otherwise what
// a person reads could differ from what runs (a \r or an escape sequence hiding part of a command). Pure.
import { visible } from '../visibleText';

export interface DiffLine {
  /** `+` added, `-` removed, `@` a header (`@@ …`, `--- a/…`, `+++ b/…`), ` ` context. */
  mark: '+' | '-' | '@' | ' ';
  text: string;
}

export interface ArgumentView {
  /** A `commands` string array (the shell tool): each command as it runs. */
  commands?: string[];
  /** An `operations` array of file edits (the apply_patch tool): each edit and its diff. */
  files?: Array<{ operation: string; path: string; diff: DiffLine[] }>;
  /** Every other top-level argument: strings as they are, other values as JSON. */
  fields?: Array<{ key: string; value: string }>;
  /** Arguments that are not a JSON object: as they are (pretty-printed when JSON). */
  raw?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function argumentView(argumentsJson: string): ArgumentView {
  let args: unknown;
  try {
    args = JSON.parse(argumentsJson);
  } catch {
    return { raw: visible(argumentsJson) };
  }
  if (!isRecord(args)) return { raw: visible(JSON.stringify(args, null, 2)) };
  const view: ArgumentView = {};
  const { commands, operations } = args;
  const shownCommands = Array.isArray(commands) && commands.length > 0 && commands.every((c) => typeof c === 'string');
  if (shownCommands) view.commands = (commands as string[]).map((c) => visible(c));
  const shownOperations =
    Array.isArray(operations) &&
    operations.length > 0 &&
    operations.every((o) => isRecord(o) && typeof o.type === 'string' && typeof o.path === 'string');
  if (shownOperations)
    view.files = (operations as Array<{ type: string; path: string; diff?: unknown }>).map((op) => ({
      operation: visible(op.type),
      path: visible(op.path),
      diff: diffLines(op.diff),
    }));
  const rest = Object.entries(args).filter(
    ([k]) => !(k === 'commands' && shownCommands) && !(k === 'operations' && shownOperations),
  );
  if (rest.length)
    view.fields = rest.map(([key, value]) => ({
      key: visible(key),
      value: visible(typeof value === 'string' ? value : JSON.stringify(value, null, 2)),
    }));
  return view;
}

function diffLines(diff: unknown): DiffLine[] {
  if (diff === undefined || diff === '') return [];
  // A CRLF file's diff ends its lines with \r: harmless before the newline, so not shown as \u000d.
  const lines =
    typeof diff === 'string'
      ? diff
          .replace(/\n$/, '')
          .split('\n')
          .map((l) => l.replace(/\r$/, ''))
      : [JSON.stringify(diff)];
  return lines.map((l) => {
    const mark = /^(@@|\+\+\+ |--- )/.test(l) ? '@' : l.startsWith('+') ? '+' : l.startsWith('-') ? '-' : ' ';
    return { mark, text: visible(mark === ' ' || mark === '@' ? l : l.slice(1)) };
  });
}

/** A command as the lines a terminal shows: `$ first line`, then `> continued`. */
export const commandLines = (command: string): string[] => command.split('\n').map((l, i) => `${i ? '>' : '$'} ${l}`);

/** A diff line as written: added and removed lines with their `+` / `-`, headers and context as they are. */
export const diffLineText = (d: DiffLine): string => (d.mark === '+' || d.mark === '-' ? `${d.mark}${d.text}` : d.text);

/** The view as plain-text lines (the CLI, email text): `$ cmd`, `> continued`, an edit's header and diff, `key: value`. */
export function argumentText(view: ArgumentView): string[] {
  const lines: string[] = [];
  for (const c of view.commands ?? []) lines.push(...commandLines(c));
  for (const f of view.files ?? []) lines.push(`${f.operation} ${f.path}`, ...f.diff.map(diffLineText));
  for (const { key, value } of view.fields ?? []) {
    const [first, ...more] = value.split('\n');
    lines.push(`${key}: ${first}`, ...more.map((l) => `  ${l}`));
  }
  if (view.raw !== undefined) lines.push(...view.raw.split('\n'));
  return lines;
}
