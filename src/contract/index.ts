// What the wire carries (docs/api.md): the constants, the response and request schemas with their
// types, and the level rule. Validation shared with the sandbox is in ./validation; what only the
// sandbox needs lives in sandbox/. The schemas use zod/v4/mini, whose functions bundle only what
// they use: with classic zod the shipped node carried all of zod and its locales (about 400 KB).
export * from './constants';
export * from './level';
export * from './own';
export * from './requests';
export * from './resources';
