/**
 * Holding a case's container before its turn (issue 24, `backend.ts`): the shell waits on stdin for one line, sent
 * when the caller's turn (and the engine gate's slot) is granted, and the command then runs with no stdin.
 */
import type { Turn } from '../protocol.js';
import type { EngineGate } from './engine-gate.js';

/** What a held container's shell runs first (after the gateway relay is up): the command comes after it. */
export const HOLD_LINE = 'IFS= read -r heldout_go || exit 0\nexec 0</dev/null\nunset heldout_go\n';

/** The caller's turn, then a slot of the engine gate (which counts commands running, not containers holding). */
export function turnWithGate(turn: Turn, gate: EngineGate): Turn {
  return async (signal) => {
    const mine = await turn(signal);
    try {
      const slot = await gate.acquire(signal);
      return () => {
        slot();
        mine();
      };
    } catch (err) {
      mine();
      throw err;
    }
  };
}

/**
 * Waits for the turn, then releases the shell (one line on the attach stream). A container that ends first (killed,
 * out of memory) is not waited for: null, and a turn granted later is handed straight back.
 */
export async function awaitTurn(
  hold: Turn,
  exited: Promise<unknown>,
  stdin: NodeJS.WritableStream,
  signal?: AbortSignal,
): Promise<(() => void) | null> {
  const granted = hold(signal);
  // An exit that rejects (the engine went away) is the caller's to report when it awaits it.
  const got = await Promise.race([
    granted,
    exited.then(
      () => null,
      () => null,
    ),
  ]);
  if (!got) {
    granted.then(
      (release) => release(),
      () => {},
    );
    return null;
  }
  stdin.write('\n');
  return got;
}
