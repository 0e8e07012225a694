import { smokeTest } from './smoke';

smokeTest('turn-overhead');
