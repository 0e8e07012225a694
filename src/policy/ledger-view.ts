/** The tenant ledger as `budget show` and every update answer it (docs/fleet.md, Tenant budgets across runs). */
import { QUEUE_SHOWN, type LedgerState, type LedgerView } from '../contracts/tenant-budget';
import { heldOf, reservedOf } from './budget-amounts';

const iso = (ms: number): string => new Date(ms).toISOString();

export function ledgerView(state: LedgerState): LedgerView {
  const reserved = reservedOf(state);
  const held = heldOf(state);
  const { limits, spent } = state;
  return {
    tenant: state.tenant,
    limits,
    period: { start: iso(state.periodStart), ...(state.periodEnd === undefined ? {} : { end: iso(state.periodEnd) }) },
    spent,
    reserved,
    remaining: {
      usd: Math.max(0, limits.maxCostUsd - spent.usd - reserved.usd - held.usd),
      ...(limits.maxTokens === undefined
        ? {}
        : { tokens: Math.max(0, limits.maxTokens - spent.tokens - reserved.tokens - held.tokens) }),
    },
    openReservations: state.reservations.length,
    calls: state.reservations
      .slice(0, QUEUE_SHOWN)
      .map(({ key, usd, tokens, at }) => ({ key, usd, tokens, since: iso(at) })),
    held: { ...held, runs: state.holds.filter((h) => h.usd > 0 || h.tokens > 0).length },
    queue: {
      waiting: state.queue.length,
      first: state.queue.slice(0, QUEUE_SHOWN).map((q) => ({
        run: q.run,
        usd: q.admit ? Math.max(q.admit.usd, q.usd) : q.usd,
        admission: q.admit !== undefined,
        since: iso(q.at),
      })),
    },
    stops: state.stops,
  };
}
