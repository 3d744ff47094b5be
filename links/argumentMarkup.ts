// A call's arguments, as argumentView (core/approvals/argumentView.ts) lays them out, in the markup of each place a
// message goes: Slack mrkdwn (fields as `*key:* value`, commands and diffs in code blocks) and email HTML (a table
// for fields, <pre> for commands and diffs, +/- lines coloured inline because mail clients drop stylesheets). Every
// value is escaped for its medium; the caller keeps each piece within Slack's limits.
import { type ArgumentView, type DiffLine, commandLines, diffLineText } from '../core/approvals/argumentView';
import { type Markup, html } from './html';

/** Slack's mrkdwn needs only these escaped: `<!channel>`, `<@U…>` and `<url|text>` become plain text. */
export const slackEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
export const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Slack has no escape for ``` inside a code block: a zero-width space between the backticks keeps the block whole. */
const fence = (s: string) => s.replace(/```/g, '`\u200b`\u200b`');
const codeBlock = (text: string, max: number) => `\`\`\`${cut(fence(slackEscape(text)), max - 6)}\`\`\``;

/** The view as Slack mrkdwn texts, each at most `max` characters: the fields, the commands, the edits, the raw text. */
export function slackArgumentTexts(view: ArgumentView, max: number): string[] {
  const texts: string[] = [];
  if (view.fields?.length)
    texts.push(
      cut(view.fields.map(({ key, value }) => `*${slackEscape(key)}:* ${slackEscape(value)}`).join('\n'), max),
    );
  if (view.commands?.length) texts.push(codeBlock(view.commands.flatMap(commandLines).join('\n'), max));
  if (view.files?.length)
    texts.push(
      codeBlock(view.files.flatMap((f) => [`${f.operation} ${f.path}`, ...f.diff.map(diffLineText)]).join('\n'), max),
    );
  if (view.raw !== undefined) texts.push(codeBlock(view.raw, max));
  return texts;
}

const PRE = 'font-family:monospace;background:#f6f8fa;padding:8px;white-space:pre-wrap';
const DIFF_STYLE: Record<DiffLine['mark'], string> = {
  '+': 'color:#1a7f37;background:#e6ffec',
  '-': 'color:#cf222e;background:#ffebe9',
  '@': 'color:#6e7781',
  ' ': '',
};

/** The view as email HTML. */
export function emailArgumentHtml(view: ArgumentView): Markup {
  const cell = 'padding:2px 12px 2px 0;vertical-align:top;text-align:left';
  return html`${view.fields?.length ? html`<table style="border-collapse:collapse">${view.fields.map(({ key, value }) => html`<tr><th style="${cell}">${key}</th><td style="${cell};white-space:pre-wrap">${value}</td></tr>`)}</table>` : ''}${
    view.commands?.length ? html`<pre style="${PRE}">${view.commands.flatMap(commandLines).join('\n')}</pre>` : ''
  }${(view.files ?? []).map((f) => html`<p><b>${f.operation}</b> <code>${f.path}</code></p><pre style="${PRE}">${f.diff.map((d, i) => html`${i ? '\n' : ''}${DIFF_STYLE[d.mark] ? html`<span style="${DIFF_STYLE[d.mark]}">${diffLineText(d)}</span>` : diffLineText(d)}`)}</pre>`)}${
    view.raw !== undefined ? html`<pre style="${PRE}">${view.raw}</pre>` : ''
  }`;
}
