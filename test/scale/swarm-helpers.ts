import { execFileP } from '../sandbox/helpers.js';

/** Makes the local engine a single-node swarm manager if it is not in a swarm; true when this call inited it. */
export async function enterSwarm(): Promise<boolean> {
  const { stdout } = await execFileP('docker', ['info', '--format', '{{.Swarm.LocalNodeState}}']);
  if (stdout.trim() === 'active') return false;
  await execFileP('docker', ['swarm', 'init', '--advertise-addr', '127.0.0.1']);
  return true;
}

/** Leaves the swarm this process inited (the engine ends as the test found it). */
export async function leaveSwarm(): Promise<void> {
  await execFileP('docker', ['swarm', 'leave', '--force']);
}
