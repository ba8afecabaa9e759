/**
 * Image mapping for machines without a registry (issue 19): `{ "ubuntu:24.04": "heldout/runtime:1" }` runs the
 * second wherever a commission names the first (or builds on it). Pure: references are compared in docker's
 * canonical short form, so `ubuntu`, `ubuntu:latest`, `docker.io/library/ubuntu:latest` are one key.
 */

/** From image → the image that runs instead; keys and values are image references. */
export type ImageMap = Readonly<Record<string, string>>;

/** One substitution a run made, as reports show it: which image, by which, for what (`sandbox`, `service api`, …). */
export interface ImageSubstitution {
  from: string;
  to: string;
  for: string;
}

/**
 * Docker's short canonical form of a reference: `docker.io/` (and `index.docker.io/`) and `library/` dropped,
 * `:latest` added when there is neither tag nor digest. Idempotent; anything else is left as written.
 */
export function normalizeImageRef(ref: string): string {
  let r = ref.trim();
  r = r.replace(/^(?:docker\.io|index\.docker\.io|registry-1\.docker\.io)\//, '');
  r = r.replace(/^library\/(?=[^/]+$|[^/]+[:@])/, '');
  const at = r.indexOf('@');
  const name = at === -1 ? r : r.slice(0, at);
  const hasTag = name.lastIndexOf(':') > name.lastIndexOf('/');
  if (at === -1 && !hasTag && r !== '') r = `${r}:latest`;
  return r;
}

/** The image `ref` is mapped to, or null when the map does not name it. */
export function mappedImage(ref: string, map: ImageMap): string | null {
  const want = normalizeImageRef(ref);
  let found: string | null = null;
  for (const [from, to] of Object.entries(map)) if (normalizeImageRef(from) === want) found = to;
  return found;
}

/** One map from several, later ones winning per (normalized) key: the commission's `images`, then `--image-map`. */
export function mergeImageMaps(...maps: (ImageMap | undefined)[]): Record<string, string> {
  const out = new Map<string, [string, string]>();
  for (const m of maps) for (const [from, to] of Object.entries(m ?? {})) out.set(normalizeImageRef(from), [from, to]);
  return Object.fromEntries(out.values());
}

const REF = /^[A-Za-z0-9][A-Za-z0-9._\-/:@]*$/;

/** True when `ref` has the shape of an image reference (no spaces, no scheme, no empty parts). */
export function isImageRef(ref: string): boolean {
  return REF.test(ref) && !ref.includes('//') && !ref.endsWith(':') && !ref.endsWith('/');
}

/** Parses `from=to` pairs (`--image-map`, repeatable); every bad pair is one problem naming it. */
export function parseImageMap(pairs: readonly string[]): { map: Record<string, string>; problems: string[] } {
  const map: Record<string, string> = {};
  const problems: string[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const from = eq === -1 ? '' : pair.slice(0, eq).trim();
    const to = eq === -1 ? '' : pair.slice(eq + 1).trim();
    if (!isImageRef(from) || !isImageRef(to)) {
      problems.push(`expected from=to (two image references), got ${JSON.stringify(pair)}`);
      continue;
    }
    map[from] = to;
  }
  return { map, problems };
}
