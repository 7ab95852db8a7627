// The answer rules, one home (docs/ARCHITECTURE.md): the decision's kinds and keys, the answer on
// an item, close calls, the audit sample and the labeled row. Decide, Review, Evaluate and Send
// Feedback read them here; src/evaluate and src/review are each one operation's own.
export * from './kinds';
export * from './item-answer';
export * from './close-call';
export * from './audit';
export * from './labeled-row';
