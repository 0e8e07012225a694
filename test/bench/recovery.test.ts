import { smokeTest } from './smoke';

smokeTest('recovery');
