/** The runtime image on an engine: built by `docker import` of the recipe's tar stream, rebuilt when the recipe changes. */
import type Docker from 'dockerode';
import type { BuiltImage } from '../protocol.js';
import { SANDBOX_UID } from '../sandbox-user.js';
import { tarStream } from '../tar.js';
import { engineWhere, followProgress, getDocker, statusOf } from './engine.js';
import { engineFlavour } from './flavour.js';
import { type RuntimeRecipe, runtimeRecipe } from './runtime-recipe.js';

/** The tag of the image a case runs in when its commission names none. */
export const RUNTIME_IMAGE = 'heldout/runtime:1';

export type { BuiltImage } from '../protocol.js';

/** Builds the runtime image (always) and tags it. */
export async function buildRuntimeImage(
  options: { tag?: string; docker?: Docker; recipe?: RuntimeRecipe } = {},
): Promise<BuiltImage> {
  const t0 = Date.now();
  const docker = options.docker ?? getDocker();
  const tag = options.tag ?? RUNTIME_IMAGE;
  const recipe = options.recipe ?? (await runtimeRecipe());
  const colon = tag.lastIndexOf(':');
  const [repo, version] = colon > tag.lastIndexOf('/') ? [tag.slice(0, colon), tag.slice(colon + 1)] : [tag, 'latest'];
  const changes = [
    ...recipe.env.map((e) => `ENV ${e}`),
    `USER ${SANDBOX_UID}:${SANDBOX_UID}`,
    'WORKDIR /',
    'CMD ["/bin/sh"]',
    // One label per change: podman reads `LABEL a=1 b=2` as the single label a="1 b=2", losing the recipe's.
    'LABEL heldout.image=runtime',
    `LABEL heldout.recipe=${recipe.hash}`,
  ];
  const stream = await docker.importImage(
    tarStream(recipe.entries) as unknown as string,
    {
      repo,
      tag: version,
      changes,
    } as object,
  );
  const progress = await followProgress(docker, stream);
  // Podman 4's compat import has no tag parameter (it stores `repo:latest`): the image is tagged by its id as well.
  const imported = importedId(progress);
  if (imported) await docker.getImage(imported).tag({ repo, tag: version });
  if (imported && version !== 'latest' && (await engineFlavour(docker)) === 'podman')
    await untagLatest(docker, repo, imported);
  const info = await docker.getImage(tag).inspect();
  const warnings: string[] = [];
  if (!recipe.python) warnings.push('no python3 found on the host: the image has node only');
  else if (!recipe.pytest) warnings.push(`no host python ${recipe.python.version} has pytest: the image has none`);
  if (recipe.missing.length) warnings.push(`ldd could not resolve: ${recipe.missing.join(', ')}`);
  return described(tag, info.Id, recipe, { built: true, ms: Date.now() - t0, warnings });
}

/** Drops the `repo:latest` podman's import made, when it names the image just imported (no one else's). */
async function untagLatest(docker: Docker, repo: string, id: string): Promise<void> {
  const latest = docker.getImage(`${repo}:latest`);
  const info = await latest.inspect().catch(() => null);
  if (info?.Id === id || `sha256:${info?.Id}` === id) await latest.remove({ noprune: true });
}

/** The id an import's progress names (docker: `{status: "sha256:…"}`; podman: `{id}` or `{stream}`), or null. */
export function importedId(progress: { status?: string; id?: string; stream?: string }[]): string | null {
  for (const line of [...progress].reverse()) {
    for (const v of [line.id, line.status, line.stream]) {
      const m = typeof v === 'string' ? /(?:sha256:)?([0-9a-f]{64})/.exec(v) : null;
      if (m) return `sha256:${m[1]}`;
    }
  }
  return null;
}

function described(
  tag: string,
  id: string,
  recipe: RuntimeRecipe,
  how: Pick<BuiltImage, 'built' | 'ms' | 'warnings'>,
): BuiltImage {
  return {
    tag,
    id,
    recipeHash: recipe.hash,
    built: how.built,
    ms: how.ms,
    python: recipe.python?.version ?? null,
    pytest: recipe.pytest,
    tools: recipe.tools,
    warnings: how.warnings,
  };
}

const ensuring = new Map<string, Promise<BuiltImage>>();

/** Builds the runtime image only when it is missing or was made from a different recipe. Memoised per process. */
export function ensureRuntimeImage(options: { tag?: string; docker?: Docker } = {}): Promise<BuiltImage> {
  const tag = options.tag ?? RUNTIME_IMAGE;
  const docker = options.docker ?? getDocker();
  // Per engine: a process that runs on docker and podman builds the image once on each.
  const key = `${engineWhere(docker)} ${tag}`;
  let p = ensuring.get(key);
  if (!p) {
    p = ensureOnce(tag, docker);
    ensuring.set(key, p);
    p.catch(() => ensuring.delete(key));
  }
  return p;
}

async function ensureOnce(tag: string, docker: Docker): Promise<BuiltImage> {
  const t0 = Date.now();
  const recipe = await runtimeRecipe();
  try {
    const info = await docker.getImage(tag).inspect();
    if (info.Config?.Labels?.['heldout.recipe'] === recipe.hash) {
      return described(tag, info.Id, recipe, { built: false, ms: Date.now() - t0, warnings: [] });
    }
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
  }
  return buildRuntimeImage({ tag, docker, recipe });
}

/** The image's id, or null when it is not there (or no engine answers). */
export async function imageId(tag: string, docker: Docker = getDocker()): Promise<string | null> {
  try {
    return (await docker.getImage(tag).inspect()).Id;
  } catch {
    return null;
  }
}
