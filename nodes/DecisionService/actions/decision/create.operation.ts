export { description } from './create/description';
export { execute } from './create/execute';
