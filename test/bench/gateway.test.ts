import { smokeTest } from './smoke';

smokeTest('gateway');
