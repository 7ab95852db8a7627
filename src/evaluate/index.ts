// The pure core of the Evaluate operation: metrics over labeled items, the statistics that say
// how sure each figure is, drift, and the HTML report. No n8n, no I/O: the node wires it
// (docs/evaluate.md). The answer rules it shares with the other operations (close calls, the
// labeled row) live in src/answer.
export * from './metrics';
export * from './report-html';
export * from './summary';
export * from './compare-text';
export * from './drift';
export * from './drift-html';
export * from './stats';
