import { smokeTest } from './smoke';

smokeTest('fleet');
