/**
 * Per-execution cgroups for the process backend, where the host lets us create them (root on cgroup v1 with the
 * memory and pids controllers mounted, or cgroup v2 with memory and pids enabled at the root). They give the process
 * backend the same memory (no swap), pids and cpu limits — and OOM detection — as a container.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const ROOT = '/sys/fs/cgroup';

export interface CgroupLimits {
  memoryBytes: number;
  pids: number;
  cpus: number;
}

export interface Cgroup {
  /** Files a starting shell writes its pid (`$$`) into, to enter the group before it execs anything. */
  procsFiles: string[];
  /** Pids currently in the group. */
  pids(): Promise<number[]>;
  /** Times the kernel OOM-killed a process of the group. */
  oomKills(): Promise<number>;
  /** SIGKILLs whatever is left and removes the group. */
  destroy(): Promise<void>;
  readonly cpuLimited: boolean;
}

type Flavour = { version: 1; memory: string; pids: string; cpu: string | null } | { version: 2; root: string };

let probed: Promise<Flavour | null> | null = null;

async function tryMk(dir: string): Promise<boolean> {
  try {
    await mkdir(dir);
    await rmdir(dir);
    return true;
  } catch {
    return false;
  }
}

async function probe(): Promise<Flavour | null> {
  if (process.platform !== 'linux') return null;
  const name = `heldout-probe-${process.pid}`;
  if (existsSync(join(ROOT, 'memory', 'memory.limit_in_bytes')) && existsSync(join(ROOT, 'pids'))) {
    const cpu = existsSync(join(ROOT, 'cpu', 'cpu.cfs_quota_us')) ? join(ROOT, 'cpu') : null;
    if ((await tryMk(join(ROOT, 'memory', name))) && (await tryMk(join(ROOT, 'pids', name)))) {
      return {
        version: 1,
        memory: join(ROOT, 'memory'),
        pids: join(ROOT, 'pids'),
        cpu: cpu && (await tryMk(join(cpu, name))) ? cpu : null,
      };
    }
    return null;
  }
  try {
    const controllers = (await readFile(join(ROOT, 'cgroup.subtree_control'), 'utf8')).split(/\s+/);
    if (controllers.includes('memory') && controllers.includes('pids') && (await tryMk(join(ROOT, name)))) {
      return { version: 2, root: ROOT };
    }
  } catch {
    // no cgroup v2 either
  }
  return null;
}

/** Whether per-execution cgroups can be made here (probed once per process). */
export function cgroupSupport(): Promise<Flavour | null> {
  probed ??= probe();
  return probed;
}

async function readPids(file: string): Promise<number[]> {
  try {
    return (await readFile(file, 'utf8')).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** The kernel's OOM-kill count in a cgroup's memory.oom_control (v1) or memory.events (v2); 0 when unreadable. */
async function oomKillsIn(file: string): Promise<number> {
  try {
    const m = /oom_kill (\d+)/.exec(await readFile(file, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

async function killAll(files: string[]): Promise<void> {
  for (let round = 0; round < 20; round++) {
    const pids = new Set<number>();
    for (const f of files) for (const p of await readPids(f)) pids.add(p);
    if (pids.size === 0) return;
    for (const p of pids) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function removeDir(dir: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    try {
      await rmdir(dir);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/**
 * Kills the processes of, and removes, every cgroup whose name starts with `prefix` (sanitised like ours) and that
 * `keep` (given the name) does not keep.
 */
export async function destroyLeftoverCgroups(
  prefix: string,
  keep: (name: string) => boolean = () => false,
): Promise<{ removed: number; kept: number }> {
  const flavour = await cgroupSupport();
  if (!flavour) return { removed: 0, kept: 0 };
  const clean = prefix.replace(/[^A-Za-z0-9_.-]/g, '_');
  const parents =
    flavour.version === 1 ? [flavour.memory, flavour.pids, ...(flavour.cpu ? [flavour.cpu] : [])] : [flavour.root];
  const names = new Set<string>();
  for (const parent of parents) {
    for (const d of await readdir(parent, { withFileTypes: true }).catch(() => [])) {
      if (d.isDirectory() && d.name.startsWith(clean) && !d.name.startsWith('heldout-probe-')) names.add(d.name);
    }
  }
  let kept = 0;
  for (const name of [...names]) {
    if (!keep(name)) continue;
    names.delete(name);
    kept++;
  }
  for (const name of names) {
    const dirs = parents.map((p) => join(p, name)).filter((d) => existsSync(d));
    await killAll(dirs.map((d) => join(d, 'cgroup.procs')));
    for (const d of dirs) await removeDir(d);
  }
  return { removed: names.size, kept };
}

/** Creates a cgroup with the given limits, or returns null when the host does not allow it. */
export async function createCgroup(id: string, limits: CgroupLimits): Promise<Cgroup | null> {
  const flavour = await cgroupSupport();
  if (!flavour) return null;
  const name = `heldout-${id}`.replace(/[^A-Za-z0-9_.-]/g, '_');
  const quota = Math.max(1000, Math.round(limits.cpus * 100_000));
  if (flavour.version === 1) {
    const dirs = [
      join(flavour.memory, name),
      join(flavour.pids, name),
      ...(flavour.cpu ? [join(flavour.cpu, name)] : []),
    ];
    for (const d of dirs) await mkdir(d, { recursive: true });
    const [mem, pids, cpu] = dirs;
    await writeFile(join(mem, 'memory.limit_in_bytes'), String(limits.memoryBytes));
    try {
      await writeFile(join(mem, 'memory.memsw.limit_in_bytes'), String(limits.memoryBytes));
    } catch {
      // swap accounting off: nothing to limit
    }
    await writeFile(join(pids, 'pids.max'), String(limits.pids));
    if (cpu) {
      await writeFile(join(cpu, 'cpu.cfs_period_us'), '100000');
      await writeFile(join(cpu, 'cpu.cfs_quota_us'), String(quota));
    }
    const procsFiles = dirs.map((d) => join(d, 'cgroup.procs'));
    return {
      procsFiles,
      cpuLimited: Boolean(cpu),
      pids: async () => [...new Set((await Promise.all(procsFiles.map(readPids))).flat())],
      oomKills: () => oomKillsIn(join(mem, 'memory.oom_control')),
      destroy: async () => {
        await killAll(procsFiles);
        for (const d of dirs) await removeDir(d);
      },
    };
  }
  const dir = join(flavour.root, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'memory.max'), String(limits.memoryBytes));
  try {
    await writeFile(join(dir, 'memory.swap.max'), '0');
  } catch {
    // no swap controller
  }
  await writeFile(join(dir, 'pids.max'), String(limits.pids));
  let cpuLimited = false;
  try {
    await writeFile(join(dir, 'cpu.max'), `${quota} 100000`);
    cpuLimited = true;
  } catch {
    // cpu controller not enabled
  }
  const procs = join(dir, 'cgroup.procs');
  return {
    procsFiles: [procs],
    cpuLimited,
    pids: () => readPids(procs),
    oomKills: () => oomKillsIn(join(dir, 'memory.events')),
    destroy: async () => {
      try {
        await writeFile(join(dir, 'cgroup.kill'), '1');
      } catch {
        // kernels before 5.14
      }
      await killAll([procs]);
      await removeDir(dir);
    },
  };
}
