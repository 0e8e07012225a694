import { smokeTest } from './smoke';

smokeTest('concurrency');
