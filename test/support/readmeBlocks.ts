// README.md's TypeScript examples as a reader saves them: each block under the `.mts` name the prose after it
// gives ("Save it as `approve.mts` …"). Run in a clone (test/integration/readmeExamples.test.ts) and in a project
// that installed the packed package (test/package/package.test.ts).
import { readDocs } from './docBlocks';

export interface ReadmeExample {
  /** The file name the README says to save the block as. */
  file: string;
  /** The block, as pasted. */
  text: string;
  /** README.md's line the block starts on. */
  line: number;
}

export function readmeExamples(): ReadmeExample[] {
  const readme = readDocs().find((d) => d.file === 'README.md')!;
  return readme.blocks
    .filter((b) => b.lang === 'ts')
    .map((block) => {
      const after = readme.prose
        .filter((p) => p.line > block.line + block.lines.length)
        .slice(0, 3)
        .map((p) => p.text)
        .join(' ');
      const named = /Save it as `([\w-]+\.mts)`/.exec(after);
      if (!named) throw new Error(`README.md:${block.line}: the block is not followed by "Save it as \`<name>.mts\`"`);
      return { file: named[1]!, text: `${block.lines.join('\n')}\n`, line: block.line };
    });
}
