export { caseOutputPath } from './case-path.js';
export { failureSummary } from './failure-message.js';
export { type HeldoutLeak, scanHeldoutLeak } from './heldout-leak.js';
export { newRunId } from './run-id.js';
export { relayedUrl } from './service-relays.js';
export { RunSession, type RunSessionOptions } from './session.js';
export { type GuardedTurn, guardedTurn, turnOf, withTurns } from './turns.js';
export * from './types.js';
