// A service's own agents, loaded by `npm run worker` through COUNTERSIGN_AGENTS_MODULE (as a user's file would,
// importing from 'countersign'; here from the sources).
import { z } from 'zod';
import { defineAgent, defineTool } from '../../agents';

const sendGreeting = defineTool({
  name: 'send_greeting',
  description: 'Send a greeting card',
  parameters: z.object({ to: z.string() }),
  needsApproval: true,
  execute: ({ to }) => `Greeting card sent to ${to}`,
});

export const agents = [
  defineAgent({ name: 'greeter', instructions: 'You send greeting cards.', tools: [sendGreeting] }),
];
