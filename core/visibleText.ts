// The one rule for text from a run shown to a person (the CLI, the inbox, the notifications): control characters
// (C0, DEL, C1), escape sequences and invisible or direction-changing Unicode (bidirectional overrides and isolates,
// zero-width characters, line separators, the BOM, every other format character) are shown as their \uXXXX escape.
// Otherwise what a person reads could differ from what is there: `ESC[2K` erases a line, `ESC]8;;` hides a link's
// target, U+202E reverses what follows, a \r lets later text overwrite earlier. Newlines and tabs stay, where the
// layout can take them (`oneLine` shows them too). Pure.

const HIDDEN = /[\p{Cc}\p{Cf}\u2028\u2029\u2065]/gu;

const escape = (c: string): string => {
  const code = c.codePointAt(0)!;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** The text with every hidden character shown as its escape; newlines and tabs stay unless `oneLine`. */
export function visible(text: string, { oneLine = false }: { oneLine?: boolean } = {}): string {
  return text.replace(HIDDEN, (c) => ((c === '\n' || c === '\t') && !oneLine ? c : escape(c)));
}
