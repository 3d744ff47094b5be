#!/usr/bin/env node
// The `countersign` CLI. TypeScript sources run through tsx's require hook (no build step).
require('tsx/cjs');
require('../client/cli.ts').main();
