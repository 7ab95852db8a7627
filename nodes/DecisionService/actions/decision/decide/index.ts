export { description } from './description';
export { execute } from './execute';
