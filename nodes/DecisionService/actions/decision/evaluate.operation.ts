export { description } from './evaluate/description';
export { execute } from './evaluate/execute';
