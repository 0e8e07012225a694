import { smokeTest } from './smoke';

smokeTest('tokens');
