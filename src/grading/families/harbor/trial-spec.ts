/**
 * How a Harbor task's environment becomes a trial container: the image run, and — when that image is not the one
 * built from the task's Dockerfile — the Dockerfile's final stage replayed onto it (WORKDIR, ENV, USER, ENTRYPOINT,
 * local COPY/ADD from the build context), with what a replay cannot do (RUN, COPY --from, …) said in the notes.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { HarborConfig } from '../../../commission/index.js';
import type { TrialSpec } from '../../../sandbox/index.js';
import { globToRegExp } from '../../../util/index.js';

/** The trial container's shape and what it differs in from the task's real environment. */
export interface TrialPlan {
  spec: Omit<TrialSpec, 'runId' | 'caseId' | 'trial' | 'limits' | 'gateway' | 'env'>;
  /** The container's working directory as planned (null: the image's own). */
  workdir: string | null;
  /** True when the Dockerfile's final stage was replayed onto `image`. */
  replayed: boolean;
  /**
   * True when `image` is not the task's own environment: another image in its place, or its base with build steps
   * left out. A reward below full there may be the environment's fault, so the task's oracle calibrates it.
   */
  substituted: boolean;
  notes: string[];
}

/** Sources of a COPY: a name in the build context, or a `*`/`?` pattern within one directory of it. */
function expandSources(context: string, src: string): string[] {
  const rel = path.posix.normalize(src).replace(/^\/+/, '').replace(/\/+$/, '');
  if (!/[*?[]/.test(rel)) return existsSync(path.join(context, rel)) ? [rel] : [];
  const dir = path.posix.dirname(rel);
  // Docker reads a COPY source with Go's filepath.Match.
  const re = globToRegExp(path.posix.basename(rel), { go: 'match' });
  const abs = path.join(context, dir);
  if (!existsSync(abs) || !statSync(abs).isDirectory()) return [];
  return readdirSync(abs)
    .filter((n) => re.test(n))
    .sort()
    .map((n) => (dir === '.' ? n : `${dir}/${n}`));
}

/**
 * The trial container for a task on `image`. `replay` says whether `image` still needs the Dockerfile's final stage
 * (it was not built from it); the container's user is then the Dockerfile's USER, else root, as Harbor's base
 * images run.
 */
export function planTrial(h: HarborConfig, commissionDir: string, image: string, replay: boolean): TrialPlan {
  const notes: string[] = [];
  const img = h.image;
  if (!replay || img.dockerfile === null) {
    const substituted = img.dockerfile === null && img.prebuilt !== null && image !== img.prebuilt;
    if (substituted) notes.push(`the image ${image} ran in place of ${img.prebuilt}`);
    const spec = { image, ...(h.workdir ? { workdir: h.workdir } : {}) };
    return { spec, workdir: h.workdir, replayed: false, substituted, notes };
  }
  const context = path.resolve(commissionDir, img.context);
  const files: { from: string; to: string }[] = [];
  for (const c of img.copies) {
    const sources = c.from.flatMap((s) => {
      const found = expandSources(context, s);
      if (found.length === 0)
        notes.push(`COPY source ${s} is not in the build context: not copied (a build would fail)`);
      return found;
    });
    for (const s of sources) {
      const abs = path.join(context, s);
      // COPY <dir> <dest> puts the directory's contents at dest; a file goes to dest, or into it when dest is a directory.
      const to = statSync(abs).isDirectory() && !c.to.endsWith('/') ? `${c.to}/` : c.to;
      files.push({ from: abs, to });
    }
  }
  const workdir = h.workdir ?? img.workdir;
  const base = img.base ?? img.prebuilt ?? 'its base';
  notes.push(
    image === base
      ? `the image ${image} ran without environment/Dockerfile's build: its final stage was replayed onto it`
      : `the image ${image} ran in place of ${base} (environment/Dockerfile not built): its final stage was replayed onto it`,
  );
  if (img.skipped.length)
    notes.push(
      `not replayed from environment/Dockerfile: ${img.skipped.map((s) => (s.length > 200 ? `${s.slice(0, 197)}…` : s)).join(' · ')}`,
    );
  return {
    spec: {
      image,
      ...(img.entrypoint !== null ? { entrypoint: img.entrypoint } : {}),
      ...(workdir ? { workdir } : {}),
      user: img.user ?? '0',
      layerEnv: Object.entries(img.env),
      files,
    },
    workdir,
    replayed: true,
    substituted: image !== base || img.skipped.length > 0,
    notes,
  };
}
