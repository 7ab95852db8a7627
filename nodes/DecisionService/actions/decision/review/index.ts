export { description } from './description';
export { execute } from './execute';
export { webhook } from './webhook';
