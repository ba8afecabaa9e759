/** The host's python3, as its interpreter reports itself: what the runtime image copies. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

export interface PythonInfo {
  exe: string;
  version: string;
  stdlib: string;
  dynload: string;
  /** The interpreter's prefix and site directories (`site.getsitepackages()`), as the host has them. */
  prefix?: string;
  site?: string[];
}

const PY_PROBE = [
  'import sys, sysconfig, os, json, site',
  'print(json.dumps({"exe": os.path.realpath(sys.executable), "version": "%d.%d" % sys.version_info[:2],',
  ' "stdlib": sysconfig.get_paths()["stdlib"], "dynload": sysconfig.get_config_var("DESTSHARED") or "",',
  ' "prefix": sys.prefix, "site": site.getsitepackages()}))',
].join('\n');

/**
 * The python to copy: $HELDOUT_PYTHON, else Debian's /usr/bin/python3, else whatever `python3` on PATH really is
 * (pyenv's `python3` is a shim; the probe asks the interpreter for its real executable and prefix).
 */
export async function findPython(): Promise<PythonInfo | null> {
  const candidates = [process.env.HELDOUT_PYTHON, '/usr/bin/python3', 'python3'].filter(Boolean) as string[];
  for (const c of candidates) {
    if (c.startsWith('/') && !existsSync(c)) continue;
    try {
      const { stdout } = await execFileP(c, ['-c', PY_PROBE], { timeout: 15_000 });
      const info = JSON.parse(stdout) as PythonInfo;
      if (!info.dynload || !existsSync(info.dynload)) info.dynload = join(info.stdlib, 'lib-dynload');
      if (existsSync(join(info.stdlib, 'os.py'))) return info;
    } catch {
      // next candidate
    }
  }
  return null;
}
