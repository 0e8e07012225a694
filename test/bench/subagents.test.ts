import { smokeTest } from './smoke';

smokeTest('subagents');
