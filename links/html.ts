// HTML by tagged template: every interpolated value is escaped unless it is already markup (from `html` itself).
// The pages are built from this alone; no text from a run reaches the page unescaped.
export class Markup {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};
export const escapeHtml = (s: string) => s.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);

function render(value: unknown): string {
  if (value instanceof Markup) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Markup {
  return new Markup(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]) : ''), ''));
}
