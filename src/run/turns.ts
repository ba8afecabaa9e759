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

/**
 * The backend as a case's run sees it: each `run` and each trial takes one of `limit`'s turns, so at most its size of
 * entry commands (or trial containers) run at once however a family drives the backend. A backend that takes turns
 * is handed the turn and holds it only while the command runs; any other runs inside it throughout.
 */
export function withTurns(backend: SandboxBackend, limit: Limiter, turn: Turn = turnOf(limit)): SandboxBackend {
  return new Proxy(backend, {
    get(target, prop) {
      if (prop === 'run') {
        return (spec: SandboxSpec, options: { signal?: AbortSignal } = {}) =>
          target.takesTurns ? target.run(spec, { ...options, turn }) : limit(() => target.run(spec, options));
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
