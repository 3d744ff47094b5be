// Tracing off costs nothing: a process that loads the worker, the client library and the configuration without
// OTEL_EXPORTER_OTLP_ENDPOINT loads no OpenTelemetry module; starting tracing loads them (the control).
import { execFileSync } from 'node:child_process';
import { projectRoot } from '../support/toolchain';

const probe = (startTracing: boolean) => `
  const { loadConfig } = require('./temporal.config');
  require('./worker'); require('./entries/client'); require('./client/clientConnection');
  const config = loadConfig({ OTEL_SERVICE_NAME: 'x' });
  const loaded = () => Object.keys(require.cache).filter((p) => /@opentelemetry|interceptors-opentelemetry/.test(p)).length;
  (async () => {
    if (${startTracing}) {
      const { InMemorySpanExporter } = require('@opentelemetry/sdk-trace-base');
      const { startTracing } = require('./config/tracing');
      await startTracing({ serviceName: 'x', exporter: new InMemorySpanExporter() });
    }
    console.log(JSON.stringify({ tracing: config.tracing ?? null, loaded: loaded() }));
  })();`;

const run = (startTracing: boolean) =>
  JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', '-e', probe(startTracing)], {
      cwd: projectRoot,
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '' },
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop()!,
  ) as { tracing: unknown; loaded: number };

test('with tracing off, loading the worker, the client and the configuration loads no OpenTelemetry module', () => {
  expect(run(false)).toEqual({ tracing: null, loaded: 0 });
}, 60_000);

test('starting tracing loads them (the check can see them)', () => {
  expect(run(true).loaded).toBeGreaterThan(5);
}, 60_000);

test('OTEL_EXPORTER_OTLP_ENDPOINT turns tracing on, with OTEL_SERVICE_NAME or countersign', () => {
  const { loadConfig } = require('../../temporal.config') as typeof import('../../temporal.config');
  expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracing).toEqual({
    endpoint: 'http://127.0.0.1:4318',
    serviceName: 'countersign',
  });
  expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/', OTEL_SERVICE_NAME: 'billing' }).tracing).toEqual({
    endpoint: 'http://c:4318/',
    serviceName: 'billing',
  });
  expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' })).toThrow(
    /OTEL_EXPORTER_OTLP_ENDPOINT.*must be a URL such as http:\/\/127.0.0.1:4318/,
  );
});
