import { smokeTest } from './smoke';

smokeTest('evals');
