// The pure core of the Evaluate operation: metrics over labeled items, the close-call
// rule, the statistics that say how sure each figure is, and the HTML report. No n8n, no I/O:
// the node wires it (docs/evaluate.md).
export * from './close-call';
export * from './metrics';
export * from './report-html';
export * from './summary';
export * from './compare-text';
export * from './drift';
export * from './labeled-row';
export * from './drift-html';
export * from './stats';
