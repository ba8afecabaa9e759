/**
 * How a docker sandbox's files get in and its outputs out: bind mounts of host paths (the engine shares this host's
 * filesystem), or labelled named volumes filled and read through the engine API (any engine, issue 13).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { OWNER_LABEL, ownerToken } from '../owner.js';
import type { GatewayAttachment, SandboxSpec } from '../protocol.js';
import { stageCase } from '../staging.js';
import { caseVolumes, collectCase, stageThroughArchive } from './archive-stage.js';
import { CONTAINER_PATHS, GATEWAY_PATHS, gatewaySocketMount, LABEL, RUN_LABEL } from './container-setup.js';

/** Where a mapped service's socket is inside (issue 30). */
export const serviceSocket = (name: string) => `${GATEWAY_PATHS.services}/${name}.sock`;

/** Where a sandbox's files come from and how its outputs come back. */
export interface Staged {
  mounts: Docker.MountSettings[];
  /** Path of the gateway relay inside. */
  relay: string;
  /** Archive mode: copies /out (and writable extra mounts) back to the host after exit. */
  collect(): Promise<void>;
  remove(): Promise<void>;
}

/** Bind mode: the case staged in a host temp dir; delivery, case, outputs, gateway and extra mounts bound in. */
export async function stageBind(spec: SandboxSpec): Promise<Staged> {
  const stage = await mkdtemp(join(os.tmpdir(), 'heldout-case-'));
  try {
    await stageCase(spec, stage);
  } catch (err) {
    await rm(stage, { recursive: true, force: true });
    throw err;
  }
  const mounts: Docker.MountSettings[] = [
    { Type: 'bind', Source: spec.deliveryDir, Target: CONTAINER_PATHS.delivery, ReadOnly: true },
    { Type: 'bind', Source: stage, Target: CONTAINER_PATHS.case, ReadOnly: true },
    { Type: 'bind', Source: spec.outputDir, Target: CONTAINER_PATHS.output, ReadOnly: false },
  ];
  const gw = spec.gateway;
  if (gw) mounts.push({ Type: 'bind', Source: gw.socketPath, Target: GATEWAY_PATHS.socket, ReadOnly: true });
  const relays = spec.serviceRelays ?? [];
  const relayScript = gw?.relayScript ?? relays[0]?.relayScript;
  if (relayScript) mounts.push({ Type: 'bind', Source: relayScript, Target: GATEWAY_PATHS.relay, ReadOnly: true });
  for (const r of relays)
    mounts.push({ Type: 'bind', Source: r.socketPath, Target: serviceSocket(r.name), ReadOnly: true });
  for (const m of spec.mounts ?? []) {
    mounts.push({ Type: 'bind', Source: m.hostPath, Target: m.containerPath, ReadOnly: m.readOnly });
  }
  return {
    mounts,
    relay: GATEWAY_PATHS.relay,
    collect: async () => {},
    remove: () => rm(stage, { recursive: true, force: true }),
  };
}

/** Archive mode: every file in a volume of the case's own; only the gateway's socket is bound (from the engine host). */
export async function stageArchive(
  docker: Docker,
  spec: SandboxSpec,
  image: string,
  gw: GatewayAttachment | undefined,
  socketOnEngine: string | undefined,
): Promise<Staged> {
  const stage = await stageThroughArchive(docker, {
    name: `heldout-${spec.runId}-${spec.caseId}-t${spec.trial}-${randomBytes(4).toString('hex')}`.replace(
      /[^A-Za-z0-9_.-]/g,
      '_',
    ),
    image,
    labels: { [LABEL]: '1', [RUN_LABEL]: spec.runId, 'heldout.case': spec.caseId, [OWNER_LABEL]: ownerToken() },
    volumes: await caseVolumes(spec, gw),
  });
  const mounts = [...stage.mounts];
  if (gw) mounts.push(gatewaySocketMount(docker, gw, socketOnEngine));
  return {
    mounts,
    relay: `${GATEWAY_PATHS.relayDir}/relay.mjs`,
    collect: () => collectCase(stage, spec),
    remove: () => stage.remove(),
  };
}
