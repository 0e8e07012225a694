/** The ReAct kind at the edges: it takes no options of its own and adds nothing to the state view. */
import { REACT_FACTS } from '../policy/kind-facts';
import type { KindEdge } from './kind-edge';

export const reactEdge: KindEdge = { facts: REACT_FACTS };
