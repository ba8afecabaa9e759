/**
 * The relay script as text, so the built package can write it wherever a sandbox needs it (tsc does not copy
 * `relay.mjs` into dist). GENERATED from `relay.mjs`: edit that file, then regenerate this one with
 *   UPDATE_RELAY_SOURCE=1 npx vitest run test/gateway/relay.test.ts
 * (without the variable, that test fails while the two differ).
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RELAY_SOURCE =
  "// heldout gateway relay (DESIGN §8): listens on the sandbox's own 127.0.0.1:<port> and pipes every TCP connection\n// to the gateway's Unix socket, so a delivery in a --network none sandbox reaches the model with an ordinary\n// OPENAI_BASE_URL=http://127.0.0.1:<port>/v1. Plain Node, no dependencies; relay-source.ts is generated from it.\n//   node relay.mjs <port> <socketPath>                  relay only, runs until killed\n//   node relay.mjs <port> <socketPath> -- <cmd> [args]  relay, then run cmd (stdio inherited) once listening;\n//                                                       exits with cmd's exit code, forwards SIGTERM/SIGINT/SIGHUP\nimport net from 'node:net';\nimport os from 'node:os';\nimport { spawn } from 'node:child_process';\n\nconst argv = process.argv.slice(2);\nconst sep = argv.indexOf('--');\nconst [portArg, socketPath] = sep === -1 ? argv : argv.slice(0, sep);\nconst command = sep === -1 ? [] : argv.slice(sep + 1);\nconst port = Number(portArg);\nif (!Number.isInteger(port) || port < 1 || port > 65535 || !socketPath) {\n  process.stderr.write('usage: node relay.mjs <port> <socketPath> [-- <command> [args...]]\\n');\n  process.exit(2);\n}\n\nconst server = net.createServer((client) => {\n  const upstream = net.connect(socketPath);\n  client.setNoDelay(true);\n  client.pipe(upstream);\n  upstream.pipe(client);\n  client.on('error', () => upstream.destroy());\n  upstream.on('error', () => client.destroy());\n  client.on('close', () => upstream.destroy());\n  upstream.on('close', () => client.end());\n});\nserver.on('error', (err) => {\n  process.stderr.write(`heldout relay: $\u007berr.message}\\n`);\n  process.exit(70);\n});\nserver.listen(port, '127.0.0.1', () => {\n  if (command.length === 0) return;\n  const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });\n  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => child.kill(sig));\n  child.on('error', (err) => {\n    process.stderr.write(`heldout relay: cannot start $\u007bcommand[0]}: $\u007berr.message}\\n`);\n    process.exit(127);\n  });\n  child.on('exit', (code, signal) => {\n    server.close();\n    process.exit(signal ? 128 + (os.constants.signals[signal] ?? 0) : (code ?? 1));\n  });\n});\n";

/** Absolute path of `relay.mjs` beside this module (exists in src/; in dist only if the build copies it). */
export const RELAY_SCRIPT = fileURLToPath(new URL('./relay.mjs', import.meta.url));

/** Writes the relay script into `dir` (created if missing) as `heldout-relay.mjs`, mode 0644; returns its path. */
export function writeRelayScript(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'heldout-relay.mjs');
  let current: string | null = null;
  try {
    current = readFileSync(path, 'utf8');
  } catch {}
  if (current !== RELAY_SOURCE) writeFileSync(path, RELAY_SOURCE);
  chmodSync(path, 0o644);
  return path;
}
