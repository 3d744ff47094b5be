// A worker process's agents for the uncertain-call test: the shell tool (not idempotent by default), with room for a
// slow command. The test's commands name their files by absolute path, so they run in the system's temporary folder.
import { tmpdir } from 'node:os';
import { defineAgent, shellTool } from '../../agents';

export const agents = [
  defineAgent({
    name: 'operator',
    instructions: 'You run commands.',
    tools: [shellTool({ cwd: tmpdir(), timeout: '60s' })],
  }),
];
