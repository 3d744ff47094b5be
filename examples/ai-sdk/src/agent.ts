// The AI SDK tools in a Countersign agent. fromAiSdkTools takes the same `toolApproval` generateText takes in AI SDK 7:
// here test accounts are closed at once (recorded as approved automatically), any other closure waits for a person.
import { defineAgent } from 'countersign';
import { fromAiSdkTools } from 'countersign/ai-sdk';
import { tools } from './tools.js';

export const payments = defineAgent({
  name: 'payments',
  instructions: 'You help the finance team: look balances up, send payments and close accounts as asked.',
  tools: fromAiSdkTools(tools, {
    toolApproval: {
      closeAccount: ({ account }) => (account.startsWith('TEST-') ? 'approved' : 'user-approval'),
    },
  }),
});
