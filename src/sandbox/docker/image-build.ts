/**
 * Environments built from a Dockerfile on the engine (issue 19): the context sent as a tar (`.dockerignore`
 * applied, as the docker CLI does), built with dockerode's `buildImage` with no network and nothing pulled, tagged
 * `heldout/build-<name>:<digest>` and labelled with the context's digest (with its base images' ids), so an
 * unchanged context on unchanged bases is a cache hit that builds nothing. A base image the engine does not have
 * is refused by name before the build starts.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type Docker from 'dockerode';
import { dockerfileBases } from '../dockerfile.js';
import { isIgnored, parseDockerignore } from '../dockerignore.js';
import type { BuildRequest, BuiltImageRef } from '../protocol.js';
import { dirEntries, type TarEntry, tarStream } from '../tar.js';
import { statusOf } from './engine.js';

/** Bump when what goes into the digest changes meaning. */
const BUILD_RECIPE = 'heldout-build 1';

/** How many lines of a failed build's log its error carries. */
const LOG_TAIL = 20;

/** The context's entries as the build will see them: `.dockerignore` applied; the Dockerfile and it always kept. */
async function contextEntries(context: string, dockerfile: string): Promise<TarEntry[]> {
  const all = await dirEntries(context);
  const ignore = existsSync(join(context, '.dockerignore'))
    ? parseDockerignore(await readFile(join(context, '.dockerignore'), 'utf8'))
    : [];
  const keep = new Set([dockerfile, '.dockerignore']);
  const files = all.filter((e) => e.type !== 'dir' && (keep.has(e.path) || !isIgnored(e.path, ignore)));
  const dirs = new Set<string>();
  for (const f of files) for (let d = dirname(f.path); d !== '.'; d = dirname(d)) dirs.add(d);
  return all.filter((e) => (e.type === 'dir' ? dirs.has(e.path) || !isIgnored(e.path, ignore) : files.includes(e)));
}

async function fileHash(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/**
 * sha256 over what the build sees: each entry's path, kind, mode and content, the Dockerfile's name, the args and
 * the ids of the base images.
 */
export async function contextDigest(
  entries: TarEntry[],
  dockerfile: string,
  args: Record<string, string>,
  baseIds: string[] = [],
): Promise<string> {
  const h = createHash('sha256');
  h.update(`${BUILD_RECIPE}\n${dockerfile}\n${JSON.stringify(Object.entries(args).sort())}\n${baseIds.join('\n')}\n`);
  for (const e of [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    if (e.type === 'file') h.update(`F ${e.path} ${e.mode} ${await fileHash(e.source)}\n`);
    else if (e.type === 'symlink') h.update(`L ${e.path} ${e.target}\n`);
    else if (e.type === 'dir') h.update(`D ${e.path}\n`);
    else h.update(`C ${e.path} ${createHash('sha256').update(e.content).digest('hex')}\n`);
  }
  return `sha256:${h.digest('hex')}`;
}

/** The tag of a build: `heldout/build-<name>:<first 12 hex of its digest>`. */
export function buildTag(name: string, digest: string): string {
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[-._]+|[-._]+$/g, '')
      .slice(0, 100) || 'env';
  return `heldout/build-${slug}:${digest.slice('sha256:'.length, 'sha256:'.length + 12)}`;
}

function tail(text: string, lines = LOG_TAIL): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

async function keepLog(file: string | undefined, text: string): Promise<void> {
  if (!file) return;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}

/** The ids of the images of `names` the engine has, and the names it does not have. */
async function imageIds(docker: Docker, names: string[]): Promise<{ ids: string[]; missing: string[] }> {
  const ids: string[] = [];
  const missing: string[] = [];
  for (const n of names) {
    try {
      ids.push(`${n}@${(await docker.getImage(n).inspect()).Id}`);
    } catch (err) {
      if (statusOf(err) !== 404) throw err;
      missing.push(n);
    }
  }
  return { ids, missing };
}

/**
 * Builds `request` on the engine, or finds the image its context digest names (a cache hit: nothing is built).
 * Rejects naming the base image the engine lacks, or with the build's error and the tail of its log.
 */
export async function buildOnEngine(docker: Docker, request: BuildRequest): Promise<BuiltImageRef> {
  const context = resolve(request.context);
  const dockerfile = request.dockerfile ?? 'Dockerfile';
  const dockerfilePath = resolve(context, dockerfile);
  const rel = relative(context, dockerfilePath);
  const what = `image build ${request.name}`;
  if (rel.startsWith('..') || rel.startsWith(sep)) throw new Error(`${what}: ${dockerfile} is outside the context`);
  if (!existsSync(dockerfilePath)) throw new Error(`${what}: no ${dockerfile} in ${context}`);
  const args = request.args ?? {};
  const { bases } = dockerfileBases(await readFile(dockerfilePath, 'utf8'), args);
  const { ids, missing } = await imageIds(docker, bases);
  if (missing.length > 0) {
    throw new Error(
      `${what}: base image ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not on this engine ` +
        '(heldout pulls nothing: docker load or build it first, or map it to a local image with `images` / --image-map)',
    );
  }
  const entries = await contextEntries(context, rel.split(sep).join('/'));
  // A rebuilt base makes a new environment, as docker's own build cache would: its id is part of the digest.
  const digest = await contextDigest(entries, rel, args, ids);
  const tag = buildTag(request.name, digest);
  try {
    const info = await docker.getImage(tag).inspect();
    if (info.Config?.Labels?.['heldout.context'] === digest) {
      await keepLog(request.logFile, `cache hit: ${tag} (${info.Id}), context ${digest}; nothing built\n`);
      return { image: tag, id: info.Id, digest, cached: true, baseImages: bases };
    }
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
  }
  const stream = await docker.buildImage(
    tarStream(entries) as unknown as NodeJS.ReadableStream,
    {
      t: tag,
      dockerfile: rel.split(sep).join('/'),
      buildargs: args,
      labels: { 'heldout.image': 'build', 'heldout.build': request.name, 'heldout.context': digest },
      // RUN steps get no network (no traffic off loopback); the bases were checked above, so nothing is pulled.
      networkmode: 'none',
      rm: true,
      forcerm: true,
    } as Docker.ImageBuildOptions,
  );
  let log = '';
  let firstError: string | null = null;
  const failure = await new Promise<string | null>((res) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null) => res(firstError ?? err?.message ?? null),
      (event: { stream?: string; status?: string; error?: string; errorDetail?: { message?: string } }) => {
        if (event.stream) log += event.stream;
        else if (event.status) log += `${event.status}\n`;
        if (event.error) {
          log += `ERROR: ${event.error}\n`;
          firstError ??= event.errorDetail?.message ?? event.error;
        }
      },
    );
  });
  await keepLog(request.logFile, log);
  if (failure !== null) throw new Error(`${what} failed: ${failure}\n--- build log (last lines) ---\n${tail(log)}`);
  const info = await docker.getImage(tag).inspect();
  return { image: tag, id: info.Id, digest, cached: false, baseImages: bases };
}
