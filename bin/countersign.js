#!/usr/bin/env node
// The `countersign` CLI. An installed package runs the compiled JavaScript in dist/; a source checkout (where
// cli/cli.ts exists) runs the TypeScript, bundled from the sources as they are now (devtools/sourceCli.cjs), so it
// never runs a stale build.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

if (existsSync(join(__dirname, '../cli/cli.ts'))) {
  require('../devtools/sourceCli.cjs').main();
} else {
  require('../dist/cli/cli.js').main();
}
