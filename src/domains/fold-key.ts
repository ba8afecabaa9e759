/** Case-, accent- and surrounding-space-insensitive form of an identifier or name (τ² resolves ids this way). */
export function foldForMatch(s: string): string {
  return String(s)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/** The key of `map` that `key` names exactly or up to folding; undefined when none does. */
export function resolveKey(map: Record<string, unknown>, key: string): string | undefined {
  if (typeof key !== 'string') return undefined;
  if (Object.hasOwn(map, key)) return key;
  const trimmed = key.trim();
  if (Object.hasOwn(map, trimmed)) return trimmed;
  const folded = foldForMatch(trimmed);
  for (const candidate of Object.keys(map)) if (foldForMatch(candidate) === folded) return candidate;
  return undefined;
}
