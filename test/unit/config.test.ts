import { ConfigError, SEARCH_ATTRIBUTES, loadConfig, loadDevConfig, setting } from '../../temporal.config';

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
    expect(c.dev.devServer).toEqual({ address: 'localhost:7233', dbFile: '.temporal/dev.db', uiPort: 8233 });
    expect(c.dev.scriptedModelPort).toBe(0);
    expect(c).toMatchObject({ grantsWorkflowId: 'countersign-grants', sessionMaxItems: 200, debug: false });
    expect([c.codecToken, c.serveTokens, c.linkSecret]).toEqual([undefined, undefined, undefined]);
    expect(c.demoOutbox).toBe('.countersign/outbox.jsonl');
    expect(c.maxCachedWorkflows).toBeUndefined();
  });

  test('payload storage: the file store by default, S3 or off when asked, one line when it cannot work', () => {
    expect(loadConfig({ ...base }).payloadStorage).toEqual({
      kind: 'file',
      dir: '.temporal/payloads',
      thresholdBytes: 262144,
    });
    expect(loadConfig({ ...base, COUNTERSIGN_PAYLOAD_STORAGE: 'off' }).payloadStorage).toEqual({ kind: 'off' });
    expect(
      loadConfig({
        ...base,
        COUNTERSIGN_PAYLOAD_STORAGE: 's3',
        COUNTERSIGN_PAYLOAD_S3_BUCKET: 'b',
        COUNTERSIGN_PAYLOAD_S3_ENDPOINT: 'http://127.0.0.1:9000',
        COUNTERSIGN_PAYLOAD_THRESHOLD_BYTES: '1024',
      }).payloadStorage,
    ).toEqual({ kind: 's3', bucket: 'b', endpoint: 'http://127.0.0.1:9000', thresholdBytes: 1024 });
    expect(() => loadConfig({ ...base, COUNTERSIGN_PAYLOAD_STORAGE: 's3' })).toThrow(
      new ConfigError(
        'COUNTERSIGN_PAYLOAD_STORAGE is s3 but COUNTERSIGN_PAYLOAD_S3_BUCKET is not set: name the bucket',
      ),
    );
    expect(() => loadConfig({ ...base, COUNTERSIGN_PAYLOAD_STORAGE: 'disk' })).toThrow(
      new ConfigError('COUNTERSIGN_PAYLOAD_STORAGE: must be "file", "s3" or "off"'),
    );
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
    expect(c.model).toMatchObject({
      baseURL: 'http://localhost:11434/v1',
      apiKey: 'sk-x',
      model: 'llama3.1',
      api: 'chat',
    });
    expect(c.dev.devServer.uiPort).toBe(9000);
    expect(c.demoOutbox).toBe('/tmp/o.jsonl');
    expect(c.maxCachedWorkflows).toBe(500);
  });

  test('the settings the CLI, the servers and the grants read come from the same configuration', () => {
    const secret = 'x'.repeat(32);
    const c = loadConfig({
      ...base,
      COUNTERSIGN_GRANTS_WORKFLOW_ID: 'grants-2',
      COUNTERSIGN_SESSION_MAX_ITEMS: '20',
      COUNTERSIGN_CODEC_TOKEN: 'codec-token',
      COUNTERSIGN_SERVE_TOKENS: 'ann:0123456789abcdef',
      COUNTERSIGN_LINK_SECRET: secret,
      COUNTERSIGN_DEBUG: '1',
      COUNTERSIGN_SCRIPTED_MODEL_PORT: '4100',
    });
    expect(c).toMatchObject({
      grantsWorkflowId: 'grants-2',
      sessionMaxItems: 20,
      codecToken: 'codec-token',
      serveTokens: 'ann:0123456789abcdef',
      linkSecret: secret,
      debug: true,
    });
    expect(c.links).toBeUndefined(); // no COUNTERSIGN_PUBLIC_URL: the secret only checks links (countersign serve)
    expect(c.dev.scriptedModelPort).toBe(4100);
  });

  test('overrides (command-line options, startWorker and Runner.connect options) win over the environment', () => {
    const c = loadConfig(
      { ...base, TEMPORAL_ADDRESS: 'a:1', TEMPORAL_NAMESPACE: 'n1', COUNTERSIGN_TASK_QUEUE: 'q1' },
      { address: 'b:2', namespace: 'n2', taskQueue: 'q2' },
    );
    expect([c.address, c.namespace, c.taskQueue]).toEqual(['b:2', 'n2', 'q2']);
    expect(loadConfig({ ...base, COUNTERSIGN_TASK_QUEUE: 'q1' }, { taskQueue: undefined }).taskQueue).toBe('q1');
  });

  test('without TEMPORAL_ADDRESS or a profile address, everything connects to the dev address', () => {
    const c = loadConfig({ ...base, COUNTERSIGN_DEV_ADDRESS: '127.0.0.1:7300' });
    expect([c.address, c.addressExplicit, c.connection.address]).toEqual(['127.0.0.1:7300', false, '127.0.0.1:7300']);
  });

  test('the S3 region: COUNTERSIGN_PAYLOAD_S3_REGION, else AWS_REGION', () => {
    const s3 = { ...base, COUNTERSIGN_PAYLOAD_STORAGE: 's3', COUNTERSIGN_PAYLOAD_S3_BUCKET: 'b' };
    expect(loadConfig({ ...s3, AWS_REGION: 'eu-west-1' }).payloadStorage).toMatchObject({ region: 'eu-west-1' });
    expect(
      loadConfig({ ...s3, AWS_REGION: 'eu-west-1', COUNTERSIGN_PAYLOAD_S3_REGION: 'us-west-2' }).payloadStorage,
    ).toMatchObject({ region: 'us-west-2' });
  });

  test('loadDevConfig: the dev server, the demo MCP server and the test harness', () => {
    expect(loadDevConfig({})).toEqual({
      devServer: { address: 'localhost:7233', dbFile: '.temporal/dev.db', uiPort: 8233 },
      scriptedModelPort: 0,
      inboxPort: 8234,
      demoMcp: { hide: [] },
      test: { faultsFull: false },
    });
    const d = loadDevConfig({
      COUNTERSIGN_MCP_HIDE: 'drop_table, fail_always',
      COUNTERSIGN_MCP_LEDGER: '/tmp/l',
      COUNTERSIGN_TEST_ADDRESS: '127.0.0.1:1',
      COUNTERSIGN_FAULTS_FULL: '1',
    });
    expect(d.demoMcp).toEqual({ ledger: '/tmp/l', hide: ['drop_table', 'fail_always'] });
    expect(d.test).toEqual({ address: '127.0.0.1:1', faultsFull: true });
    expect(() => loadDevConfig({ COUNTERSIGN_SCRIPTED_MODEL_PORT: 'any' })).toThrow(
      new ConfigError('COUNTERSIGN_SCRIPTED_MODEL_PORT: must be a port number such as 4000'),
    );
    expect(loadDevConfig({ COUNTERSIGN_INBOX_PORT: '0' }).inboxPort).toBe(0);
    expect(() => loadDevConfig({ COUNTERSIGN_INBOX_PORT: 'any' })).toThrow(
      new ConfigError('COUNTERSIGN_INBOX_PORT: must be a port number such as 8234'),
    );
  });

  test('setting: one variable, checked, with its declared default', () => {
    expect(setting('COUNTERSIGN_DEMO_OUTBOX', {})).toBe('.countersign/outbox.jsonl');
    expect(setting('COUNTERSIGN_GRANTS_WORKFLOW_ID', { COUNTERSIGN_GRANTS_WORKFLOW_ID: 'g' })).toBe('g');
    expect(setting('PATH', { PATH: '' })).toBe('/usr/local/bin:/usr/bin:/bin');
    expect(setting('COUNTERSIGN_DEMO_OUTBOX', { COUNTERSIGN_MODEL_API: 'bad' })).toBe('.countersign/outbox.jsonl'); // other variables are not its business
    expect(() => setting('COUNTERSIGN_SESSION_MAX_ITEMS', { COUNTERSIGN_SESSION_MAX_ITEMS: '0' })).toThrow(
      new ConfigError('COUNTERSIGN_SESSION_MAX_ITEMS: must be a whole number from 1 to 100000'),
    );
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
    [
      { COUNTERSIGN_MAX_CACHED_WORKFLOWS: 'lots' },
      'COUNTERSIGN_MAX_CACHED_WORKFLOWS: must be a whole number such as 1000',
    ],
    [
      { COUNTERSIGN_MAX_CACHED_WORKFLOWS: '2.5' },
      'COUNTERSIGN_MAX_CACHED_WORKFLOWS: must be a whole number such as 1000',
    ],
    [
      { COUNTERSIGN_SESSION_MAX_ITEMS: 'lots' },
      'COUNTERSIGN_SESSION_MAX_ITEMS: must be a whole number from 1 to 100000',
    ],
    [
      { COUNTERSIGN_LINK_SECRET: 'short' },
      'COUNTERSIGN_LINK_SECRET: must be at least 32 characters (e.g. openssl rand -base64 32)',
    ],
    [{ COUNTERSIGN_DEV_ADDRESS: 'localhost' }, 'COUNTERSIGN_DEV_ADDRESS: must look like localhost:7233'],
  ])('bad value %j is one clear ConfigError', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });
});

test("the search attributes npm start registers and the worker checks for are the contract's, by CLI type name", () => {
  expect(SEARCH_ATTRIBUTES).toEqual({
    HitlStatus: 'Keyword',
    HitlPendingTools: 'KeywordList',
    HitlAgent: 'Keyword',
    HitlPendingSince: 'Datetime',
  });
});
