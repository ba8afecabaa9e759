// heldout gateway relay (DESIGN §8): listens on the sandbox's own 127.0.0.1:<port> and pipes every TCP connection
// to the gateway's Unix socket, so a delivery in a --network none sandbox reaches the model with an ordinary
// OPENAI_BASE_URL=http://127.0.0.1:<port>/v1. Plain Node, no dependencies; relay-source.ts is generated from it.
//   node relay.mjs <port> <socketPath>                  relay only, runs until killed
//   node relay.mjs <port> <socketPath> -- <cmd> [args]  relay, then run cmd (stdio inherited) once listening;
//                                                       exits with cmd's exit code, forwards SIGTERM/SIGINT/SIGHUP
import net from 'node:net';
import os from 'node:os';
import { spawn } from 'node:child_process';

const argv = process.argv.slice(2);
const sep = argv.indexOf('--');
const [portArg, socketPath] = sep === -1 ? argv : argv.slice(0, sep);
const command = sep === -1 ? [] : argv.slice(sep + 1);
const port = Number(portArg);
if (!Number.isInteger(port) || port < 1 || port > 65535 || !socketPath) {
  process.stderr.write('usage: node relay.mjs <port> <socketPath> [-- <command> [args...]]\n');
  process.exit(2);
}

const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.setNoDelay(true);
  client.pipe(upstream);
  upstream.pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.end());
});
server.on('error', (err) => {
  process.stderr.write(`heldout relay: ${err.message}\n`);
  process.exit(70);
});
server.listen(port, '127.0.0.1', () => {
  if (command.length === 0) return;
  const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('error', (err) => {
    process.stderr.write(`heldout relay: cannot start ${command[0]}: ${err.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    server.close();
    process.exit(signal ? 128 + (os.constants.signals[signal] ?? 0) : (code ?? 1));
  });
});
