// The package's entry points as a clone maps them to the sources: tsconfig.json's "paths" (which tsx follows when
// a reader runs a README example in the clone, and which the doc tests compile against). One list, read from there.
import { join } from 'node:path';
import ts from 'typescript';
import { REPO } from './docBlocks';

/** Entry point ('countersign', 'countersign/client', …) → the absolute path of its source file. */
export function sourceEntryPoints(): Record<string, string> {
  const config = ts.readConfigFile(join(REPO, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  if (config.error) throw new Error(`tsconfig.json: ${ts.flattenDiagnosticMessageText(config.error.messageText, ' ')}`);
  const paths = (config.config.compilerOptions?.paths ?? {}) as Record<string, string[]>;
  return Object.fromEntries(
    Object.entries(paths)
      .filter(([name]) => name === 'countersign' || name.startsWith('countersign/'))
      .map(([name, [file]]) => [name, join(REPO, file!)]),
  );
}
