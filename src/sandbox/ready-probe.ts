/**
 * The readiness probe of a case service (issue 19), a Node script kept as a string (tsc does not copy .mjs files)
 * and run inside the pod, where the service's loopback is: `node -e <probe> <http|tcp> <port> <path> <deadlineMs>
 * <name>`. It polls with a growing interval (50 ms → 500 ms) and exits 0 once the service answers (a TCP accept, or
 * an HTTP status below 500), 1 at the deadline with the last error on stdout.
 */
export const READY_PROBE = `
const [kind, port, path, ms, name] = process.argv.slice(1);
const net = require('net'), http = require('http');
const deadline = Date.now() + Number(ms);
let last = 'no answer';
const fail = (r) => (e) => { last = (e && (e.code || e.message)) || String(e); r(false); };
function once() {
  return new Promise((r) => {
    if (kind === 'tcp') {
      const s = net.connect(Number(port), '127.0.0.1');
      s.once('connect', () => { s.destroy(); r(true); });
      s.once('error', fail(r));
      s.setTimeout(2000, () => { last = 'connect timed out'; s.destroy(); r(false); });
      return;
    }
    const q = http.get({ host: '127.0.0.1', port: Number(port), path, timeout: 2000, headers: { host: name + ':' + port } }, (res) => {
      res.resume();
      if (res.statusCode < 500) r(true);
      else { last = 'HTTP ' + res.statusCode; r(false); }
    });
    q.on('error', fail(r));
    q.on('timeout', () => q.destroy(new Error('request timed out')));
  });
}
(async () => {
  for (let d = 50; ; d = Math.min(d * 2, 500)) {
    if (await once()) process.exit(0);
    if (Date.now() + d > deadline) { console.log(last); process.exit(1); }
    await new Promise((r) => setTimeout(r, d));
  }
})();
`;

/** How messages name a readiness check. */
export function describeReady(ready: { http: string; port: number } | { tcp: number } | { command: unknown }): string {
  if ('http' in ready) return `HTTP GET 127.0.0.1:${ready.port}${ready.http}`;
  if ('tcp' in ready) return `TCP 127.0.0.1:${ready.tcp}`;
  return `command ${JSON.stringify(ready.command)}`;
}
