import path from 'node:path';

/**
 * What a Harbor task's `environment/Dockerfile` sets in its final stage, read by the Dockerfile's own rules: line
 * continuations, comments and parser directives; `WORKDIR` resets at each `FROM` and resolves relative values
 * against the previous one; `ARG` and `ENV` values substitute into later instructions (`$X`, `${X}`,
 * `${X:-default}`); references the Dockerfile does not define (`${PATH}`) are left for the image's own values.
 */
export interface DockerfileFacts {
  /** The final stage's FROM image (its `AS` name dropped); null when there is none. */
  base: string | null;
  /** Every FROM image, in order (earlier ones are build stages). */
  stages: string[];
  workdir: string | null;
  user: string | null;
  /** Exec form; a shell-form entrypoint becomes `/bin/sh -c <text>`; [] clears it; null: none set. */
  entrypoint: string[] | null;
  env: Record<string, string>;
  copies: { from: string[]; to: string }[];
  /** Final-stage instructions a replay onto another image cannot apply, as written. */
  skipped: string[];
  /** Instructions that matter only to a build or are ignored by Harbor (CMD, EXPOSE, LABEL, …), as written. */
  ignored: string[];
}

interface Line {
  instruction: string;
  args: string;
  text: string;
}

/** The Dockerfile's instructions, one per logical line (continuations joined, comments and blank lines dropped). */
export function dockerfileLines(text: string): Line[] {
  let esc = '\\';
  const raw = text.split(/\r?\n/);
  // A parser directive (`# escape=``) is only honoured at the very top.
  for (const l of raw) {
    const m = /^#\s*escape\s*=\s*(\S)\s*$/i.exec(l);
    if (m) esc = m[1]!;
    else if (!/^#\s*\w+\s*=/.test(l)) break;
  }
  const out: Line[] = [];
  let acc = '';
  for (const l of raw) {
    if (acc === '' && /^\s*#/.test(l)) continue;
    if (acc !== '' && /^\s*#/.test(l)) continue;
    const trimmed = l.replace(/\s+$/, '');
    if (trimmed.endsWith(esc)) {
      acc += `${trimmed.slice(0, -1)} `;
      continue;
    }
    acc += trimmed;
    const t = acc.trim();
    acc = '';
    if (t === '') continue;
    const m = /^(\S+)\s*(.*)$/s.exec(t)!;
    out.push({ instruction: m[1]!.toUpperCase(), args: m[2]!.trim(), text: t.replace(/\s+/g, ' ') });
  }
  if (acc.trim()) {
    const t = acc.trim();
    const m = /^(\S+)\s*(.*)$/s.exec(t)!;
    out.push({ instruction: m[1]!.toUpperCase(), args: m[2]!.trim(), text: t.replace(/\s+/g, ' ') });
  }
  return out;
}

/** Substitutes `$X`, `${X}`, `${X:-d}`, `${X:+d}` from `vars`; unknown references stay as written. */
export function substitute(value: string, vars: Record<string, string>): string {
  return value.replace(/\\\$|\$\{([A-Za-z_]\w*)(?::([-+])([^}]*))?\}|\$([A-Za-z_]\w*)/g, (m, a, op, d, b) => {
    if (m === '\\$') return '$';
    const name = (a ?? b) as string;
    const known = Object.hasOwn(vars, name);
    if (op === '-') return known && vars[name] !== '' ? vars[name]! : known ? d : m;
    if (op === '+') return known ? (vars[name] !== '' ? d : '') : m;
    return known ? vars[name]! : m;
  });
}

/** Splits words the way the shell form of ENV/COPY does: white space separates, quotes and backslashes group. */
function words(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | null = null;
  let has = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < s.length) cur += s[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < s.length) {
      cur += s[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has || cur) out.push(cur);
  return out;
}

/** A JSON (exec-form) array of strings, or null when the text is not one. */
function execForm(args: string): string[] | null {
  if (!args.startsWith('[')) return null;
  try {
    const v = JSON.parse(args) as unknown;
    return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : null;
  } catch {
    return null;
  }
}

/** Reads the final stage of a Dockerfile; see `DockerfileFacts`. Never throws: what it cannot read is `skipped`. */
export function readDockerfile(text: string): DockerfileFacts {
  const facts: DockerfileFacts = {
    base: null,
    stages: [],
    workdir: null,
    user: null,
    entrypoint: null,
    env: {},
    copies: [],
    skipped: [],
    ignored: [],
  };
  const globalArgs: Record<string, string> = {};
  let vars: Record<string, string> = {};
  for (const line of dockerfileLines(text)) {
    const { instruction, args } = line;
    if (instruction === 'FROM') {
      const parts = words(args).filter((w) => !w.startsWith('--'));
      const image = substitute(parts[0] ?? '', globalArgs);
      facts.stages.push(image);
      Object.assign(facts, { base: image || null, workdir: null, user: null, entrypoint: null, env: {} });
      facts.copies = [];
      facts.skipped = [];
      facts.ignored = [];
      vars = { ...globalArgs };
      continue;
    }
    if (instruction === 'ARG') {
      for (const w of words(args)) {
        const eq = w.indexOf('=');
        const name = eq === -1 ? w : w.slice(0, eq);
        const value = eq === -1 ? (globalArgs[name] ?? '') : substitute(w.slice(eq + 1), vars);
        if (facts.stages.length === 0) globalArgs[name] = value;
        else vars[name] = value;
      }
      continue;
    }
    if (facts.stages.length === 0) {
      facts.ignored.push(line.text);
      continue;
    }
    switch (instruction) {
      case 'WORKDIR': {
        const w = substitute(words(args)[0] ?? args, vars);
        facts.workdir = path.posix.resolve(facts.workdir ?? '/', w);
        break;
      }
      case 'ENV': {
        const ws = words(args);
        const pairs: [string, string][] = ws.some((w) => w.includes('='))
          ? ws.map((w) => {
              const eq = w.indexOf('=');
              return [w.slice(0, eq), w.slice(eq + 1)];
            })
          : [[ws[0] ?? '', args.slice((ws[0] ?? '').length).trim()]];
        // All pairs of one ENV see the values from before it, as Docker substitutes them.
        const before = { ...vars };
        for (const [k, v] of pairs) {
          if (!k) continue;
          const value = substitute(v, before);
          facts.env[k] = value;
          vars[k] = value;
        }
        break;
      }
      case 'USER':
        facts.user = substitute(args, vars) || null;
        break;
      case 'ENTRYPOINT':
        facts.entrypoint = execForm(args) ?? (args ? ['/bin/sh', '-c', args] : []);
        break;
      case 'COPY':
      case 'ADD': {
        const ws = words(args);
        const flags = ws.filter((w) => w.startsWith('--'));
        const rest = execForm(args.replace(/^(--\S+\s+)*/, '')) ?? ws.filter((w) => !w.startsWith('--'));
        const srcs = rest.slice(0, -1).map((s) => substitute(s, vars));
        const dest = substitute(rest[rest.length - 1] ?? '', vars);
        const remote = srcs.some((s) => /^[a-z]+:\/\//i.test(s) || s.startsWith('git@'));
        const fromStage = flags.some((f) => f.startsWith('--from'));
        if (srcs.length === 0 || !dest || remote || fromStage) {
          facts.skipped.push(line.text);
          break;
        }
        // A relative destination is relative to WORKDIR; a trailing slash (or several sources) makes it a directory.
        const dir = dest.endsWith('/') || dest === '.' || srcs.length > 1;
        const abs = path.posix.resolve(facts.workdir ?? '/', dest);
        facts.copies.push({ from: srcs, to: dir && abs !== '/' ? `${abs}/` : abs });
        if (flags.length || (instruction === 'ADD' && srcs.some((s) => /\.(tar(\.\w+)?|tgz|tbz2?|txz)$/.test(s))))
          facts.skipped.push(`${line.text} (its ${flags.join(' ') || 'archive extraction'} is not replayed)`);
        break;
      }
      case 'RUN':
      case 'ONBUILD':
      case 'SHELL':
      case 'VOLUME':
        facts.skipped.push(line.text);
        break;
      default:
        // CMD (Harbor replaces the command), EXPOSE, LABEL, HEALTHCHECK, STOPSIGNAL, MAINTAINER.
        facts.ignored.push(line.text);
    }
  }
  return facts;
}
