/**
 * The modules every run of a worker shares (see src/common/preloaded-modules.ts). zod declares itself
 * free of side effects, so the bundler drops a bare `require('zod')` whose value goes unused; this
 * module uses the value, which keeps it.
 */
import { z } from 'zod';

export const sharedZod: typeof z = z;

// zod fills some module-level state lazily, when the first schemas are built: the default locale
// and memoizer on its global config, and whether code generation is allowed (a cached probe). They
// are filled here, with the same values, while the preloaded modules can still be written: they are
// frozen once the preload ends, and a run that built the first schema would fail to write them.
const defaults = z.config();
if (!defaults.localeError) z.config(z.locales.en());
if (!defaults.memoizer) z.config({ memoizer: z.core.memoizer() });
void z.core.util.allowsEval.value;
