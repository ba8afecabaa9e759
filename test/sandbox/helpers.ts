import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { SandboxLimits, SandboxSpec } from '../../src/sandbox/index.js';

export const execFileP = promisify(execFile);
export const REPO = resolve(import.meta.dirname, '../..');
export const FIXTURES = join(REPO, 'fixtures/sandbox');

export const LIMITS: SandboxLimits = { wallSeconds: 30, memoryMb: 512, cpus: 1, pids: 128, outputBytes: 1024 * 1024 };

/** A world-readable scratch root with a copy of every fixture delivery (tests never run the repo's own files). */
export async function scratch(
  label: string,
): Promise<{ root: string; delivery: (name: string) => string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(join(os.tmpdir(), `heldout-sbx-${label}-`));
  await chmod(root, 0o755);
  await cp(FIXTURES, join(root, 'deliveries'), { recursive: true });
  await chmodTree(join(root, 'deliveries'));
  return {
    root,
    delivery: (name) => join(root, 'deliveries', name),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

async function chmodTree(dir: string): Promise<void> {
  await execFileP('chmod', ['-R', 'a+rX', dir]);
}

/** A case directory with input.md, optional assets and a truth.json the delivery must never see. */
export async function makeCase(
  casesDir: string,
  id: string,
  input: string,
  extra: { assets?: Record<string, string>; truth?: string } = {},
): Promise<{ inputPath: string; assetsDir: string | null; dir: string }> {
  const dir = join(casesDir, id);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'input.md'), input);
  if (extra.truth !== undefined) await writeFile(join(dir, 'truth.json'), extra.truth);
  let assetsDir: string | null = null;
  if (extra.assets) {
    assetsDir = join(dir, 'assets');
    await mkdir(assetsDir, { recursive: true });
    for (const [name, content] of Object.entries(extra.assets)) await writeFile(join(assetsDir, name), content);
  }
  await chmodTree(casesDir);
  return { inputPath: join(dir, 'input.md'), assetsDir, dir };
}

let seq = 0;
export function runId(label: string): string {
  return `t-${label}-${process.pid}-${Date.now().toString(36)}-${seq++}`;
}

export function spec(
  partial: Partial<SandboxSpec> & Pick<SandboxSpec, 'command' | 'deliveryDir' | 'inputPath' | 'outputDir'>,
): SandboxSpec {
  return {
    runId: partial.runId ?? runId('x'),
    caseId: 'case',
    trial: 1,
    assetsDir: null,
    limits: LIMITS,
    ...partial,
  };
}

/** Compiles src/sandbox into a repo-local directory so a plain `node` child can import it (no TS loader here). */
export async function buildSandboxModule(label: string): Promise<string> {
  const out = join(REPO, '.heldout', `test-dist-${label}-${process.pid}`);
  await rm(out, { recursive: true, force: true });
  await execFileP(
    process.execPath,
    [
      join(REPO, 'node_modules/typescript/bin/tsc'),
      '--ignoreConfig',
      'src/sandbox/index.ts',
      '--outDir',
      out,
      '--rootDir',
      'src',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--types',
      'node',
      '--skipLibCheck',
    ],
    { cwd: REPO },
  ).catch((err: { stdout?: string }) => {
    // type errors elsewhere do not stop the emit; a missing index.js does
    if (!err.stdout?.includes('error')) throw err;
  });
  return join(out, 'sandbox', 'index.js');
}

/** Non-loopback IPv4 addresses of this host (where a sandbox with network could reach a host server). */
export function hostAddresses(): string[] {
  const out: string[] = [];
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) out.push(a.address);
  }
  return out;
}
