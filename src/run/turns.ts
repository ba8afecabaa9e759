import type { SandboxBackend, SandboxSpec, Turn } from '../sandbox/index.js';

type Limiter = <T>(fn: () => Promise<T>) => Promise<T>;

/** One of `limit`'s slots, held by hand (its release may be called more than once). */
export function turnOf(limit: Limiter): Turn {
  return () =>
    new Promise((granted) => {
      void limit(
        () =>
          new Promise<void>((done) => {
            let released = false;
            granted(() => {
              if (!released) done();
              released = true;
            });
          }),
      );
    });
}

/** A case's turns (`guardedTurn`). */
export interface GuardedTurn {
  turn: Turn;
  settle: () => void;
  readonly refused: string | null;
}

/**
 * A case's turns: `turn` refused when `refusal()` holds as it is granted (the slot goes straight back; `refused`
 * says why), and the slot of its command kept past the command's exit until `settle()` — the session calls it once
 * the delivery's tamper check after the case is done, so no later case starts its command on a tree changed
 * meanwhile (what ran before the change was found is refused, as without turns). A second turn of the same case
 * first gives back its first: that command is over. The first turn is asked for when the case starts.
 */
export function guardedTurn(turn: Turn, refusal: () => Error | null): GuardedTurn {
  let refused: string | null = null;
  let kept: (() => void) | null = null;
  // Taken at once, so turns are granted in the order cases start, not in the order their preparation ends.
  let ticket: Promise<() => void> | null = turn();
  const settle = () => {
    kept?.();
    kept = null;
    // A case that never ran a command gives its ticket back once it comes up.
    ticket?.then((release) => release());
    ticket = null;
  };
  return {
    turn: async (signal) => {
      kept?.();
      kept = null;
      const first = ticket;
      ticket = null;
      const release = await (first ?? turn(signal));
      const why = refusal();
      if (why) {
        release();
        refused = `refused: ${why.message}`;
        throw new Error(refused);
      }
      let given = false;
      return () => {
        if (given) return;
        given = true;
        kept = release;
      };
    },
    settle,
    get refused() {
      return refused;
    },
  };
}

/**
 * The backend as a case's run sees it: each `run` and each trial takes a `turn`, so at most the limiter's size of
 * entry commands (or trial containers) run at once however a family drives the backend. A backend that takes turns
 * is handed the turn and holds it only while the command runs; any other runs inside it throughout.
 */
export function withTurns(backend: SandboxBackend, turn: Turn): SandboxBackend {
  return new Proxy(backend, {
    get(target, prop) {
      if (prop === 'run') {
        return async (spec: SandboxSpec, options: { signal?: AbortSignal } = {}) => {
          if (target.takesTurns) return target.run(spec, { ...options, turn });
          const release = await turn(options.signal);
          try {
            return await target.run(spec, options);
          } finally {
            release();
          }
        };
      }
      if (prop === 'openTrial' && target.openTrial) {
        const open = target.openTrial.bind(target);
        return async (...args: Parameters<typeof open>) => {
          const release = await turn(args[1]?.signal);
          try {
            const trial = await open(...args);
            return { ...trial, close: () => trial.close().finally(release) };
          } catch (err) {
            release();
            throw err;
          }
        };
      }
      // Everything else is the backend's own, called on it (its private state stays its own).
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
