// Validation shared by the client, the node and the sandbox: the same checks refuse a bad request
// before it is sent (no quota spent) and answer it with 400 details in the sandbox.
export * from './create-request';
export * from './decide-input';
export * from './keys';
