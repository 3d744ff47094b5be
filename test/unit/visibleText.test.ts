// The one rule for a run's text on a screen (core/visibleText.ts) and the CLI's print path over it: escape sequences,
// control characters and direction-changing Unicode are shown as escapes, never passed to the terminal.
import { visible } from '../../core/visibleText';
import { auditLine, eventLine, itemLine, terminalText } from '../../cli/terminalOutput';

const ESC = '\u001b';

test('escape sequences, controls and bidirectional overrides are shown as \\uXXXX', () => {
  expect(visible(`a${ESC}[2Kb`)).toBe('a\\u001b[2Kb');
  expect(visible(`${ESC}]8;;https://evil.example${ESC}\\safe${ESC}]8;;${ESC}\\`)).toBe(
    '\\u001b]8;;https://evil.example\\u001b\\safe\\u001b]8;;\\u001b\\',
  );
  expect(visible('refund \u202eredaolnwod.exe')).toBe('refund \\u202eredaolnwod.exe');
  expect(visible('a\rb\u0007c\u007fd\u009be\u0000')).toBe('a\\u000db\\u0007c\\u007fd\\u009be\\u0000');
  // Bidi marks, embeddings, isolates, zero-width characters, separators, the BOM, soft hyphen, the Arabic letter mark.
  expect(
    visible('\u200e\u200f\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200b\u200d\u2028\u2029\ufeff\u00ad\u061c'),
  ).toBe(
    '\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069\\u200b\\u200d\\u2028\\u2029\\ufeff\\u00ad\\u061c',
  );
  // Tag characters (outside the BMP) as one escape each, not two halves of a surrogate pair.
  expect(visible('flag\u{e0041}\u{e007f}')).toBe('flag\\u{e0041}\\u{e007f}');
});

test('newlines and tabs stay where the layout takes them; oneLine shows them too; plain text is untouched', () => {
  expect(visible('line one\n\tline two')).toBe('line one\n\tline two');
  expect(visible('line one\n\tline two', { oneLine: true })).toBe('line one\\u000a\\u0009line two');
  const plain = 'Refund 42.50 € to Zoë — done ✓ 👍 日本語';
  expect(visible(plain)).toBe(plain);
  expect(visible(visible(`${ESC}[1A\u202e`))).toBe('\\u001b[1A\\u202e'); // shown once is shown for good
});

test("print's text: without colour every escape is shown; with colour only the CLI's own colours pass", () => {
  const fromRun = `${ESC}[2K${ESC}[1Aok\u202e`;
  expect(terminalText(`answer: ${fromRun}`, false)).toBe('answer: \\u001b[2K\\u001b[1Aok\\u202e');
  expect(terminalText(`${ESC}[32mcompleted${ESC}[0m: ${fromRun}`, true)).toBe(
    `${ESC}[32mcompleted${ESC}[0m: \\u001b[2K\\u001b[1Aok\\u202e`,
  );
  expect(terminalText(`${ESC}[32mcompleted${ESC}[0m`, false)).toBe('\\u001b[32mcompleted\\u001b[0m');
  expect(terminalText(`${ESC}[35m${ESC}[8mhidden${ESC}[0m`, true)).toBe(`\\u001b[35m\\u001b[8mhidden${ESC}[0m`);
});

test("watch's deltas, a conversation's items and an audit row show a run's escapes (colour or not)", () => {
  const at = '2026-11-26T05:00:00.000Z';
  expect(
    eventLine({
      seq: 7,
      at,
      agentName: 'a',
      type: 'model_text_delta',
      turn: 1,
      delta: `${ESC}[2K${ESC}]8;;https://x.example/${ESC}\\go\u202e`,
    }),
  ).toBe('05:00:00 #7 … \\u001b[2K\\u001b]8;;https://x.example/\\u001b\\go\\u202e');
  expect(itemLine({ type: 'function_call_output', callId: 'c1', output: `done${ESC}[1A\u202e` })).toBe(
    '← c1: done\\u001b[1A\\u202e',
  );
  expect(itemLine({ type: 'message', role: 'assistant', content: `two\nlines${ESC}[2K` })).toBe(
    'assistant: two\nlines\\u001b[2K',
  );
  const row = auditLine({
    seq: 1,
    callId: 'c1',
    toolName: 'take_note',
    decision: 'rejected',
    approver: 'ann',
    via: 'update',
    decidedAt: at,
    message: `no${ESC}[8m\u202e`,
  } as Parameters<typeof auditLine>[0]);
  expect(row.at(-1)).toBe('no\\u001b[8m\\u202e');
});
