import { parse } from 'yaml';
import { asNumber, asObject, asStringList, asText } from './values.js';

/**
 * A Harbor task's `environment/docker-compose.yaml`, read the way Harbor layers it: it is merged over Harbor's own
 * base file, the service named `main` is the agent's container (Harbor sets its build, command, volumes and limits;
 * the task only adds overrides), every other service is a sidecar the agent reaches by its service name.
 */
export interface ComposeService {
  name: string;
  /** Build context and Dockerfile, relative to environment/. */
  build: { context: string; dockerfile: string } | null;
  image: string | null;
  command: string[] | null;
  entrypoint: string[] | null;
  env: Record<string, string>;
  expose: number[];
  healthcheck: {
    test: string[];
    intervalSeconds: number;
    timeoutSeconds: number;
    retries: number;
    startPeriodSeconds: number;
  } | null;
}

export interface ComposeReading {
  services: ComposeService[];
  /** Keys of `main` the task overrides, besides depends_on (which the pod start order gives). */
  mainOverrides: string[];
  /** What heldout does not carry over, one sentence each. */
  notes: string[];
}

/** Compose durations (`2s`, `1m30s`, `500ms`) in seconds, or null. */
export function durationSeconds(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return null;
  let total = 0;
  let any = false;
  for (const m of v.matchAll(/(\d+(?:\.\d+)?)(ms|us|h|m|s)/g)) {
    any = true;
    total += Number(m[1]) * { h: 3600, m: 60, s: 1, ms: 0.001, us: 0.000001 }[m[2] as 'h' | 'm' | 's' | 'ms' | 'us'];
  }
  return any ? total : null;
}

function commandList(v: unknown): string[] | null {
  if (typeof v === 'string') return ['/bin/sh', '-c', v];
  return asStringList(v);
}

function environment(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(v)) {
    for (const e of v) {
      if (typeof e !== 'string') continue;
      const eq = e.indexOf('=');
      // `- NAME` passes the host's NAME through, as `NAME=${NAME}` does.
      if (eq === -1) out[e] = `\${${e}}`;
      else out[e.slice(0, eq)] = e.slice(eq + 1);
    }
  } else {
    for (const [k, x] of Object.entries(asObject(v) ?? {})) out[k] = x === null ? `\${${k}}` : String(x);
  }
  return out;
}

const SERVICE_KEYS = ['build', 'image', 'command', 'entrypoint', 'environment', 'expose', 'healthcheck', 'depends_on'];

/** Reads the compose file's text; throws with the YAML problem when it does not parse. */
export function readCompose(text: string): ComposeReading {
  const doc = asObject(parse(text)) ?? {};
  const notes: string[] = [];
  const services: ComposeService[] = [];
  let mainOverrides: string[] = [];
  for (const k of Object.keys(doc).filter((k) => k !== 'services'))
    notes.push(
      `docker-compose.yaml \`${k}\` is not carried over (a case's services share one private network namespace)`,
    );
  for (const [name, raw] of Object.entries(asObject(doc.services) ?? {})) {
    const s = asObject(raw) ?? {};
    if (name === 'main') {
      mainOverrides = Object.keys(s).filter((k) => k !== 'depends_on');
      continue;
    }
    const b = s.build;
    const build =
      typeof b === 'string'
        ? { context: b, dockerfile: 'Dockerfile' }
        : asObject(b)
          ? {
              context: asText(asObject(b)!.context) ?? '.',
              dockerfile: asText(asObject(b)!.dockerfile) ?? 'Dockerfile',
            }
          : null;
    const h = asObject(s.healthcheck);
    const test = h ? (typeof h.test === 'string' ? ['CMD-SHELL', h.test] : asStringList(h.test)) : null;
    const extra = Object.keys(s).filter((k) => !SERVICE_KEYS.includes(k));
    if (extra.length)
      notes.push(`compose service \`${name}\`: ${extra.map((k) => `\`${k}\``).join(', ')} not carried over`);
    services.push({
      name,
      build: build ? { context: build.context.replace(/^\.\/?/, '') || '.', dockerfile: build.dockerfile } : null,
      image: asText(s.image),
      command: commandList(s.command),
      entrypoint: commandList(s.entrypoint),
      env: environment(s.environment),
      expose: (Array.isArray(s.expose) ? s.expose : [])
        .map((p) => Number.parseInt(String(p), 10))
        .filter((p) => Number.isInteger(p)),
      healthcheck:
        test && test[0] !== 'NONE'
          ? {
              test,
              intervalSeconds: durationSeconds(h!.interval) ?? 30,
              timeoutSeconds: durationSeconds(h!.timeout) ?? 30,
              retries: asNumber(h!.retries) ?? 3,
              startPeriodSeconds: durationSeconds(h!.start_period) ?? 0,
            }
          : null,
    });
  }
  return { services, mainOverrides, notes };
}
