/**
 * Runs one command in a docker sandbox attached to the gateway, with the flags DESIGN §7/§16 name: no network,
 * read-only root, user 65534, all capabilities dropped, no-new-privileges, pids/memory limits, a small tmpfs /tmp;
 * the delivery read-only at /delivery, /out the only writable mount; the gateway socket and the relay script
 * bind-mounted, the relay started in front of the command (`node relay.mjs <port> <socket> -- <command>`).
 * Used by the gateway's own acceptance test so it does not depend on the sandbox backend's progress.
 */
import { PassThrough } from 'node:stream';
import Docker from 'dockerode';
import type { GatewayAttachment } from '../../src/sandbox/types.js';
import { WAIT_MS } from '../helpers/deadlines.js';

export interface ContainerRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export async function runAttached(opts: {
  image: string;
  attachment: GatewayAttachment;
  deliveryDir: string;
  outDir: string;
  command: string[];
  env?: Record<string, string>;
  mounts?: { hostPath: string; containerPath: string; readOnly: boolean }[];
  timeoutMs?: number;
}): Promise<ContainerRun> {
  const docker = new Docker();
  const a = opts.attachment;
  const env = { ...a.env, ...(opts.env ?? {}) };
  const binds = [
    `${opts.deliveryDir}:/delivery:ro`,
    `${opts.outDir}:/out:rw`,
    `${a.socketPath}:/run/heldout/gateway.sock`,
    `${a.relayScript}:/run/heldout/relay.mjs:ro`,
    ...(opts.mounts ?? []).map((m) => `${m.hostPath}:${m.containerPath}:${m.readOnly ? 'ro' : 'rw'}`),
  ];
  const container = await docker.createContainer({
    Image: opts.image,
    Cmd: ['node', '/run/heldout/relay.mjs', String(a.port), '/run/heldout/gateway.sock', '--', ...opts.command],
    User: '65534:65534',
    WorkingDir: '/delivery',
    Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
    Labels: { 'heldout.test': 'gateway' },
    HostConfig: {
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      PidsLimit: 64,
      Memory: 256 * 1024 * 1024,
      Tmpfs: { '/tmp': 'rw,size=16m' },
      Binds: binds,
    },
  });
  const out = new PassThrough();
  const err = new PassThrough();
  const so: Buffer[] = [];
  const se: Buffer[] = [];
  out.on('data', (c) => so.push(c));
  err.on('data', (c) => se.push(c));
  try {
    const stream = await container.attach({ stream: true, stdout: true, stderr: true });
    // The attached stream ends once the container's output is all read (not after a pause that hopes it is).
    const drained = new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
    });
    container.modem.demuxStream(stream, out, err);
    await container.start();
    let timedOut = false;
    // Ends a container that hangs; never one that is slow on a busy machine.
    const timer = setTimeout(() => {
      timedOut = true;
      container.kill().catch(() => {});
    }, opts.timeoutMs ?? WAIT_MS);
    const { StatusCode } = await container.wait();
    clearTimeout(timer);
    await drained;
    return {
      exitCode: StatusCode,
      stdout: Buffer.concat(so).toString('utf8'),
      stderr: Buffer.concat(se).toString('utf8'),
      timedOut,
    };
  } finally {
    await container.remove({ force: true }).catch(() => {});
  }
}
