/** Dotted JSON paths (`a.b.0.c`) into parsed JSON; the empty path (or `.`, `$`) is the document itself. Pure. */
export function getPath(doc: unknown, dotted: string): { found: boolean; value: unknown } {
  if (dotted === '' || dotted === '.' || dotted === '$') return { found: true, value: doc };
  let cur: unknown = doc;
  for (const key of dotted.replace(/^\$\./, '').split('.')) {
    if (Array.isArray(cur)) {
      const i = Number(key);
      if (!Number.isInteger(i) || i < 0 || i >= cur.length) return { found: false, value: undefined };
      cur = cur[i];
    } else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, key)) {
      cur = (cur as Record<string, unknown>)[key];
    } else {
      return { found: false, value: undefined };
    }
  }
  return { found: true, value: cur };
}

/**
 * Why a dotted path cannot be read as one, or null when it can: list indices are dotted numbers (`a.0`, not
 * `a[0]`), there are no wildcards and no empty segments. Pure.
 */
export function dottedPathProblem(dotted: string): string | null {
  if (dotted === '' || dotted === '.' || dotted === '$') return null;
  const body = dotted.replace(/^\$\./, '');
  if (/\[|\]/.test(body)) {
    const fixed = body.replace(/\[\s*['"]?([^\]'"]*)['"]?\s*\]/g, '.$1').replace(/^\./, '');
    return `list indices and keys are dotted here; write ${fixed}`;
  }
  if (/(^|\.)\*(\.|$)/.test(body) || body.startsWith('$'))
    return 'wildcards and JSONPath filters are not supported; name one value';
  if (body.split('.').some((seg) => seg === '')) return 'has an empty segment (a leading, trailing or doubled ".")';
  return null;
}
