/**
 * Mapped URL services reached from a sandbox with no network (issue 30), the way the model gateway is (DESIGN §16):
 * per case and service a Unix socket on the host that pipes each connection to the mapped URL's host:port (or Unix
 * socket), bind-mounted into the sandbox, where the gateway's relay listens on 127.0.0.1:<port> in front of it. The
 * sandbox reaches that one port and nothing else of the host.
 */
import { realpathSync, statSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import { isAbsolute, join } from 'node:path';
import { RELAY_FAILED_EXIT, relayFailureMarker, type ServiceRelay } from '../sandbox/index.js';

/** Where a relayed service's connections go on the host. */
export type RelayTarget = { host: string; port: number } | { unix: string };

/** A mapped value that is a URL: where the host relay connects, and the in-sandbox URL's scheme and rest. */
export interface RelayedUrl {
  target: RelayTarget;
  /** The scheme the sandbox's URL keeps (`http+unix` becomes `http`: the relay turns the socket into TCP). */
  scheme: string;
  /** Everything after the authority, as given (path, query, fragment; possibly empty). */
  rest: string;
}

const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443, ws: 80, wss: 443 };

/**
 * The relay a mapped value needs: null for a command (no `scheme://`), else its target; throws a one-line error
 * naming the service for a URL heldout cannot relay (an unknown scheme, a bad port). Pure.
 */
export function relayedUrl(service: string, value: string): RelayedUrl | null {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(.*)$/i.exec(value);
  if (!m) return null;
  const scheme = m[1]!.toLowerCase();
  const authority = m[2]!;
  const rest = m[3]!;
  const bad = (why: string) => new Error(`--service ${service}=${value}: ${why}`);
  if (scheme === 'http+unix') {
    const path = decodeURIComponent(authority);
    if (!path.startsWith('/')) throw bad('an http+unix URL names an absolute socket path, percent-encoded');
    return { target: { unix: path }, scheme: 'http', rest };
  }
  const defaultPort = DEFAULT_PORTS[scheme];
  if (defaultPort === undefined) throw bad(`cannot relay the scheme ${scheme}: (http, https, ws, wss or http+unix)`);
  let url: URL;
  try {
    url = new URL(`${scheme === 'ws' || scheme === 'wss' ? 'http' : 'https'}://${authority}`);
  } catch {
    throw bad('not a valid host[:port]');
  }
  if (url.username || url.password) throw bad('credentials in the URL are not relayed; pass them by their variables');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { target: { host, port: url.port ? Number(url.port) : defaultPort }, scheme, rest };
}

/** The URL the sandbox is given for a relayed service listening on its own 127.0.0.1:<port>. */
export const sandboxUrl = (r: RelayedUrl, port: number) => `${r.scheme}://127.0.0.1:${port}${r.rest}`;

/** First loopback port of mapped services inside a sandbox (the gateway's relay has 4141). */
export const FIRST_SERVICE_PORT = 4142;

/** Resolves once the target accepts a connection; a service that does not is the evaluator's gap, named. */
function answers(name: string, target: RelayTarget): Promise<void> {
  const where = 'unix' in target ? target.unix : `${target.host}:${target.port}`;
  return new Promise((resolve, reject) => {
    const probe = 'unix' in target ? net.connect(target.unix) : net.connect(target.port, target.host);
    probe.once('connect', () => {
      probe.destroy();
      resolve();
    });
    probe.once('error', (err) =>
      reject(new Error(`service "${name}" is mapped to ${where}, where nothing answers (${err.message})`)),
    );
  });
}

/** Host relays of one case: what the sandbox spec carries, and how to stop them. */
export interface CaseRelays {
  relays: ServiceRelay[];
  close(): Promise<void>;
}

/**
 * Starts a Unix-socket server per relayed service in a fresh temp directory (short path: socket paths are limited
 * to ~108 bytes), mode 0666 so the sandbox user can connect. A target that refuses a first connection, or a
 * server that cannot listen, throws naming its service (the case is then an infra-error).
 */
export async function startCaseRelays(
  services: { name: string; target: RelayTarget; port: number; env: Record<string, string> }[],
  relayScript: string,
): Promise<CaseRelays> {
  const dir = await mkdtemp(join(os.tmpdir(), 'heldout-svc-'));
  await chmod(dir, 0o755);
  const servers: net.Server[] = [];
  const sockets = new Set<net.Socket>();
  const close = async () => {
    for (const s of sockets) s.destroy();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    await rm(dir, { recursive: true, force: true });
  };
  const relays: ServiceRelay[] = [];
  try {
    for (const s of services) {
      await answers(s.name, s.target);
      const socketPath = join(dir, `${s.name}.sock`);
      const server = net.createServer((client) => {
        const upstream = 'unix' in s.target ? net.connect(s.target.unix) : net.connect(s.target.port, s.target.host);
        for (const c of [client, upstream]) {
          sockets.add(c);
          c.on('close', () => sockets.delete(c));
        }
        client.pipe(upstream);
        upstream.pipe(client);
        // A refused upstream closes the sandbox's connection: the delivery sees the service down, as it would be.
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.end());
      });
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', (err) =>
          reject(new Error(`service "${s.name}": its relay cannot listen on ${socketPath}: ${err.message}`)),
        );
        server.listen(socketPath, () => resolve());
      });
      await chmod(socketPath, 0o666);
      relays.push({ name: s.name, socketPath, relayScript, port: s.port, env: s.env });
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { relays, close };
}

/** A case's mapped services as the sandbox gets them: relays to start, the variables left as given, command mounts. */
export interface CaseServicePlan {
  relays: { name: string; target: RelayTarget; port: number; env: Record<string, string> }[];
  env: Record<string, string>;
  mounts: { hostPath: string; containerPath: string; readOnly: boolean }[];
}

/**
 * Splits a case's external-service variables (`externalServiceEnv`'s `env`): a URL service gets a relay and its
 * variables the in-sandbox URL; a command that is an absolute path to a file on this host is mounted read-only at
 * that path (the package's contract names the path); any other command is passed as given (it must be in the image).
 */
export function planCaseServices(
  services: { name: string; env: string[] }[],
  mapped: Record<string, string>,
  env: Record<string, string>,
  serviceVariable: (name: string) => string,
): CaseServicePlan {
  const plan: CaseServicePlan = { relays: [], env: { ...env }, mounts: [] };
  for (const s of services) {
    const value = mapped[s.name];
    const own = serviceVariable(s.name);
    // Only the services this case needs have their variable set.
    if (value === undefined || env[own] !== value) continue;
    const url = relayedUrl(s.name, value);
    if (url) {
      const port = FIRST_SERVICE_PORT + plan.relays.length;
      const vars = Object.fromEntries([own, ...s.env].map((v) => [v, sandboxUrl(url, port)]));
      for (const v of Object.keys(vars)) delete plan.env[v];
      plan.relays.push({ name: s.name, target: url.target, port, env: vars });
    } else if (isAbsolute(value) && isHostFile(value)) {
      plan.mounts.push({ hostPath: realpathSync(value), containerPath: value, readOnly: true });
    }
  }
  return plan;
}

const isHostFile = (p: string) => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

/** The infra-error reason when a service relay did not start inside the sandbox (the wrapper's marker), else null. */
export function relayFailure(
  execution: { exitCode: number | null; stderr: string },
  relays: ServiceRelay[],
  nonce: string,
): string | null {
  if (execution.exitCode !== RELAY_FAILED_EXIT) return null;
  const failed = relays.find((r) => execution.stderr.includes(relayFailureMarker(nonce, r.name)));
  return failed
    ? `service "${failed.name}": its relay did not start in the sandbox (127.0.0.1:${failed.port} never listened); ` +
        'the case did not run'
    : null;
}
