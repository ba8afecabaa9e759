/**
 * Case services on the process backend (issue 19): child processes in the case's own `unshare -n` namespace (only
 * loopback, shared with the entry), their names resolving to 127.0.0.1 through an /etc/hosts bind-mounted in the
 * case's mount namespace, started and watched by the pod supervisor. Where this host permits no network namespace
 * with loopback up, or no mount namespace, services are refused with the reason.
 *
 * Weaker than docker's pod, and said so in `weakerIsolation`: a service's image is not used (its command runs on
 * this host's binaries), and its files are staged copies whose container paths are rewritten in its command and
 * environment (a path the service's own code names inside itself is not). In a private root (issue 17) the
 * services stay outside it, as their own user (SERVICE_UID), their staged directory hidden from the case.
 */
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { shQuote } from '../../util/index.js';
import type { SandboxSpec, ServiceRecord, ServiceSpec } from '../protocol.js';
import { describeReady } from '../ready-probe.js';
import { logTail, ServiceError } from '../service-error.js';
import { makeWorldReadable } from '../staging.js';
import type { ProcessCapabilities } from './capabilities.js';
import { POD_SUPERVISOR } from './pod-supervisor.js';

/** Why this host cannot run `spec`'s services in the process backend, or null when it can (or there are none). */
export function servicesRefusal(spec: SandboxSpec, caps: ProcessCapabilities): string | null {
  if (!spec.services?.length) return null;
  const missing: string[] = [];
  if (!caps.netns) missing.push('a network namespace (unshare -n)');
  else if (!caps.loopbackUp) missing.push('a way to bring loopback up in it (ip or ifconfig)');
  if (!caps.mountns) missing.push('a mount namespace (for the services’ /etc/hosts)');
  const noCommand = spec.services.find((s) => !s.command);
  if (noCommand) {
    return `sandbox process: service ${noCommand.name} names no command, and the process backend has no image to take one from (use --sandbox docker)`;
  }
  return missing.length
    ? `sandbox process: case services need ${missing.join(' and ')}, which this host does not permit; run this commission with --sandbox docker`
    : null;
}

/** What the services add to the case's inner script, and how their failures and logs come back. */
export interface StagedServices {
  /** Where the services' config, copies and logs are (evaluator-owned: hidden from the entry in a private root). */
  dir: string;
  /** Lines inside the namespaces, after the mounts and before the entry. */
  start: string[];
  /** Lines after the entry (its status in $heldout_rc). */
  check: string[];
  weakerIsolation: string[];
  /** The first service failure, with its log tail; null when every service served. */
  failure(): Promise<ServiceError | null>;
  /** Copies each service's log into `dir` and says how each ran. */
  records(dir?: string): Promise<ServiceRecord[]>;
}

function rewrite(text: string, files: { from: string; to: string }[]): string {
  let out = text;
  for (const f of files) out = out.split(f.from).join(f.to);
  return out;
}

/** Stages `spec`'s services under `stage` and writes the supervisor and its config. */
export async function stageServices(
  spec: SandboxSpec,
  stage: string,
  options: { node: string; env: Record<string, string>; uid: number | null },
): Promise<StagedServices> {
  const services = spec.services ?? [];
  const dir = join(stage, 'services');
  await mkdir(dir, { recursive: true });
  const config = {
    uid: options.uid,
    gid: options.uid,
    failure: join(dir, 'failure.json'),
    pids: join(dir, 'pids.json'),
    services: [] as unknown[],
  };
  for (const s of services) {
    const own = join(dir, s.name);
    await mkdir(own, { recursive: true });
    const files: { from: string; to: string }[] = [];
    for (const [i, f] of (s.files ?? []).entries()) {
      const copy = join(own, 'files', String(i), basename(f.hostPath));
      await cp(f.hostPath, copy, { recursive: true, dereference: false, verbatimSymlinks: true });
      files.push({ from: f.containerPath.replace(/\/+$/, ''), to: copy });
    }
    // longest container paths first, so /data/x is rewritten before /data
    files.sort((a, b) => b.from.length - a.from.length);
    const command = s.command!;
    const argv =
      typeof command === 'string' ? ['/bin/sh', '-c', rewrite(command, files)] : command.map((a) => rewrite(a, files));
    const env = {
      ...options.env,
      ...Object.fromEntries(Object.entries(s.env ?? {}).map(([k, v]) => [k, rewrite(v, files)])),
    };
    config.services.push({
      name: s.name,
      argv,
      cwd: own,
      env,
      log: join(dir, `${s.name}.log`),
      ready: s.ready ?? null,
      describe: s.ready ? describeReady(s.ready) : 'running',
      timeoutMs: s.timeoutSeconds * 1000,
    });
  }
  await writeFile(join(dir, 'config.json'), JSON.stringify(config));
  await writeFile(join(dir, 'pod.js'), POD_SUPERVISOR);
  const hosts = ['127.0.0.1\tlocalhost', '::1\tlocalhost', ...services.map((s) => `127.0.0.1\t${s.name}`)];
  await writeFile(join(dir, 'hosts'), `${hosts.join('\n')}\n`);
  await makeWorldReadable(dir);
  const supervisor = (mode: string) =>
    `${shQuote(options.node)} ${shQuote(join(dir, 'pod.js'))} ${mode} ${shQuote(join(dir, 'config.json'))}`;

  const logOf = async (name: string) => readFile(join(dir, `${name}.log`), 'utf8').catch(() => '');
  return {
    dir,
    start: [`mount --bind ${shQuote(join(dir, 'hosts'))} /etc/hosts`, `${supervisor('start')} || exit 97`],
    check: [`${supervisor('check')} || exit 97`],
    weakerIsolation: [
      `services: ${services.map((s) => s.name).join(', ')} ran on this host's binaries (images ignored), in the case's network namespace; their files were staged copies with container paths rewritten in command and environment`,
    ],
    async failure() {
      const raw = await readFile(config.failure, 'utf8').catch(() => null);
      if (raw === null) return null;
      const f = JSON.parse(raw) as { name: string; problem: string };
      return new ServiceError(f.name, f.problem, logTail(await logOf(f.name)));
    },
    async records(logDir) {
      const pids = JSON.parse(await readFile(config.pids, 'utf8').catch(() => '[]')) as [string, number, number][];
      const out: ServiceRecord[] = [];
      for (const s of services as ServiceSpec[]) {
        let log: string | null = null;
        if (logDir) {
          await mkdir(logDir, { recursive: true });
          log = join(logDir, `${s.name}.log`);
          await writeFile(log, await logOf(s.name));
        }
        out.push({ name: s.name, image: s.image, readyMs: pids.find((p) => p[0] === s.name)?.[2] ?? 0, log });
      }
      return out;
    },
  };
}
