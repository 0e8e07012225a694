import { smokeTest } from './smoke';

smokeTest('tool-calls');
