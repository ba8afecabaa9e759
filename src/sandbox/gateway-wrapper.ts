import { basename, dirname } from 'node:path';
import { shQuote } from '../util/index.js';

/** One relay the wrapper starts: `node <script> <port> <socket>`; `service` names a mapped service's (issue 30). */
export interface WrappedRelay {
  port: number;
  script: string;
  socket: string;
  service?: string;
}

/**
 * Exit code of a wrapper whose service relay did not start; stderr then holds `relayFailureMarker(nonce, name)`.
 * The nonce (per case, unknown to the delivery before it runs) keeps a delivery from passing its own failure off
 * as the evaluator's.
 */
export const RELAY_FAILED_EXIT = 125;

/** The stderr line of a service relay that did not start. */
export const relayFailureMarker = (nonce: string, service: string) =>
  `heldout-relay-failed ${nonce} service "${service}"`;

const tcpLocal = (port: number) => `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The relay wrapper: start each relay in the background, wait (up to ~4 s, shell builtins only, reading
 * /proc/net/tcp) until all listen on their 127.0.0.1 ports, then run the entry command in the same shell. A
 * service relay still down then stops the case before the command runs (`RELAY_FAILED_EXIT`); the gateway's does
 * not (the delivery's model calls then fail, as they do on a gateway that is down).
 */
export function relayWrapper(command: string, relays: WrappedRelay[], nonce = '', node = 'node'): string {
  const lines: string[] = [];
  for (const [i, r] of relays.entries())
    lines.push(`${shQuote(node)} ${shQuote(r.script)} ${r.port} ${shQuote(r.socket)} &`, `heldout_p${i}=$!`);
  // A relay that has exited (its script or node missing, its port taken) ends the wait at once.
  const wait = (port: number, i: number) => [
    `heldout_i=0`,
    `while [ "$heldout_i" -lt 200 ]; do`,
    `  heldout_up=0`,
    `  while read -r _ heldout_l _ heldout_st _; do`,
    `    if [ "$heldout_l" = "${tcpLocal(port)}" ] && [ "$heldout_st" = "0A" ]; then heldout_up=1; fi`,
    `  done < /proc/net/tcp`,
    `  [ "$heldout_up" = 1 ] && break`,
    `  kill -0 "$heldout_p${i}" 2>/dev/null || break`,
    `  sleep 0.02 2>/dev/null || sleep 1`,
    `  heldout_i=$((heldout_i + 1))`,
    `done`,
  ];
  for (const [i, r] of relays.entries()) {
    lines.push(...wait(r.port, i));
    if (r.service !== undefined)
      lines.push(
        `if [ "$heldout_up" != 1 ]; then echo ${shQuote(relayFailureMarker(nonce, r.service))} >&2; exit ${RELAY_FAILED_EXIT}; fi`,
      );
  }
  const pids = relays.map((_, i) => ` heldout_p${i}`).join('');
  lines.push(`unset heldout_i heldout_up heldout_l heldout_st${pids}`, command);
  return lines.join('\n');
}

/** The gateway's relay alone (see `relayWrapper`). */
export function gatewayWrapper(command: string, port: number, relay: string, socket: string, node = 'node'): string {
  return relayWrapper(command, [{ port, script: relay, socket }], '', node);
}

/** The case's nonce for `relayFailureMarker`: the name of the host directory holding its service sockets. */
export const relayNonce = (spec: { serviceRelays?: { socketPath: string }[] }) =>
  basename(dirname(spec.serviceRelays?.[0]?.socketPath ?? '/'));

/** Why a backend whose sandboxes cannot bind this host's sockets refuses mapped URL services (by name). */
export const relaysRefused = (spec: { serviceRelays?: { name: string }[] }, where: string) =>
  `the mapped service${(spec.serviceRelays ?? []).length > 1 ? 's' : ''} ` +
  `${(spec.serviceRelays ?? []).map((r) => `"${r.name}"`).join(', ')} cannot be relayed to sandboxes on ${where}: ` +
  "the relay's Unix socket is on this host. Run the case on a local engine (--sandbox docker|podman|process)";
