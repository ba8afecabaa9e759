import type { SandboxSpec } from '../protocol.js';
import type { ProcessCapabilities } from './capabilities.js';
import type { Cgroup } from './cgroup.js';

/** Every guarantee the docker backend gives that this run did not have, in words a report shows. */
export function weakerIsolation(
  spec: SandboxSpec,
  caps: ProcessCapabilities,
  cgroup: Cgroup | null,
  hide: string[],
  copied: boolean,
): string[] {
  const w: string[] = [];
  if (!caps.netns)
    w.push('network: no network namespace here (unshare not permitted); the delivery can reach the network');
  w.push(
    caps.privateRoot
      ? "filesystem: a private root of the host's system directories (/usr, /lib, …, and what programs need of /etc, read-only), the case's stage and the delivery (read-only); nothing else of the host is visible"
      : caps.mountns
        ? `filesystem: the host's files stay visible (only ${hide.length ? hide.join(', ') : 'nothing'} hidden; the delivery is read-only)`
        : "filesystem: the host's files stay visible, other cases and truth files included; the delivery is a copy made read-only by file mode",
  );
  if (copied && !caps.mountns && !caps.dropUser && (process.getuid?.() ?? -1) === 0) {
    w.push('delivery write protection: root ignores file modes (writes land in the copy; the original is untouched)');
  }
  if (!cgroup) {
    w.push('memory limit: not enforced (no writable cgroup; RLIMIT_AS breaks node)');
    w.push('pids limit: not enforced (no writable cgroup)');
    w.push('oom: not detected (no cgroup)');
  }
  if (!cgroup?.cpuLimited) w.push('cpu limit: not enforced');
  if (!caps.dropUser) w.push(`user: runs as the host user (uid ${process.getuid?.() ?? '?'}), not a sandbox user`);
  if (!caps.pidns) w.push('processes: a child that calls setsid() can outlive the wall-clock kill');
  if (spec.image) w.push(`image: ${spec.image} ignored; the host's interpreters run the delivery`);
  w.push('capabilities/seccomp: host defaults');
  return w;
}
