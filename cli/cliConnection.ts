// How a `countersign` command reaches the cluster: a Runner (and its Client) built once per invocation from the
// global options and the environment.
import type { Client } from '@temporalio/client';
import type { Runner } from '../client/run/runner';
import type { CountersignConfig } from '../temporal.config';

/** `config`: the loaded configuration the connection was made from (absent: the settings' defaults apply). */
export type Connect = () => Promise<{ runner: Runner; client: Client; config?: CountersignConfig }>;
