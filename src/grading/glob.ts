/** Minimal glob matching for rubric paths: `**` spans directories, `*` and `?` stay within one segment. Pure. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  const g = glob.replace(/^\.\//, '');
  for (let i = 0; i < g.length; i++) {
    const ch = g[i]!;
    if (ch === '*') {
      if (g[i + 1] === '*') {
        i++;
        // `**/` also matches zero directories
        if (g[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else re += '.*';
      } else re += '[^/]*';
    } else if (ch === '?') re += '[^/]';
    else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // A bare directory pattern (`src/` or `src`) covers everything below it.
  if (re.endsWith('/')) re += '.*';
  else re += '(?:/.*)?';
  return new RegExp(`^${re}$`);
}

export function matchesAny(file: string, globs: string[]): boolean {
  const f = file.replace(/^\.\//, '');
  return globs.some((g) => globToRegExp(g).test(f));
}
