/** Sums of budget amounts (USD and tokens) as the tenant ledger counts them. */
import type { BudgetAmount, LedgerState } from '../contracts/tenant-budget';

export const ZERO: BudgetAmount = { usd: 0, tokens: 0 };

export const addAmount = (a: BudgetAmount, b: BudgetAmount): BudgetAmount => ({
  usd: a.usd + b.usd,
  tokens: a.tokens + b.tokens,
});

export const minusAmount = (a: BudgetAmount, b: BudgetAmount): BudgetAmount => ({
  usd: Math.max(0, a.usd - b.usd),
  tokens: Math.max(0, a.tokens - b.tokens),
});

export const minAmount = (a: BudgetAmount, b: BudgetAmount): BudgetAmount => ({
  usd: Math.min(a.usd, b.usd),
  tokens: Math.min(a.tokens, b.tokens),
});

/** What open call reservations hold, and what admitted runs hold. */
export const reservedOf = (state: LedgerState): BudgetAmount => state.reservations.reduce(addAmount, ZERO);
export const heldOf = (state: LedgerState): BudgetAmount => state.holds.reduce(addAmount, ZERO);
