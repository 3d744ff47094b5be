#!/usr/bin/env node
// The `countersign` CLI. An installed package runs the compiled JavaScript in dist/; a source checkout (where
// cli/cli.ts exists) runs the TypeScript through tsx's require hook, so it never runs a stale build.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const source = join(__dirname, '../cli/cli.ts');
if (existsSync(source)) {
  require('tsx/cjs');
  require(source).main();
} else {
  require('../dist/cli/cli.js').main();
}
