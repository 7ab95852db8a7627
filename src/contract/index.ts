export * from './bounds';
export * from './normalize';
export * from './resources';
export * from './requests';
export * from './errors';
export * from './input';
export * from './level';
