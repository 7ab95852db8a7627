export { description } from './review/description';
export { execute } from './review/execute';
export { webhook } from './review/webhook';
