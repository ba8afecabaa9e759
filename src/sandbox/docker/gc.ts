/**
 * What a killed run left on an engine (DESIGN §7): every Swarm service, container, network and volume labelled
 * `heldout=1`, or only those of one run. Services go first: their tasks' containers would otherwise be recreated
 * or hold the volumes. With `keepLive`, whatever a live process still owns stays (owner.ts): a sweep collects only
 * what a run whose process is gone left behind.
 */
import type Docker from 'dockerode';
import { OWNER_LABEL, ownerState } from '../owner.js';
import type { Removed } from '../protocol.js';
import { LABEL, RUN_LABEL } from './container-setup.js';
import { engineAnswers, engineLabel, getDocker, statusOf } from './engine.js';
import { removeContainers } from './live-containers.js';

/** What `gc` removed on one engine, by kind. */
export interface GcResult {
  containers: number;
  networks: number;
  volumes: number;
  /** Swarm services (only when the engine is a swarm manager). */
  services: number;
  /** Objects left alone because their owner is alive (or, sweeping every run, cannot be checked from here). */
  kept: number;
}

/** Gc's choice for one labelled object: a live owner's stays; an unknown owner's goes only when its run is named. */
function keeps(labels: Record<string, string> | undefined | null, keepLive: boolean, runNamed: boolean): boolean {
  if (!keepLive) return false;
  const state = ownerState(labels?.[OWNER_LABEL]);
  return state === 'live' || (state === 'unknown' && !runNamed);
}

/** Counts one removal; something already gone (404) is not counted, any other refusal rejects. */
async function removed(remove: () => Promise<unknown>): Promise<number> {
  try {
    await remove();
    return 1;
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
    return 0;
  }
}

/**
 * Removes every heldout service, container, network and volume (only those of `runId` when given) on one engine;
 * with `keepLive`, only those whose owner process is gone (and, when `runId` names the run, those of no known owner).
 */
export async function gc(options: { docker?: Docker; runId?: string; keepLive?: boolean } = {}): Promise<GcResult> {
  const docker = options.docker ?? getDocker();
  const label = options.runId ? [`${RUN_LABEL}=${options.runId}`] : [`${LABEL}=1`];
  const result: GcResult = { containers: 0, networks: 0, volumes: 0, services: 0, kept: 0 };
  const keep = (labels: Record<string, string> | undefined | null) => {
    const k = keeps(labels, options.keepLive === true, options.runId !== undefined);
    if (k) result.kept++;
    return k;
  };
  let services: { ID: string; Spec?: { Labels?: Record<string, string> } }[] = [];
  try {
    services = (await docker.listServices({ filters: { label } })) as typeof services;
  } catch (err) {
    // 503: this engine is not a swarm manager; 404: it has no swarm API at all (podman). Either way, no services.
    if (statusOf(err) !== 503 && statusOf(err) !== 404) throw err;
  }
  services = services.filter((s) => !keep(s.Spec?.Labels));
  for (const s of services) result.services += await removed(() => docker.getService(s.ID).remove());
  if (services.length > 0) await waitForTaskContainers(docker, label);
  const list = (await docker.listContainers({ all: true, filters: { label } })).filter((c) => !keep(c.Labels));
  const swept = await removeContainers(
    docker,
    list.map((c) => c.Id),
  );
  if (swept.failed.length > 0) throw swept.failed[0]!.err;
  result.containers += swept.removed.length;
  for (const n of await docker.listNetworks({ filters: { label } }))
    if (!keep(n.Labels)) result.networks += await removed(() => docker.getNetwork(n.Id).remove());
  for (const v of (await docker.listVolumes({ filters: { label } })).Volumes ?? [])
    if (!keep(v.Labels)) result.volumes += await removed(() => docker.getVolume(v.Name).remove({ force: true }));
  return result;
}

/** Removed services' task containers disappear asynchronously; wait (≤ 10 s) so the container sweep sees them. */
async function waitForTaskContainers(docker: Docker, label: string[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const left = await docker.listContainers({
      all: true,
      filters: { label: [...label, 'com.docker.swarm.service.id'] },
    });
    if (left.length === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A docker-isolated backend's `cleanup`: `gc` on its engine, which must answer within 5 s. */
export async function cleanupEngine(
  docker: Docker,
  runId?: string,
  keepLive = false,
  engine = 'docker',
): Promise<Removed> {
  if (!(await engineAnswers(5000, docker))) {
    throw new Error(`no ${engine} engine answers at ${engineLabel(docker)}; nothing to clean there`);
  }
  return { ...(await gc({ docker, runId, keepLive })) };
}
