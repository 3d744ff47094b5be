// A team's existing agents, written as the OpenAI Agents SDK and the AI SDK document them, unchanged; the only
// Countersign lines are the two adapters at the bottom. Every tool appends one line to BYO_TOOL_LOG when it runs,
// so the test counts what ran.
import { appendFileSync } from 'node:fs';
import { Agent, handoff, tool } from '@openai/agents';
import { tool as aiTool } from 'ai';
import { z } from 'zod';
import { defineAgent } from 'countersign';
import { fromOpenAIAgents } from 'countersign/openai-agents';
import { fromAiSdkTools } from 'countersign/ai-sdk';

const ran = (line) => appendFileSync(process.env.BYO_TOOL_LOG, `${line}\n`);

// ── @openai/agents ──────────────────────────────────────────────────────────────────────────────────────────
// The SDK's human-in-the-loop example: a predicate needsApproval, one city asks, the others do not.
const getWeather = tool({
  name: 'get_weather',
  description: 'Get the weather for a given city',
  parameters: z.object({ city: z.string() }),
  needsApproval: async (_ctx, { city }) => city.startsWith('San '),
  execute: async ({ city }) => {
    ran(`get_weather ${city}`);
    return `The weather in ${city} is sunny`;
  },
});
export const weatherAgent = new Agent({
  name: 'weather',
  instructions: 'You tell the weather.',
  tools: [getWeather],
});

// An agent used as a tool, whose own tool always asks.
const lookupRecord = tool({
  name: 'lookup_record',
  description: 'Read a customer record',
  parameters: z.object({ id: z.string() }),
  needsApproval: true,
  execute: async ({ id }) => {
    ran(`lookup_record ${id}`);
    return `Record ${id}: Ada Lovelace`;
  },
});
const researcher = new Agent({ name: 'researcher', instructions: 'You look records up.', tools: [lookupRecord] });
export const deskAgent = new Agent({
  name: 'desk',
  instructions: 'You answer customers; ask the researcher for records.',
  tools: [researcher.asTool({ toolName: 'ask_researcher', toolDescription: 'Ask the researcher to look a record up' })],
});

// Handoffs: an agent, and a handoff() object with its own tool name.
const billing = new Agent({
  name: 'billing',
  instructions: (runContext) => `You handle billing (context: ${JSON.stringify(runContext.context ?? {})}).`,
});
const support = new Agent({ name: 'support', instructions: 'You handle support.' });
export const triageAgent = new Agent({
  name: 'triage',
  instructions: 'You route customers.',
  handoffs: [billing, handoff(support, { toolNameOverride: 'escalate_to_support' })],
});

// An input guardrail.
export const guardedAgent = new Agent({
  name: 'guarded',
  instructions: 'You chat.',
  inputGuardrails: [
    {
      name: 'no_passwords',
      execute: async ({ input }) => ({
        tripwireTriggered: JSON.stringify(input).includes('password'),
        outputInfo: { reason: 'the message mentions a password' },
      }),
    },
  ],
});

// ── AI SDK tools ────────────────────────────────────────────────────────────────────────────────────────────
const mailTools = {
  send_email: aiTool({
    description: 'Send an email',
    inputSchema: z.object({ to: z.string(), body: z.string() }),
    needsApproval: async ({ to }) => !to.endsWith('@example.com'),
    execute: async ({ to }) => (ran(`send_email ${to}`), `sent to ${to}`),
  }),
  read_inbox: aiTool({
    description: 'Read the inbox',
    inputSchema: z.object({ folder: z.string() }),
    execute: async ({ folder }) => (ran(`read_inbox ${folder}`), `3 messages in ${folder}`),
  }),
  delete_email: aiTool({
    description: 'Delete an email',
    inputSchema: z.object({ id: z.string() }),
    execute: async ({ id }) => (ran(`delete_email ${id}`), `deleted ${id}`),
  }),
  archive_email: aiTool({
    description: 'Archive an email',
    inputSchema: z.object({ id: z.string() }),
    execute: async ({ id }) => (ran(`archive_email ${id}`), `archived ${id}`),
  }),
};
// AI SDK 7's toolApproval, per tool: approved (no one asked), denied (never runs), user-approval (a person decides).
const toolApproval = { read_inbox: 'approved', delete_email: 'denied', archive_email: 'user-approval' };
// toolApproval as one function for every call (it decides alone, as in the AI SDK).
const { archive_email, delete_email } = mailTools;
const rules = ({ toolCall }) => {
  if (toolCall.toolName === 'delete_email') return { type: 'denied', reason: 'We never delete mail' };
  return toolCall.input.id.startsWith('vip-') ? 'user-approval' : 'approved';
};

// ── Countersign ─────────────────────────────────────────────────────────────────────────────────────────────
export const mailAgent = defineAgent({
  name: 'mail',
  instructions: 'You handle email.',
  tools: fromAiSdkTools(mailTools, { toolApproval }),
});
export const rulesAgent = defineAgent({
  name: 'mail-rules',
  instructions: 'You tidy email.',
  tools: fromAiSdkTools({ archive_email, delete_email }, { toolApproval: rules }),
});
export const agents = [
  ...fromOpenAIAgents([weatherAgent, deskAgent, triageAgent, guardedAgent]),
  mailAgent,
  rulesAgent,
];
