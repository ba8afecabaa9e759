/** The model gateway (DESIGN §8): public face. */
export { attachmentFor, DEFAULT_RELAY_PORT } from './attach.js';
export { roleConfigFromEnv } from './config.js';
export { startGateway } from './gateway.js';
export { ledgerPath, readLedger, readTrace, tracePath } from './ledger.js';
export { costOf, type ModelPrice, type PricingTable, pricingFrom, readPricing } from './pricing.js';
export { RELAY_SCRIPT, RELAY_SOURCE, writeRelayScript } from './relay-source.js';
export type {
  Budgets,
  CallClass,
  CaseRegistration,
  Endpoint,
  Gateway,
  GatewayOptions,
  LedgerEntry,
  LedgerUsage,
  RegisteredCase,
  RetryOptions,
  Role,
  RoleConfig,
  TraceEntry,
} from './types.js';
export { ROLES } from './types.js';
