import { smokeTest } from './smoke';

smokeTest('watch-history');
