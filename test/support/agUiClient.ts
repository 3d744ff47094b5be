// AG-UI front ends for the tests: @ag-ui/client's HttpAgent (a client no one here wrote) on `countersign serve`'s
// /ag-ui/{agent}, as a given approver, with every event it receives checked against @ag-ui/core's own schemas.
import { HttpAgent } from '@ag-ui/client';
import type * as AgUiSchemas from '@ag-ui/core/dist/schemas';

// The package's `./schemas` export (its types resolve only by file under this project's module resolution).
const { EventSchemas } = require('@ag-ui/core/schemas') as typeof AgUiSchemas;

export interface FrontEnd {
  agent: HttpAgent;
  /** Every event of every run so far, each already checked against EventSchemas. */
  events: Array<{ type: string } & Record<string, unknown>>;
  /** Sends the user's message (if any) and runs once; resolves with the run's events and the last one. */
  run(message?: string, resume?: Parameters<HttpAgent['runAgent']>[0]): Promise<RunOutcome>;
}

export interface RunOutcome {
  events: FrontEnd['events'];
  types: string[];
  last: FrontEnd['events'][number];
  interrupts: Array<{ id: string; reason: string; message?: string; metadata?: Record<string, unknown> }>;
  /** Why the run failed (a RUN_ERROR's message, or an HTTP error), if it did. */
  error?: string;
}

export function frontEnd(url: string, approver: string, threadId: string): FrontEnd {
  const agent = new HttpAgent({ url, threadId, headers: { 'X-Forwarded-User': approver } });
  const events: FrontEnd['events'] = [];
  const fe: FrontEnd = {
    agent,
    events,
    async run(message, params) {
      if (message) agent.addMessage({ id: `user-${events.length}-${Date.now()}`, role: 'user', content: message });
      const mine: FrontEnd['events'] = [];
      let error: string | undefined;
      await agent
        .runAgent(params ?? {}, {
          onEvent: ({ event }) => {
            const checked = EventSchemas.parse(event) as FrontEnd['events'][number];
            mine.push(checked);
            events.push(checked);
          },
        })
        .catch((err: Error) => void (error = err.message)); // a RUN_ERROR, or a 4xx answer

      const last = mine.at(-1) ?? { type: 'NONE' };
      const runError = mine.find((e) => e.type === 'RUN_ERROR');
      if (runError) error = String(runError.message);
      const outcome = last.outcome as { type: string; interrupts?: RunOutcome['interrupts'] } | undefined;
      return { events: mine, types: mine.map((e) => e.type), last, interrupts: outcome?.interrupts ?? [], error };
    },
  };
  return fe;
}

/** The text of the run's assistant messages, from its TEXT_MESSAGE_CONTENT events. */
export const textOf = (events: FrontEnd['events']) =>
  events
    .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
    .map((e) => e.delta)
    .join('');
