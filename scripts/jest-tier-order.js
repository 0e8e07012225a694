// The order jest starts test files in: the long single-file tiers first, so that no worker starts one
// of them while the others run out of work, then integration, then unit files to fill the gaps at
// the end. Within a tier, jest's own order: files that failed last time, then the slowest last time,
// then the largest.
const Sequencer = require('@jest/test-sequencer').default;

const TIER_ORDER = ['chaos', 'browser', 'integration', 'unit'];

function rank(test) {
  const name = test.context.config.displayName?.name;
  const index = TIER_ORDER.indexOf(name);
  return index === -1 ? TIER_ORDER.length : index;
}

class TierOrder extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    // Array.prototype.sort is stable: jest's order holds within each tier.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = TierOrder;
