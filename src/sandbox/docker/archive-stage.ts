/**
 * Moving a case's files through the engine API instead of host bind mounts (which name paths on the wrong machine
 * when the engine is remote, issue 13): named volumes populated with `putArchive` through a never-started helper
 * container, outputs read back with `getArchive` after the sandbox exits.
 */
import { lstat, stat } from 'node:fs/promises';
import { posix } from 'node:path';
import type Docker from 'dockerode';
import { sleep } from '../../util/index.js';
import type { GatewayAttachment, SandboxSpec } from '../protocol.js';
import { dirEntries, extractTar, type TarEntry, tarStream } from '../tar.js';
import { registerCleanup } from '../teardown.js';
import { CONTAINER_PATHS, GATEWAY_PATHS } from './container-setup.js';
import { statusOf } from './engine.js';
import { createContainer } from './flavour.js';
import { trackContainer, untrackContainer } from './live-containers.js';

/** One named volume of an archive-staged sandbox. */
export interface StagedVolume {
  /** Path inside the sandbox. */
  target: string;
  readOnly: boolean;
  /** Content put into the volume before the sandbox starts (relative paths); [] for an empty writable volume. */
  entries: TarEntry[];
}

/** Volumes created and filled for one sandbox; `mounts` go into its HostConfig (or a Swarm ContainerSpec). */
export interface ArchiveStage {
  mounts: Docker.MountSettings[];
  /** Copies the volume mounted at `target` into a host directory (after the sandbox exits). */
  collect(target: string, into: string): Promise<string[]>;
  /** Removes the helper container and every volume; never rejects. */
  remove(): Promise<void>;
}

async function removeVolumeOnceFree(docker: Docker, name: string): Promise<void> {
  for (let attempt = 0; attempt < 40; attempt++) {
    try {
      await docker.getVolume(name).remove({ force: true } as object);
      return;
    } catch (err) {
      if (statusOf(err) !== 409) return;
      await sleep(100);
    }
  }
}

/**
 * Creates one labelled named volume per entry of `volumes` on `docker`'s engine and fills it through a helper
 * container that mounts them all writable; the helper runs only `chmod 0777` on the writable mount points (after the
 * files are in, never the delivery's code). Needs `chmod` in the image (the runtime image has it).
 * Works the same on a local or a remote engine: only the engine API carries bytes.
 */
export async function stageThroughArchive(
  docker: Docker,
  opts: { name: string; image: string; labels: Record<string, string>; volumes: StagedVolume[] },
): Promise<ArchiveStage> {
  const names: string[] = [];
  let helper: Docker.Container | null = null;
  let unregister = () => {};
  const remove = async () => {
    unregister();
    if (helper) {
      await helper.remove({ force: true }).catch(() => {});
      untrackContainer(helper.id);
    }
    for (const n of names)
      await docker
        .getVolume(n)
        .remove({ force: true } as object)
        .catch(() => {});
  };
  // SIGINT: the volumes go with the run's containers (the helper is tracked like them). Those are removed at the
  // same time, and an engine refuses (409) a volume a container still uses: retry until they are gone.
  unregister = registerCleanup(async () => {
    for (const n of names) await removeVolumeOnceFree(docker, n);
  });
  try {
    const vols = opts.volumes.map((v, i) => ({ ...v, volume: `${opts.name}-v${i}` }));
    for (const v of vols) {
      await docker.createVolume({ Name: v.volume, Labels: opts.labels });
      names.push(v.volume);
    }
    const writable = vols.filter((v) => !v.readOnly).map((v) => v.target);
    helper = await createContainer(docker, {
      Image: opts.image,
      Cmd: ['chmod', '0777', ...writable],
      Entrypoint: [],
      User: '0:0',
      Labels: opts.labels,
      NetworkDisabled: true,
      HostConfig: {
        NetworkMode: 'none',
        Mounts: vols.map((v) => ({ Type: 'volume' as const, Source: v.volume, Target: v.target, ReadOnly: false })),
      },
    });
    trackContainer(helper.id, docker);
    for (const v of vols) {
      if (v.entries.length > 0) await helper.putArchive(tarStream(v.entries) as unknown as string, { path: v.target });
    }
    if (writable.length > 0) {
      // A fresh volume's root is root-owned 0755 and an archive cannot change the mount point itself: one short run
      // of the helper (root, no network, our command only) opens it to the sandbox user.
      await helper.start();
      const done = (await helper.wait()) as { StatusCode: number };
      if (done.StatusCode !== 0)
        throw new Error(
          `sandbox: could not open the output volume to the sandbox user (chmod exit ${done.StatusCode})`,
        );
    }
    const h = helper;
    return {
      mounts: vols.map((v) => ({ Type: 'volume', Source: v.volume, Target: v.target, ReadOnly: v.readOnly })),
      async collect(target, into) {
        const stream = (await h.getArchive({ path: target })) as NodeJS.ReadableStream;
        return extractTar(stream, into, 1);
      },
      remove,
    };
  } catch (err) {
    await remove();
    throw err;
  }
}

/** Tar entries for a case: input.md and assets/ only (nothing else of the case directory). */
export async function caseEntries(inputPath: string, assetsDir: string | null): Promise<TarEntry[]> {
  const s = await lstat(inputPath);
  const entries: TarEntry[] = [{ type: 'file', path: 'input.md', mode: 0o644, source: inputPath, size: s.size }];
  if (assetsDir) {
    entries.push({ type: 'dir', path: 'assets', mode: 0o755 });
    for (const e of await dirEntries(assetsDir)) entries.push({ ...e, path: posix.join('assets', e.path) });
  }
  return entries;
}

/** The volumes of one case: delivery and case read-only, /out writable, the spec's extra mounts, the gateway relay. */
export async function caseVolumes(spec: SandboxSpec, gw: GatewayAttachment | undefined): Promise<StagedVolume[]> {
  const volumes: StagedVolume[] = [
    { target: CONTAINER_PATHS.delivery, readOnly: true, entries: await dirEntries(spec.deliveryDir) },
    { target: CONTAINER_PATHS.case, readOnly: true, entries: await caseEntries(spec.inputPath, spec.assetsDir) },
    { target: CONTAINER_PATHS.output, readOnly: false, entries: [{ type: 'dir', path: '.run', mode: 0o777 }] },
  ];
  for (const m of spec.mounts ?? [])
    volumes.push({ target: m.containerPath, readOnly: m.readOnly, entries: await dirEntries(m.hostPath) });
  if (gw) {
    const { size } = await stat(gw.relayScript);
    volumes.push({
      target: GATEWAY_PATHS.relayDir,
      readOnly: true,
      entries: [{ type: 'file', path: 'relay.mjs', mode: 0o644, source: gw.relayScript, size }],
    });
  }
  return volumes;
}

/** Copies /out and the writable extra mounts back to the host, once the sandbox has exited. */
export async function collectCase(stage: ArchiveStage, spec: SandboxSpec): Promise<void> {
  await stage.collect(CONTAINER_PATHS.output, spec.outputDir);
  for (const m of spec.mounts ?? []) if (!m.readOnly) await stage.collect(m.containerPath, m.hostPath);
}
