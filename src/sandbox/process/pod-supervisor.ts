/**
 * The process backend's pod supervisor (issue 19), a Node script kept as a string and run inside the case's network
 * and mount namespaces, before and after the entry command:
 *
 *   node pod.js start <config.json>   starts each service in order (as the sandbox user when the config says so),
 *                                     waits until it is ready, writes the pids, and exits 0 leaving them running;
 *   node pod.js check <config.json>   after the entry: exits 0 when every service still runs.
 *
 * A service that exits before it is ready, is not ready by its deadline, or is gone after the case writes
 * `{ name, problem }` to the config's failure file and exits 97; the backend turns it into a ServiceError.
 */
export const POD_SUPERVISOR = `
const fs = require('fs'), net = require('net'), http = require('http');
const { spawn, spawnSync } = require('child_process');
const [mode, configPath] = process.argv.slice(2);
const cfg = JSON.parse(fs.readFileSync(configPath, 'utf8'));
const ids = cfg.uid === null ? {} : { uid: cfg.uid, gid: cfg.gid };
function fail(name, problem) {
  fs.writeFileSync(cfg.failure, JSON.stringify({ name, problem }));
  process.exit(97);
}
if (mode === 'check') {
  for (const [name, pid] of JSON.parse(fs.readFileSync(cfg.pids, 'utf8'))) {
    let state = null;
    try { state = fs.readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ').pop()[0]; } catch {}
    if (!state || state === 'Z') fail(name, 'exited while the case ran');
  }
  process.exit(0);
}
let last = 'no answer';
function once(ready, name) {
  return new Promise((r) => {
    const no = (e) => { last = (e && (e.code || e.message)) || String(e); r(false); };
    if (ready.command) {
      const argv = typeof ready.command === 'string' ? ['/bin/sh', '-c', ready.command] : ready.command;
      const x = spawnSync(argv[0], argv.slice(1), { timeout: 10000, encoding: 'utf8', ...ids });
      if (x.status === 0) return r(true);
      return no(new Error(((x.stdout || '') + (x.stderr || '')).trim().split('\\n').pop() || 'exit ' + x.status));
    }
    if (ready.tcp) {
      const s = net.connect(ready.tcp, '127.0.0.1');
      s.once('connect', () => { s.destroy(); r(true); });
      s.once('error', no);
      s.setTimeout(2000, () => s.destroy(new Error('connect timed out')));
      return;
    }
    const q = http.get({ host: '127.0.0.1', port: ready.port, path: ready.http, timeout: 2000, headers: { host: name + ':' + ready.port } }, (res) => {
      res.resume();
      if (res.statusCode < 500) r(true); else no(new Error('HTTP ' + res.statusCode));
    });
    q.on('error', no);
    q.on('timeout', () => q.destroy(new Error('request timed out')));
  });
}
(async () => {
  const pids = [];
  for (const s of cfg.services) {
    const log = fs.openSync(s.log, 'a');
    const t0 = Date.now();
    const child = spawn(s.argv[0], s.argv.slice(1), { cwd: s.cwd, env: s.env, stdio: ['ignore', log, log], ...ids });
    let exited = null;
    child.on('exit', (code, sig) => { exited = sig ? 'was killed by ' + sig : 'exited with code ' + code; });
    child.on('error', (e) => { exited = 'could not start (' + e.message + ')'; });
    for (let d = 50; ; d = Math.min(d * 2, 500)) {
      await new Promise((r) => setTimeout(r, 0));
      if (exited) fail(s.name, exited + ' before it was ready');
      if (!s.ready || (await once(s.ready, s.name))) break;
      if (Date.now() + d > t0 + s.timeoutMs) fail(s.name, 'was not ready within ' + s.timeoutMs / 1000 + ' s (' + s.describe + ': ' + last + ')');
      await new Promise((r) => setTimeout(r, d));
    }
    if (exited) fail(s.name, exited + ' before it was ready');
    pids.push([s.name, child.pid, Date.now() - t0]);
    child.unref();
  }
  fs.writeFileSync(cfg.pids, JSON.stringify(pids));
  process.exit(0);
})();
`;
