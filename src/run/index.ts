export { failureSummary } from './failure-message.js';
export { newRunId } from './run-id.js';
export { RunSession, type RunSessionOptions } from './session.js';
export * from './types.js';
