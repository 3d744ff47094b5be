import { ConfigError, loadConfig } from '../../temporal.config';

// An empty profile file so a developer's ~/.config/temporal/temporal.toml cannot leak into these tests.
const base = { TEMPORAL_CONFIG_FILE: '/nonexistent/countersign-test.toml' };

describe('loadConfig', () => {
  test('defaults: local dev server, task queue countersign, Responses API', () => {
    const c = loadConfig({ ...base });
    expect(c.address).toBe('localhost:7233');
    expect(c.addressExplicit).toBe(false);
    expect(c.namespace).toBe('default');
    expect(c.taskQueue).toBe('countersign');
    expect(c.model).toMatchObject({ api: 'responses', model: 'gpt-4.1-mini', apiKey: undefined, baseURL: undefined });
    expect(c.devServer).toEqual({ dbFile: '.temporal/dev.db', uiPort: 8233 });
    expect(c.demoOutbox).toBe('.countersign/outbox.jsonl');
    expect(c.maxCachedWorkflows).toBeUndefined();
  });

  test('payload storage: the file store by default, S3 or off when asked, one line when it cannot work', () => {
    expect(loadConfig({ ...base }).payloadStorage).toEqual({ kind: 'file', dir: '.temporal/payloads', thresholdBytes: 262144 });
    expect(loadConfig({ ...base, COUNTERSIGN_PAYLOAD_STORAGE: 'off' }).payloadStorage).toEqual({ kind: 'off' });
    expect(
      loadConfig({ ...base, COUNTERSIGN_PAYLOAD_STORAGE: 's3', COUNTERSIGN_PAYLOAD_S3_BUCKET: 'b', COUNTERSIGN_PAYLOAD_S3_ENDPOINT: 'http://127.0.0.1:9000', COUNTERSIGN_PAYLOAD_THRESHOLD_BYTES: '1024' }).payloadStorage,
    ).toEqual({ kind: 's3', bucket: 'b', endpoint: 'http://127.0.0.1:9000', thresholdBytes: 1024 });
    expect(() => loadConfig({ ...base, COUNTERSIGN_PAYLOAD_STORAGE: 's3' })).toThrow(new ConfigError('COUNTERSIGN_PAYLOAD_STORAGE is s3 but COUNTERSIGN_PAYLOAD_S3_BUCKET is not set: name the bucket'));
    expect(() => loadConfig({ ...base, COUNTERSIGN_PAYLOAD_STORAGE: 'disk' })).toThrow(new ConfigError('COUNTERSIGN_PAYLOAD_STORAGE: must be "file", "s3" or "off"'));
    expect(() => loadConfig({ ...base, COUNTERSIGN_PAYLOAD_THRESHOLD_BYTES: 'big' })).toThrow(ConfigError);
  });

  test('every field follows the environment', () => {
    const c = loadConfig({
      ...base,
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_NAMESPACE: 'agents',
      TEMPORAL_API_KEY: 'tk-123',
      COUNTERSIGN_TASK_QUEUE: 'hitl',
      OPENAI_BASE_URL: 'http://localhost:11434/v1',
      OPENAI_API_KEY: 'sk-x',
      COUNTERSIGN_MODEL: 'llama3.1',
      COUNTERSIGN_MODEL_API: 'chat',
      COUNTERSIGN_UI_PORT: '9000',
      COUNTERSIGN_DEMO_OUTBOX: '/tmp/o.jsonl',
      COUNTERSIGN_MAX_CACHED_WORKFLOWS: '500',
    });
    expect(c.address).toBe('temporal.internal:7233');
    expect(c.addressExplicit).toBe(true);
    expect(c.namespace).toBe('agents');
    expect(c.connection.apiKey).toBe('tk-123');
    expect(c.taskQueue).toBe('hitl');
    expect(c.model).toMatchObject({ baseURL: 'http://localhost:11434/v1', apiKey: 'sk-x', model: 'llama3.1', api: 'chat' });
    expect(c.devServer.uiPort).toBe(9000);
    expect(c.demoOutbox).toBe('/tmp/o.jsonl');
    expect(c.maxCachedWorkflows).toBe(500);
  });

  test('a TOML profile is read like the temporal CLI reads it', () => {
    const toml = '[profile.default]\naddress = "from-toml:7233"\nnamespace = "toml-ns"\n';
    const { writeFileSync, mkdtempSync } = require('node:fs') as typeof import('node:fs');
    const dir = mkdtempSync(require('node:os').tmpdir() + '/cs-');
    writeFileSync(`${dir}/temporal.toml`, toml);
    const c = loadConfig({ TEMPORAL_CONFIG_FILE: `${dir}/temporal.toml` });
    expect(c.address).toBe('from-toml:7233');
    expect(c.namespace).toBe('toml-ns');
  });

  test.each([
    [{ COUNTERSIGN_MODEL_API: 'completions' }, 'COUNTERSIGN_MODEL_API: must be "responses" or "chat"'],
    [{ OPENAI_BASE_URL: 'not a url' }, 'OPENAI_BASE_URL: must be a URL such as http://localhost:11434/v1'],
    [{ COUNTERSIGN_UI_PORT: '70000' }, /COUNTERSIGN_UI_PORT/],
    [{ COUNTERSIGN_MAX_CACHED_WORKFLOWS: 'lots' }, 'COUNTERSIGN_MAX_CACHED_WORKFLOWS: must be a whole number such as 1000'],
    [{ COUNTERSIGN_MAX_CACHED_WORKFLOWS: '2.5' }, 'COUNTERSIGN_MAX_CACHED_WORKFLOWS: must be a whole number such as 1000'],
  ])('bad value %j is one clear ConfigError', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });
});
