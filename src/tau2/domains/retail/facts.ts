import type { Order } from './db.js';

/** The reasons `cancel_pending_order` accepts. */
export const CANCEL_REASONS = ['no longer needed', 'ordered by mistake'] as const;

/** τ² lets address and payment changes act on any "pending…" order (one whose items changed included). */
export const isPending = (o: Order) => typeof o.status === 'string' && o.status.includes('pending');
