/** An engine that stops answering mid-run: told apart from API errors, and reported so `--resume` reruns the case. */
import type Docker from 'dockerode';
import { ServiceError } from '../service-error.js';
import { engineWhere, statusOf } from './engine.js';

const GONE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTCONN']);

/** True when `err` says the engine itself did not answer (connection refused, reset, socket gone), not an API error. */
export function isEngineGone(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  if (err instanceof EngineGoneError) return true;
  // a case service's own failure quotes its probe's error (ECONNREFUSED…), which says nothing of the engine
  if (err instanceof ServiceError) return false;
  if (statusOf(err) !== undefined) return false;
  const e = err as { code?: string; message?: string };
  if (e.code && GONE_CODES.has(e.code)) return true;
  return /socket hang up|ECONNREFUSED|ECONNRESET|connect ENOENT|EPIPE|aborted|premature close/i.test(e.message ?? '');
}

/** The engine stopped answering in the middle of a run; the session records the case as an infra-error. */
export class EngineGoneError extends Error {
  constructor(
    readonly where: string,
    cause: unknown,
  ) {
    super(
      `the docker engine at ${where} stopped answering (${(cause as Error)?.message ?? String(cause)}); ` +
        'the case was not graded — rerun with --resume once the engine is back',
      { cause },
    );
    this.name = 'EngineGoneError';
  }
}

/** Rethrows `err` as an EngineGoneError when it is a lost engine, else unchanged. */
export function asEngineError(err: unknown, docker: Docker): unknown {
  if (err instanceof EngineGoneError || !isEngineGone(err)) return err;
  return new EngineGoneError(engineWhere(docker), err);
}
