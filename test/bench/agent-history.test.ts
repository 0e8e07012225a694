import { smokeTest } from './smoke';

smokeTest('agent-history');
