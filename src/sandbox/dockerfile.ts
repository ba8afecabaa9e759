/**
 * What a Dockerfile needs from the engine before it can build (issue 19): every image it starts from (`FROM`, with
 * global `ARG`s substituted) or copies from (`COPY --from=<image>`), stage names and `scratch` excluded; and the
 * image the last stage rests on. Pure, so a missing base is named before any build starts: heldout pulls nothing.
 */

/** The images a Dockerfile needs, and the one its final stage builds on (null: `scratch`). */
export interface DockerfileBases {
  /** Images the engine must already have, in first-use order. */
  bases: string[];
  /** The external image under the final stage (through stage references), or null when it is `scratch`. */
  final: string | null;
}

/** The instructions of a Dockerfile: comments and blank lines dropped, continuation lines joined. */
export function dockerfileInstructions(text: string): { keyword: string; rest: string }[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  // A parser directive on the first lines may change the escape character (Windows Dockerfiles use a backtick).
  let escapeChar = '\\';
  for (const line of lines) {
    const d = /^#\s*([a-zA-Z]+)\s*=\s*(\S+)\s*$/.exec(line);
    if (!d) break;
    if (d[1].toLowerCase() === 'escape' && (d[2] === '`' || d[2] === '\\')) escapeChar = d[2];
  }
  const out: { keyword: string; rest: string }[] = [];
  let pending = '';
  for (const raw of lines) {
    const line = raw.replace(/\s+$/, '');
    if (/^\s*#/.test(line)) continue;
    if (line.endsWith(escapeChar)) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    if (!full) continue;
    const m = /^(\S+)\s*(.*)$/.exec(full)!;
    out.push({ keyword: m[1].toUpperCase(), rest: m[2] });
  }
  if (pending.trim()) {
    const m = /^(\S+)\s*(.*)$/.exec(pending.trim())!;
    out.push({ keyword: m[1].toUpperCase(), rest: m[2] });
  }
  return out;
}

function unquote(v: string): string {
  return /^(["']).*\1$/.test(v) ? v.slice(1, -1) : v;
}

/** `$X`, `${X}`, `${X:-default}`, `${X:+alt}` as the builder expands them in FROM. */
export function expandArgs(s: string, vars: Record<string, string>): string {
  return s.replace(
    /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::([-+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g,
    (_m, braced: string | undefined, op: string | undefined, word: string | undefined, bare: string | undefined) => {
      const name = braced ?? bare!;
      const value = vars[name];
      if (op === '-') return value ? value : (word ?? '');
      if (op === '+') return value ? (word ?? '') : '';
      return value ?? '';
    },
  );
}

/** The images a Dockerfile starts from and copies from, given the build's `args`. */
export function dockerfileBases(text: string, args: Record<string, string> = {}): DockerfileBases {
  const globals: Record<string, string> = {};
  const stages = new Map<string, string | null>(); // stage name → its external base (null: scratch)
  const stageBases: (string | null)[] = [];
  const bases: string[] = [];
  const need = (image: string) => {
    if (!bases.includes(image)) bases.push(image);
  };
  let seenFrom = false;
  for (const { keyword, rest } of dockerfileInstructions(text)) {
    if (keyword === 'ARG' && !seenFrom) {
      for (const decl of rest.split(/\s+/).filter(Boolean)) {
        const eq = decl.indexOf('=');
        const name = eq === -1 ? decl : decl.slice(0, eq);
        const value = Object.hasOwn(args, name) ? args[name] : eq === -1 ? undefined : unquote(decl.slice(eq + 1));
        if (value !== undefined) globals[name] = value;
      }
    } else if (keyword === 'FROM') {
      seenFrom = true;
      const words = rest.split(/\s+/).filter((w) => w && !w.startsWith('--'));
      const image = expandArgs(words[0] ?? '', globals);
      const alias = words[1]?.toUpperCase() === 'AS' ? words[2]?.toLowerCase() : undefined;
      let base: string | null;
      if (stages.has(image.toLowerCase())) base = stages.get(image.toLowerCase())!;
      else if (image.toLowerCase() === 'scratch' || image === '') base = null;
      else {
        base = image;
        need(image);
      }
      stageBases.push(base);
      if (alias) stages.set(alias, base);
    } else if (keyword === 'COPY' || keyword === 'ADD') {
      const from = /(?:^|\s)--from=(\S+)/.exec(rest)?.[1];
      if (from && !stages.has(from.toLowerCase()) && !/^\d+$/.test(from)) need(expandArgs(from, globals));
    }
  }
  return { bases, final: stageBases.length ? stageBases[stageBases.length - 1] : null };
}
