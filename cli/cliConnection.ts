// How a `countersign` command reaches the cluster: a Runner (and its Client) built once per invocation from the
// global options and the environment.
import type { Client } from '@temporalio/client';
import type { Runner } from '../client/run/runner';

export type Connect = () => Promise<{ runner: Runner; client: Client }>;
