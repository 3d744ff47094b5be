// The dev server every bench section measures on: the project's Temporal CLI, Countersign's search attributes, no
// Web UI, eager activity dispatch on (as `npm start`'s is); and the scripted model's endpoint every section's worker calls.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { EAGER_ACTIVITIES } from '../devtools/devServer';
import { RUN_SEARCH_ATTRIBUTES } from '../contract/searchAttributes';
import type { ModelEndpoint } from '../temporal.config';
import { binaryPath } from '../test/support/toolchain';

export const startBenchServer = () =>
  TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: binaryPath('temporal') },
      searchAttributes: [...RUN_SEARCH_ATTRIBUTES],
      ui: false,
      extraArgs: [...EAGER_ACTIVITIES],
    },
  });

/** The endpoint of the scripted model at `baseURL`, as the bench's Countersign workers call it. */
export const benchModel = (baseURL: string) =>
  ({
    baseURL,
    apiKey: 'k',
    model: 'scripted',
    api: 'responses',
    requestTimeoutMs: 10_000,
  }) as const satisfies ModelEndpoint;
