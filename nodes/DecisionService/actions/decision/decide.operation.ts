export { description } from './decide/description';
export { execute } from './decide/execute';
