// Terminal output for the CLI: tables that fit the window, colour only on a TTY (and never with NO_COLOR),
// relative times. JSON output bypasses all of this.
import { shorten } from '../domain/callSummary';

const colourOn = () => Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
const paint = (code: number) => (s: string) => (colourOn() ? `\u001b[${code}m${s}\u001b[0m` : s);
export const bold = paint(1);
export const dim = paint(2);
export const red = paint(31);
export const green = paint(32);
export const yellow = paint(33);

export function ago(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '-';
  const s = Math.round((now - Date.parse(iso)) / 1000);
  const span = (n: number) => (n < 60 ? `${n}s` : n < 3600 ? `${Math.floor(n / 60)}m` : n < 86400 ? `${Math.floor(n / 3600)}h` : `${Math.floor(n / 86400)}d`);
  return s >= 0 ? `${span(s)} ago` : `in ${span(-s)}`;
}

/** A plain-text table; the column named `flexible` shrinks so the table fits the terminal. */
export function table(headers: string[], rows: string[][], flexible?: string): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const width = process.stdout.columns || 160;
  const flex = flexible ? headers.indexOf(flexible) : -1;
  const total = widths.reduce((a, b) => a + b, 0) + 2 * (headers.length - 1);
  if (flex >= 0 && total > width) widths[flex] = Math.max(12, widths[flex]! - (total - width));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => shorten(c, widths[i]!).padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [bold(line(headers)), ...rows.map(line)].join('\n');
}
