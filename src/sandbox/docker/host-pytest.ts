/**
 * The host's pytest, for the runtime image (issue 19): real task verifiers (Harbor's `tests/test.sh`, SWE-style
 * hidden tests) run `pytest`. No registry and no pip: the installed distributions of pytest and of everything it
 * requires (markers evaluated for this interpreter) are found through their own metadata (`importlib.metadata`, the
 * RECORD of each wheel), in the image's python or in another host python of the same major.minor version.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import type { PythonInfo } from './host-python.js';

const execFileP = promisify(execFile);

/** One installed distribution: its site directory and its files relative to it (RECORD order, no bytecode). */
export interface HostDistribution {
  name: string;
  version: string;
  root: string;
  files: string[];
}

/** pytest and its requirements as one python has them installed. */
export interface HostPytest {
  /** The interpreter they were found in (may differ from the image's python; same major.minor). */
  python: string;
  version: string;
  distributions: HostDistribution[];
}

// Requirements are walked with `packaging` (pytest itself requires it, so it is there whenever pytest is); extras
// are not followed; files outside the site directory (console scripts under ../../bin) are left out.
const PROBE = `
import json, sys
try:
    import importlib.metadata as md
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    md.distribution("pytest")
except Exception:
    print("null"); sys.exit(0)
seen = {}
todo = ["pytest"]
while todo:
    name = canonicalize_name(todo.pop())
    if name in seen:
        continue
    try:
        d = md.distribution(name)
    except md.PackageNotFoundError:
        continue
    files = [str(f) for f in (d.files or []) if not str(f).startswith("..") and "__pycache__" not in str(f).split("/")]
    seen[name] = {"name": d.metadata["Name"], "version": d.version, "root": str(d.locate_file("")), "files": files}
    for r in d.requires or []:
        req = Requirement(r)
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            todo.append(req.name)
print(json.dumps({"python": sys.executable, "version": "%d.%d" % sys.version_info[:2], "distributions": list(seen.values())}))
`;

async function probe(python: string): Promise<HostPytest | null> {
  if (python.startsWith('/') && !existsSync(python)) return null;
  try {
    const { stdout } = await execFileP(python, ['-c', PROBE], { timeout: 20_000 });
    return JSON.parse(stdout) as HostPytest | null;
  } catch {
    return null;
  }
}

/**
 * pytest for the image's python: from that python itself, else from another host python ($HELDOUT_PYTHON,
 * `python3` on PATH) of the same major.minor version (pure-Python wheels are shared by such interpreters). Null
 * when no host python has it.
 */
export async function findHostPytest(image: PythonInfo): Promise<HostPytest | null> {
  const candidates = [image.exe, process.env.HELDOUT_PYTHON, 'python3'].filter(Boolean) as string[];
  for (const c of [...new Set(candidates)]) {
    const found = await probe(c);
    if (found && found.version === image.version && found.distributions.length > 0) return found;
  }
  return null;
}

/** The console script pytest's wheel would install, pointing at the image's python. */
export function pytestScript(): string {
  return '#!/usr/bin/python3\nimport sys\nfrom pytest import console_main\nsys.exit(console_main())\n';
}

/**
 * Where the image's python looks for installed packages: the host interpreter's first site directory under its
 * prefix, moved to the image's prefix (/usr: the binary sits in /usr/bin there). Debian's python gives
 * /usr/lib/python3/dist-packages, a pyenv one /usr/lib/pythonX.Y/site-packages.
 */
export function imageSiteDir(python: PythonInfo): string {
  const prefix = (python.prefix ?? '/usr').replace(/\/+$/, '');
  const under = (python.site ?? []).find((d) => d.startsWith(`${prefix}/lib/`));
  const dir = under ? `/usr${under.slice(prefix.length)}` : `/usr/lib/python${python.version}/site-packages`;
  return dir.replace(/^\/+/, '');
}
