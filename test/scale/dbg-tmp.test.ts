import { test } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createSwarmBackend } from '../../src/sandbox/index.js';
test('dbg', async () => {
const d = mkdtempSync('/tmp/dbgsw-'); chmodSync(d, 0o755);
writeFileSync(`${d}/input.md`, 'x'); chmodSync(`${d}/input.md`, 0o644);
mkdirSync(`${d}/del`); chmodSync(`${d}/del`, 0o755);
const b = createSwarmBackend();
const x = await b.run({ runId: 'dbg', caseId: 'c', trial: 1, command: 'python3 -c "import sys\nfor i in range(200000): sys.stdout.write(\'y\'*500+chr(10))\nsys.stderr.write(\'E\'*100)"', deliveryDir: `${d}/del`, inputPath: `${d}/input.md`, assetsDir: null, outputDir: `${d}/out`, limits: { wallSeconds: 30, memoryMb: 256, cpus: 1, pids: 64, outputBytes: 1 << 20 } });
console.log(x.exitCode, x.stdoutTruncated, x.stdout.length, JSON.stringify(x.stdout.slice(0, 100)), x.stderr.length, x.wallMs);
}, 60000);
