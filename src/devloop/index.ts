export { DevRoundError, type DevRoundOptions, type DevRoundResult, runDevRound } from './dev-round.js';
export { caseFeedback, roundFeedback, roundLine, shortDigest } from './feedback.js';
export { type FreezeFromLedgerOptions, freezeFromLedger, RoundDigestMismatchError } from './freeze-from-ledger.js';
export { admitRound, emptyLedger, recordRound, roundWithDigest } from './ledger.js';
export { defaultLedgerPath, readLedger, withLedgerLock, writeLedger } from './ledger-file.js';
export { NoQualifyingRoundError, selectFrozenRound } from './policy.js';
export { roundEntryFromSummary } from './round.js';
export type * from './types.js';
