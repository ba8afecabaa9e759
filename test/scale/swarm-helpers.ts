import { execFileP } from '../sandbox/helpers.js';

let gwbridgeBefore = true;

async function hasNetwork(name: string): Promise<boolean> {
  const { stdout } = await execFileP('docker', ['network', 'ls', '--format', '{{.Name}}']);
  return stdout.split('\n').includes(name);
}

/** Makes the local engine a single-node swarm manager if it is not in a swarm; true when this call inited it. */
export async function enterSwarm(): Promise<boolean> {
  const { stdout } = await execFileP('docker', ['info', '--format', '{{.Swarm.LocalNodeState}}']);
  if (stdout.trim() === 'active') return false;
  gwbridgeBefore = await hasNetwork('docker_gwbridge');
  await execFileP('docker', ['swarm', 'init', '--advertise-addr', '127.0.0.1']);
  return true;
}

/** Leaves the swarm this process inited, and removes the bridge `swarm init` made: the engine ends as found. */
export async function leaveSwarm(): Promise<void> {
  await execFileP('docker', ['swarm', 'leave', '--force']);
  if (!gwbridgeBefore && (await hasNetwork('docker_gwbridge'))) {
    await execFileP('docker', ['network', 'rm', 'docker_gwbridge']).catch(() => {});
  }
}
