/**
 * Who owns a sandbox (issue 17): every container, volume, network and cgroup heldout makes carries a token naming
 * the process that made it — its pid and start time, on this host, boot and pid namespace. A sweep can then tell a
 * live run's leftovers (keep them) from those of a run whose process is gone (a SIGKILLed run: collect them), and
 * never has to guess from a run id alone.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';

/** The label holding the owner token on docker objects. */
export const OWNER_LABEL = 'heldout.owner';

/** What a sweep knows about an owner: alive, provably gone, or not checkable from here (another host, no token). */
export type OwnerState = 'live' | 'gone' | 'unknown';

function readOr(file: string, fallback: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return fallback;
  }
}

let host: string | null = null;

/** This host as a pid means something on it: hostname, boot id and pid namespace (a container shares none of them). */
function hostId(): string {
  if (host === null) {
    let pidns = '';
    try {
      pidns = readlinkSync('/proc/self/ns/pid').replace(/\D/g, '');
    } catch {
      // not Linux: the hostname alone
    }
    const boot = readOr('/proc/sys/kernel/random/boot_id', '').slice(0, 8);
    host = [os.hostname().replace(/[^A-Za-z0-9_.-]/g, '_'), boot, pidns].filter(Boolean).join(':');
  }
  return host;
}

/**
 * The start time of process `pid` in clock ticks since boot (`/proc/<pid>/stat` field 22), '0' where there is no
 * /proc, or null when no such process exists. With the pid it names one process, even after the pid is reused.
 */
export function processStart(pid: number): string | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && hasProc()) return null;
    return alive(pid) ? '0' : null;
  }
  // The command name (field 2) may hold spaces and parentheses: count the fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // A zombie (no init reaps it here) runs nothing and owns nothing any more.
  if (fields[0] === 'Z') return null;
  return fields[19] ?? '0';
}

function hasProc(): boolean {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let mine: string | null = null;

/** `<pid>.<start>`: this process, as cgroup names and owner tokens carry it. */
export function localOwner(): string {
  mine ??= `${process.pid}.${processStart(process.pid) ?? '0'}`;
  return mine;
}

/** This process's owner token: `<pid>.<start>@<host>`. */
export function ownerToken(): string {
  return `${localOwner()}@${hostId()}`;
}

/** The state of the process a `<pid>.<start>` names on this host. */
export function localOwnerState(local: string): OwnerState {
  const m = /^(\d+)\.(\d+)$/.exec(local);
  if (!m) return 'unknown';
  const now = processStart(Number(m[1]));
  if (now === null) return 'gone';
  // '0' on either side: no start times here, so a live pid is all there is to go by.
  return now === m[2] || now === '0' || m[2] === '0' ? 'live' : 'gone';
}

/** The state of the owner a token names: only an owner on this host (and pid namespace) can be checked. */
export function ownerState(token: string | undefined): OwnerState {
  if (!token) return 'unknown';
  const at = token.indexOf('@');
  if (at < 0 || token.slice(at + 1) !== hostId()) return 'unknown';
  return localOwnerState(token.slice(0, at));
}

/** Pids of this process's direct children (the Vitest workers of a run's main process). */
export function childPids(parent = process.pid): number[] {
  const out: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readOr(`/proc/${name}/stat`, '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === parent) out.push(Number(name));
  }
  return out;
}

/** True while process `pid` exists (a zombie counts as gone: it runs nothing). */
export function processAlive(pid: number): boolean {
  const stat = readOr(`/proc/${pid}/stat`, '');
  if (stat) return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  return !hasProc() && alive(pid);
}
