// The Chromium the browser tests drive (playwright-core, never a downloaded browser): COUNTERSIGN_CHROMIUM_PATH, else
// Debian's /usr/bin/chromium, else `chromium` on PATH — as scripts/test-prerequisites.mjs finds it before jest runs.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { loadDevConfig, setting } from '../../temporal.config';

function chromiumPath(): string {
  const onPath = setting('PATH')
    .split(':')
    .map((d) => join(d, 'chromium'));
  return (
    loadDevConfig().test.chromium || ['/usr/bin/chromium', ...onPath].find((p) => existsSync(p)) || '/usr/bin/chromium'
  );
}

/** Headless, without the sandbox (tests run as root in CI); a missing binary is one line saying what to install. */
export async function launchChromium(): Promise<Browser> {
  const path = chromiumPath();
  if (!existsSync(path))
    throw new Error(
      `${path} is missing: apt-get install chromium, or set COUNTERSIGN_CHROMIUM_PATH (npm test's pretest installs it where it can)`,
    );
  return chromium.launch({ executablePath: path, args: ['--no-sandbox'] });
}
