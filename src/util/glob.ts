/**
 * heldout's one glob. `*` is any run of characters within one path segment, `?` one character within a segment,
 * `**` any run across segments (followed by a slash, also none: `**` + `/a` matches `a`); everything else is
 * literal, and a pattern matches the whole path. Two named options cover the call sites that read another tool's
 * patterns. Pure.
 */
export interface GlobOptions {
  /**
   * Read as Docker's Go code does: `'match'` is `filepath.Match` (Dockerfile `COPY` sources; `**` is just two `*`),
   * `'dockerignore'` moby's patternmatcher (`**` as above). Both add `[…]` classes (`[!…]` or `[^…]` negated, an
   * unclosed `[` literal) and `\` taking the next character literally.
   */
  go?: 'match' | 'dockerignore';
  /** A match also covers every path below it (a directory names its tree), as rubric paths and case filters read. */
  below?: boolean;
}

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The RegExp a glob means under `options`; a leading `./` is dropped, since the paths it matches are relative. */
export function globToRegExp(glob: string, options: GlobOptions = {}): RegExp {
  const g = glob.replace(/^\.\//, '');
  let re = '';
  for (let i = 0; i < g.length; i++) {
    const ch = g[i]!;
    if (ch === '*') {
      if (g[i + 1] !== '*' || options.go === 'match') re += '[^/]*';
      else if (g[i + 2] === '/') {
        re += '(?:.*/)?';
        i += 2;
      } else {
        re += '.*';
        i++;
      }
    } else if (ch === '?') re += '[^/]';
    else if (options.go && ch === '[' && g.indexOf(']', i + 2) !== -1) {
      const end = g.indexOf(']', i + 2);
      const body = g.slice(i + 1, end);
      const negated = body.startsWith('!') || body.startsWith('^');
      re += `[${negated ? '^' : ''}${(negated ? body.slice(1) : body).replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else if (options.go && ch === '\\' && i + 1 < g.length) re += literal(g[++i]!);
    else re += literal(ch);
  }
  if (options.below) re += re.endsWith('/') ? '.*' : '(?:/.*)?';
  return new RegExp(`^${re}$`);
}

/** Whether `file` (a leading `./` dropped) matches any of `globs` under `options`. */
export function matchesAny(file: string, globs: readonly string[], options: GlobOptions = {}): boolean {
  const f = file.replace(/^\.\//, '');
  return globs.some((g) => globToRegExp(g, options).test(f));
}
