// What a Harbor task's scripts fetch when they run (not at build time): Harbor's canonical verifier installs curl,
// uv and pytest from the internet on every run, so a trial without a network cannot run it. The importer names
// these in IMPORT-NOTES so a user knows before running which phases need a network; the run itself still decides
// (a verifier that could not run is an infra-error whatever the notes predicted).

/** One kind of run-time fetch: how a script line shows it, and how IMPORT-NOTES names it. */
const FETCHES: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/\bapt(?:-get)?\s+(?:-\S+\s+)*install\b/, () => 'apt-get install (Debian packages)'],
  [/\bapk\s+add\b/, () => 'apk add (Alpine packages)'],
  // Only a host with a dot that is not loopback: `http://api-server:5000` is a sidecar, `http://$domain` the task's own.
  [
    /\b(?:curl|wget)\b[^\n]*?(https?:\/\/(?!localhost\b|127\.|\$)[^\s"'|)/:]+\.[^\s"'|)]+)/,
    (m) => `a download from ${m[1]}`,
  ],
  [/\buvx\b|\buv\s+(?:run|tool\s+run)\b[^\n]*--with\b/, () => 'uv/uvx resolving packages (PyPI)'],
  [/\b(?:uvx|uv\s+run)\b[^\n]*(?:--python|-p)\s+\d/, () => 'a uv-managed CPython download'],
  [/\bpip3?\s+install\b(?![^\n]*--no-index)/, () => 'pip install (PyPI)'],
  [/\bnpm\s+(?:install|i|ci)\b|\bnpx\s/, () => 'npm packages'],
  [/\bgit\s+(?:clone|fetch|pull)\b/, () => 'a git clone/fetch'],
];

/** The run-time fetches a shell script's lines show, in `FETCHES` order, each named once; comments are skipped. */
export function runtimeFetches(script: string): string[] {
  const lines = script
    .split('\n')
    .map((l) => l.replace(/^\s*#.*$/, ''))
    .filter((l) => l.trim() !== '');
  const found: string[] = [];
  for (const [re, name] of FETCHES) {
    for (const l of lines) {
      const m = l.match(re);
      if (!m) continue;
      const n = name(m);
      if (!found.includes(n)) found.push(n);
    }
  }
  return found;
}
