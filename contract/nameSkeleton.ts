// Look-alike names, after Unicode UTS #39 (security mechanisms): two names with one skeleton could pass for each
// other on a screen, and a name mixing scripts is how most such names are made. A bounded subset, not the full
// confusables.txt table (no maintained npm package ships one; see docs/security.md, "Look-alike names"):
//   - NFKC folds fullwidth forms (ａｎｎ), mathematical letters (𝐚𝐧𝐧) and ligatures into plain letters;
//   - default-ignorable characters (zero-width joiners and spaces, soft hyphens, variation selectors) are dropped;
//   - Cyrillic, Greek and Armenian letters drawn like Latin ones, and a few Latin ones (ı, ɑ, ɡ, 0, 1, I, rn), are
//     read as the Latin letter they pass for;
//   - case is folded, accents are kept (zoë and zoe are two names, as in UTS #39).
// Mixed scripts follow UTS #39's "highly restrictive" level: one script, or Latin with the Han, kana, Hangul or
// Bopomofo that Chinese, Japanese and Korean names combine it with. Digits, marks and punctuation belong to any script.

// Each pair: the Latin letter, then what passes for it. Upper case is mapped before case is folded (Н is H, not n).
const PAIRS = [
  'AА aа BВ bь CС cс dԁ EЕ eе hһ HН IІ iі JЈ jј KК kк lӏ MМ OО oо PР pр QԚ qԛ SЅ sѕ TТ WԜ wԝ XХ xх YУ yу YҮ yү', // Cyrillic
  'AΑ aα BΒ EΕ HΗ nη IΙ iι KΚ kκ MΜ NΝ vν OΟ oο PΡ pρ TΤ tτ YΥ uυ XΧ xχ ZΖ cϲ yγ wω', // Greek
  'oօ uս gց hհ nո', // Armenian
  'iı aɑ gɡ o0 l1 lI', // Latin and digits
];
// A frozen object, not a Map: the workflow graph holds no module-level collection (test/unit/sharedModules.test.ts).
const LOOKS_LATIN: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(
    PAIRS.join(' ')
      .split(' ')
      .map((pair) => [[...pair][1]!, [...pair][0]!]),
  ),
);
const latin = (c: string): string => LOOKS_LATIN[c] ?? c; // one code point: never a prototype key
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/** The form look-alike names share: equal skeletons, names that could pass for each other. */
export function nameSkeleton(name: string): string {
  const letters = [...name.normalize('NFKC').replace(IGNORABLE, '').normalize('NFD')];
  return letters
    .map((c) => latin(latin(c))) // twice: Cyrillic І passes for I, which passes for l
    .join('')
    .toLowerCase()
    .replace(/rn/g, 'm')
    .trim()
    .normalize('NFC');
}

// The scripts a name's letters can be told by. A letter of none of these counts as one more script of its own.
const SCRIPTS =
  'Latin Cyrillic Greek Armenian Georgian Hebrew Arabic Devanagari Bengali Tamil Thai Ethiopic Han Hiragana Katakana Hangul Bopomofo'
    .split(' ')
    .map((script) => ({ script, test: new RegExp(`\\p{Script=${script}}`, 'u') }));

const COMBINED = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];

/** The scripts of the name's letters (after NFKC), in the order met. */
export function scriptsOf(name: string): string[] {
  const found = new Set<string>();
  for (const c of name.normalize('NFKC'))
    if (/\p{L}/u.test(c)) found.add(SCRIPTS.find((s) => s.test.test(c))?.script ?? 'another script');
  return [...found];
}

/** Whether the name mixes scripts in a way no one writes a name (Latin with Cyrillic, Greek with Latin, …). */
export function mixesScripts(name: string): boolean {
  const scripts = scriptsOf(name);
  return scripts.length > 1 && !COMBINED.some((allowed) => scripts.every((s) => allowed.includes(s)));
}
