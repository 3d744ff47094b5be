// A worker process's agents for the uncertain-call test: the shell tool (not idempotent by default) in the folder
// the test names, with room for a slow command.
import { defineAgent, shellTool } from '../../agents';

export const agents = [defineAgent({ name: 'operator', instructions: 'You run commands.', tools: [shellTool({ cwd: process.env.COUNTERSIGN_TEST_SHELL_DIR ?? '.', timeout: '60s' })] })];
